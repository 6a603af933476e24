/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Endpoints: one per /dev/cosched file that asked for one, owned by the
 * task that created it, a member of one job of its creator's user.
 *
 * Locking, outermost first:
 *   the endpoint table's mutex (endpoint.c)  creation, destruction and
 *                                           the control pages' policy
 *   the job table's mutex (job.c)
 *   cosched_job.eps_lock                    one job's members
 *   cosched_task.prio_lock                  the task's scheduling
 *                                           attributes (an rt_mutex)
 *   cosched_ep.arrive_lock, cosched_task.eps_lock, the users' and the
 *   tasks' table locks (spinlocks)
 *   budget buckets (raw spinlocks: node, CPU, user, job)
 * Endpoints are found under RCU and pinned with a reference.  No hot
 * path (context switch, arrival, yield, periodic examination, exit)
 * takes the table's mutex.
 */
#ifndef _COSCHED_ENDPOINT_H
#define _COSCHED_ENDPOINT_H

#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/uidgid.h>
#include <linux/wait.h>

#include <uapi/linux/cosched.h>

#include "counters.h"
#include "tunables.h"

struct cosched_job;
struct cosched_task;
struct cosched_user;

/*
 * An endpoint.  What the kernel decides from is kept here, in kernel
 * memory; the control page and the ring header only mirror it for user
 * space, and the kernel never reads its own fields back from them.  Of
 * what the owner writes, the kernel reads only @consumed (and the ring's
 * head and tail), which can make its own endpoint look pending: that is
 * what ringing its own doorbell does too, and both are paid from the
 * owner's budgets.
 */
struct cosched_ep {
	u64 id;
	u32 slot;			/* index in the table of all endpoints */
	u32 rank;
	struct cosched_job *job;
	struct cosched_task *task;	/* the owner's record, a reference */
	struct cosched_user *user;	/* the creator's euid, a reference */
	struct page *ctrl_page;
	struct cosched_ctrl *ctrl;	/* mirror, shared with the owner */
	struct cosched_ring *ring;	/* receive ring, shared in the job */
	u32 ring_data;			/* bytes in its data area */
	refcount_t ref;
	bool dead;			/* set once, by cosched_close_ep() */

	struct hlist_node key_node;	/* (owner, job, rank) table */
	struct list_head task_node;	/* the owner's endpoints */
	struct list_head user_node;	/* the user's endpoints */
	struct list_head job_node;	/* the job's endpoints */
	struct rcu_head rcu;

	/* Kernel state, mirrored into the control page. */
	spinlock_t arrive_lock;		/* orders arrivals, state bits */
	u64 arrivals;
	u64 last_arrival_ns;
	u32 state;
	atomic_t peers_lost;
	/* When the examiner first saw the ring pending, for pbt. */
	u64 ring_seen_ns;

	wait_queue_head_t wq;
	/* poll() waiters of the owning file, which outlives the binding. */
	wait_queue_head_t __rcu *poll_wq;
	atomic_t nr_waiters;

	struct cosched_counters stats;

	/* Arrival hooks (hooks.c); the list under its mutex. */
	struct list_head hooks;
	unsigned int nr_hooks;
	bool hooks_closed;
	struct kthread_work hook_work;	/* cosched_arrive_steer() */
};

struct cosched_ep *cosched_ep_create(u64 job_id, u32 rank,
				     kthread_work_func_t hook_fn);
void cosched_ep_unlist(struct cosched_ep *ep, bool orderly,
		       void (*peer_lost)(struct cosched_ep *peer));
void cosched_ep_retire(struct cosched_ep *ep);
struct cosched_ep *cosched_ep_lookup(kuid_t owner, u64 job_id, u32 rank);
void cosched_ep_put(struct cosched_ep *ep);
static inline void cosched_ep_get(struct cosched_ep *ep)
{
	refcount_inc(&ep->ref);
}

typedef bool (*cosched_ep_visit_t)(struct cosched_ep *ep, void *arg);
u32 cosched_ep_visit_from_rcu(u32 start, cosched_ep_visit_t fn, void *arg);
void cosched_ep_publish_tunable(enum cosched_tunable_id id, unsigned int val);
void cosched_ep_exit(void);
int cosched_nr_endpoints(void);
const struct cosched_counters *cosched_global_counters(void);

void cosched_count(struct cosched_ep *ep, enum cosched_counter c, u64 n);
bool cosched_may_steer(struct cosched_ep *ep);
bool cosched_may_steer_noaudit(struct cosched_ep *ep);
void cosched_set_state(struct cosched_ep *ep, u32 bit, bool on);
void cosched_poll_wake(struct cosched_ep *ep, __poll_t mask);
void cosched_ep_peer_lost(struct cosched_ep *ep);
u32 cosched_ring_size(void);

/* True while senders have reserved more ring space than the owner read. */
static inline bool cosched_ring_pending(struct cosched_ep *ep)
{
	return READ_ONCE(ep->ring->tail) != READ_ONCE(ep->ring->head);
}

static inline u64 cosched_arrivals(struct cosched_ep *ep)
{
	return READ_ONCE(ep->arrivals);
}

/*
 * Messages the owner has not consumed: announced arrivals beyond what it
 * reports consumed, plus one if its ring holds anything.
 */
static inline u64 cosched_pending(struct cosched_ep *ep)
{
	s64 p = cosched_arrivals(ep) - READ_ONCE(ep->ctrl->consumed);

	return (p > 0 ? p : 0) + cosched_ring_pending(ep);
}

/*
 * The newest arrival the kernel knows of: announced, or first seen in
 * the ring by the examiner (a sender's own time stamp is not trusted).
 */
static inline u64 cosched_last_arrival(struct cosched_ep *ep)
{
	return max(READ_ONCE(ep->last_arrival_ns),
		   READ_ONCE(ep->ring_seen_ns));
}

#endif /* _COSCHED_ENDPOINT_H */
