// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs: the table of live jobs, keyed by (owner, id), and their sysfs
 * directories.  An endpoint joins its job when it is created and leaves
 * it when it is destroyed; the last one to leave unlists the job, whose
 * memory goes with the last reference (endpoints' and running boosts').
 */
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/slab.h>

#include "job.h"

static DEFINE_MUTEX(cosched_jobs_mutex);
static DEFINE_HASHTABLE(cosched_jobs, 8);
static atomic_t cosched_jobs_live = ATOMIC_INIT(0);
static struct kobject *cosched_jobs_kobj;

static struct cosched_job *to_job(struct kobject *kobj)
{
	return container_of(kobj, struct cosched_job, kobj);
}

static ssize_t counter_show(struct kobject *kobj, struct kobj_attribute *a,
			    char *buf)
{
	return cosched_counter_show(&to_job(kobj)->stats, a, buf);
}

COSCHED_DEFINE_COUNTER_ATTRS();

static ssize_t job_endpoints_show(struct kobject *kobj,
				  struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_job(kobj)->nr_endpoints));
}

static ssize_t job_owner_uid_show(struct kobject *kobj,
				  struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  from_kuid_munged(current_user_ns(),
					   to_job(kobj)->owner));
}

static struct kobj_attribute job_endpoints_attr =
	__ATTR(endpoints, 0444, job_endpoints_show, NULL);
static struct kobj_attribute job_owner_uid_attr =
	__ATTR(owner_uid, 0444, job_owner_uid_show, NULL);

static struct attribute *cosched_job_attrs[] = {
	&job_endpoints_attr.attr,
	&job_owner_uid_attr.attr,
	NULL,
};

static const struct attribute_group cosched_job_counter_group = {
	.attrs = counter_attrs,
};

static const struct attribute_group cosched_job_group = {
	.attrs = cosched_job_attrs,
};

static const struct attribute_group *cosched_job_groups[] = {
	&cosched_job_counter_group,
	&cosched_job_group,
	NULL,
};

/* Runs at the last put, perhaps from an RCU callback. */
static void cosched_job_release(struct kobject *kobj)
{
	mutex_destroy(&to_job(kobj)->eps_lock);
	kfree(to_job(kobj));
}

static const struct kobj_type cosched_job_ktype = {
	.release = cosched_job_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = cosched_job_groups,
};

static struct cosched_job *cosched_job_find(kuid_t owner, u64 job_id)
{
	struct cosched_job *job;

	lockdep_assert_held(&cosched_jobs_mutex);
	hash_for_each_possible(cosched_jobs, job, node, job_id)
		if (job->id == job_id && uid_eq(job->owner, owner))
			return job;
	return NULL;
}

static struct cosched_job *cosched_job_create(kuid_t owner, u64 job_id)
{
	struct cosched_job *job;
	int ret;

	job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	if (!job)
		return ERR_PTR(-ENOMEM);
	job->id = job_id;
	job->owner = owner;
	INIT_LIST_HEAD(&job->eps);
	mutex_init(&job->eps_lock);
	cosched_bucket_init(&job->budget);
	/* No uevent: the last put must not sleep (see cosched_job_put()). */
	ret = kobject_init_and_add(&job->kobj, &cosched_job_ktype,
				   cosched_jobs_kobj, "%u-%llu",
				   from_kuid(&init_user_ns, owner), job_id);
	if (ret) {
		kobject_put(&job->kobj);
		return ERR_PTR(ret);
	}
	hash_add(cosched_jobs, &job->node, job_id);
	atomic_inc(&cosched_jobs_live);
	return job;
}

/**
 * cosched_job_join() - count a new member of a job, made if need be
 * @owner: the creating task's effective uid
 * @job_id: the job
 *
 * Return: the job with a reference for the member, or an ERR_PTR():
 * -ENOMEM, or kobject_add()'s error.
 */
struct cosched_job *cosched_job_join(kuid_t owner, u64 job_id)
{
	struct cosched_job *job;

	mutex_lock(&cosched_jobs_mutex);
	job = cosched_job_find(owner, job_id);
	if (job)
		cosched_job_get(job);
	else
		job = cosched_job_create(owner, job_id);
	if (!IS_ERR(job))
		job->nr_endpoints++;
	mutex_unlock(&cosched_jobs_mutex);
	return job;
}

/**
 * cosched_job_leave() - end one membership taken by cosched_job_join()
 * @job: the job
 *
 * The last member unlists the job and its directory; the member's
 * reference stays with the caller.
 */
void cosched_job_leave(struct cosched_job *job)
{
	mutex_lock(&cosched_jobs_mutex);
	if (!--job->nr_endpoints) {
		hash_del(&job->node);
		atomic_dec(&cosched_jobs_live);
		kobject_del(&job->kobj);
	}
	mutex_unlock(&cosched_jobs_mutex);
}

/* Live jobs, for stats/jobs. */
int cosched_nr_jobs(void)
{
	return atomic_read(&cosched_jobs_live);
}

/**
 * cosched_jobs_init() - make the jobs/ directory
 * @parent: /sys/kernel/cosched
 *
 * Return: 0 or -ENOMEM.
 */
int cosched_jobs_init(struct kobject *parent)
{
	cosched_jobs_kobj = kobject_create_and_add("jobs", parent);
	return cosched_jobs_kobj ? 0 : -ENOMEM;
}

/* Every job is gone: every endpoint was, and every boost ended. */
void cosched_jobs_exit(void)
{
	kobject_put(cosched_jobs_kobj);
}
