/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Jobs: the endpoints of one parallel job on this node, per user.  A job
 * id names a job of the caller's effective uid, so no user can take,
 * join or squat another user's job id.  Each live job has a directory
 * jobs/<owner uid>-<job id>/ in sysfs, whose kobject holds its memory.
 */
#ifndef _COSCHED_JOB_H
#define _COSCHED_JOB_H

#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/uidgid.h>

#include "bucket.h"
#include "counters.h"

struct cosched_job {
	u64 id;
	kuid_t owner;			/* jobs are per user: (owner, id) */
	struct hlist_node node;		/* the job table, under its mutex */
	unsigned int nr_endpoints;	/* under the job table's mutex */
	struct mutex eps_lock;
	struct list_head eps;		/* members, under eps_lock */
	struct kobject kobj;		/* jobs/<uid>-<id>; holds the memory */
	struct cosched_counters stats;
	struct cosched_bucket budget;
};

int cosched_jobs_init(struct kobject *parent);
void cosched_jobs_exit(void);
struct cosched_job *cosched_job_join(kuid_t owner, u64 job_id);
void cosched_job_leave(struct cosched_job *job);
int cosched_nr_jobs(void);

static inline void cosched_job_get(struct cosched_job *job)
{
	kobject_get(&job->kobj);
}

/*
 * Any context.  The last put never sleeps: no uevent is ever sent, and
 * the directory is gone by then (cosched_job_leave() removes it when the
 * last member leaves, and members hold references until after that).
 */
static inline void cosched_job_put(struct cosched_job *job)
{
	kobject_put(&job->kobj);
}

#endif /* _COSCHED_JOB_H */
