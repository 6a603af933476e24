/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cosched internal interfaces.
 *
 * Locking, outermost first:
 *   cosched_file.lock       one file's endpoint binding
 *   cosched_mutex           the endpoint and job tables, the policy
 *   cosched_job.eps_lock    one job's members
 *   cosched_task.prio_lock  the task's scheduling attributes (rt_mutex)
 *   cosched_ep.arrive_lock, cosched_task.eps_lock, the users' and the
 *   tasks' table locks (spinlocks)
 *   budget buckets (raw spinlocks: node, CPU, user, job)
 * Endpoints are found under RCU and pinned with a reference.  No hot
 * path (context switch, arrival, yield, periodic examination, exit)
 * takes cosched_mutex.
 */
#ifndef _COSCHED_H
#define _COSCHED_H

#include <linux/hashtable.h>
#include <linux/hrtimer.h>
#include <linux/kobject.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/uidgid.h>
#include <linux/wait.h>

#include <uapi/linux/cosched.h>
#include <uapi/linux/sched/types.h>

#include "budget.h"

/* Counters kept per endpoint, per job and for the module. */
enum cosched_counter {
	COSCHED_CNT_ARRIVALS,
	COSCHED_CNT_DOORBELLS,
	COSCHED_CNT_BOOSTS,
	COSCHED_CNT_BOOSTED_NS,
	COSCHED_CNT_BLOCKS,
	COSCHED_CNT_WAKEUPS,
	COSCHED_CNT_YIELDS,
	COSCHED_CNT_BUDGET_EXHAUSTED,
	COSCHED_NR_COUNTERS,
};

struct cosched_counters {
	atomic64_t val[COSCHED_NR_COUNTERS];
};

extern const char * const cosched_counter_names[COSCHED_NR_COUNTERS];

/* What the arrival side does under a policy. */
enum cosched_arrival_action {
	COSCHED_ON_ARRIVAL_NOTHING,
	COSCHED_ON_ARRIVAL_BOOST,	/* dcs: boost now */
	COSCHED_ON_ARRIVAL_PERIODIC,	/* pb: boost at the next tick */
};

/* How the periodic examiner picks among pending endpoints. */
enum cosched_pb_pick {
	COSCHED_PB_ROUND_ROBIN,
	COSCHED_PB_NEWEST,
	COSCHED_PB_PREFER_BLOCKED,
};

/* Run-time tunables; see Documentation/admin-guide.rst for the ranges. */
enum cosched_tunable_id {
	COSCHED_T_POLICY,
	COSCHED_T_SPIN_US,
	COSCHED_T_PB_PERIOD_US,
	COSCHED_T_BOOST_US,
	COSCHED_T_BUDGET_PCT,
	COSCHED_T_BUDGET_WINDOW_MS,
	COSCHED_T_BOOST_MECH,
	COSCHED_T_RING_KB,
	COSCHED_T_USER_BUDGET_PCT,
	COSCHED_T_CPU_BUDGET_PCT,
	COSCHED_T_GLOBAL_BUDGET_PCT,
	COSCHED_T_USER_MAX_ENDPOINTS,
	COSCHED_NR_TUNABLES,
};

extern unsigned int cosched_tun[COSCHED_NR_TUNABLES];

static inline unsigned int cosched_get(enum cosched_tunable_id id)
{
	return READ_ONCE(cosched_tun[id]);
}

struct cosched_policy_desc {
	enum cosched_arrival_action on_arrival;
	enum cosched_wait_mode wait_mode;
	enum cosched_pb_pick pb_pick;
};

extern const struct cosched_policy_desc cosched_policies[COSCHED_NR_POLICIES];
extern const char * const cosched_policy_names[COSCHED_NR_POLICIES];

static inline const struct cosched_policy_desc *cosched_active_policy(void)
{
	return &cosched_policies[READ_ONCE(cosched_tun[COSCHED_T_POLICY])];
}

/* Boost mechanisms, selectable through boost_mech. */
enum cosched_boost_mech {
	COSCHED_MECH_FIFO,	/* SCHED_FIFO priority 1 */
	COSCHED_MECH_NICE,	/* own policy, nice -20 */
	COSCHED_NR_MECHS,
};

extern const char * const cosched_mech_names[COSCHED_NR_MECHS];

struct cosched_job {
	u64 id;
	kuid_t owner;			/* jobs are per user: (owner, id) */
	struct hlist_node node;		/* cosched_jobs, under cosched_mutex */
	unsigned int nr_endpoints;	/* under cosched_mutex */
	struct mutex eps_lock;
	struct list_head eps;		/* members, under eps_lock */
	struct kobject kobj;		/* jobs/<uid>-<id>; holds the memory */
	struct cosched_counters stats;
	struct cosched_bucket budget;
};

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
	u32 rank;
	struct cosched_job *job;
	struct cosched_task *task;	/* the owner's record, a reference */
	struct cosched_user *user;	/* the creator's euid, a reference */
	struct page *ctrl_page;
	struct cosched_ctrl *ctrl;	/* mirror, shared with the owner */
	struct cosched_ring *ring;	/* receive ring, shared in the job */
	u32 ring_data;			/* bytes in its data area */
	refcount_t ref;
	bool dead;			/* set once, by cosched_ep_destroy() */

	struct hlist_node key_node;	/* (owner, job, rank) table */
	struct list_head task_node;	/* the owner's endpoints */
	struct list_head user_node;	/* the user's endpoints */
	struct list_head job_node;	/* the job's endpoints */
	struct list_head node;		/* all endpoints, under cosched_mutex */
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

	/* Arrival hooks (hooks.c); the list under cosched_hooks_mutex. */
	struct list_head hooks;
	unsigned int nr_hooks;
	bool hooks_closed;
	struct kthread_work hook_work;	/* cosched_arrive_steer() */
};

/* main.c */
extern struct kthread_worker *cosched_worker;
extern struct kthread_worker *cosched_unboost_worker;

/* endpoint.c */
extern struct mutex cosched_mutex;
extern struct list_head cosched_endpoints;
extern struct cosched_counters cosched_global_stats;
extern atomic_t cosched_nr_endpoints;
extern atomic_t cosched_nr_jobs;
struct cosched_ep *cosched_ep_create(u64 job_id, u32 rank);
void cosched_ep_destroy(struct cosched_ep *ep, bool orderly);
struct cosched_ep *cosched_ep_lookup(kuid_t owner, u64 job_id, u32 rank);
void cosched_ep_put(struct cosched_ep *ep);
static inline void cosched_ep_get(struct cosched_ep *ep)
{
	refcount_inc(&ep->ref);
}

void cosched_count(struct cosched_ep *ep, enum cosched_counter c, u64 n);
void cosched_ctrl_publish_policy(struct cosched_ep *ep);
bool cosched_may_steer(struct cosched_ep *ep);
bool cosched_may_steer_noaudit(struct cosched_ep *ep);

/* ring.c */
u32 cosched_ring_size(void);
int cosched_ring_alloc(struct cosched_ep *ep);
void cosched_ring_free(struct cosched_ep *ep);
bool cosched_ring_pending(struct cosched_ep *ep);
int cosched_ring_mmap(struct cosched_ep *self, struct vm_area_struct *vma);

/*
 * Messages the owner has not consumed: announced arrivals beyond what it
 * reports consumed, plus one if its ring holds anything.
 */
static inline u64 cosched_arrivals(struct cosched_ep *ep)
{
	return READ_ONCE(ep->arrivals);
}

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

void cosched_set_state(struct cosched_ep *ep, u32 bit, bool on);
void cosched_poll_wake(struct cosched_ep *ep, __poll_t mask);

/* boost.c */
bool cosched_boost(struct cosched_ep *ep, int reason);
void cosched_prio_restore(struct cosched_ep *ep);
bool cosched_lower(struct cosched_ep *ep, u64 seen);
void cosched_unlower(struct cosched_ep *ep);
bool cosched_lowered_for(struct cosched_ep *ep);
void cosched_ep_prio_release(struct cosched_ep *ep);

/* Why a boost was asked for, for the tracepoint. */
enum cosched_boost_reason {
	COSCHED_BOOST_ARRIVAL,
	COSCHED_BOOST_PERIODIC,
	COSCHED_BOOST_YIELD,
	COSCHED_BOOST_PREEMPTED,	/* lost its CPU with a message unread */
};

/* policy.c */
int cosched_policy_parse(const char *buf);
int cosched_set_policy(unsigned int policy);
void cosched_arrive(struct cosched_ep *ep, u32 count);
bool cosched_arrive_notify(struct cosched_ep *ep, u32 count);
void cosched_arrive_steer(struct cosched_ep *ep);
int cosched_wait(struct cosched_ep *ep, const struct cosched_wait *w);
bool cosched_peer_lost_unseen(struct cosched_ep *ep);
int cosched_yield(struct cosched_ep *ep, struct cosched_yield *y);

/* pb.c */
int cosched_pb_init(void);
void cosched_pb_exit(void);
void cosched_pb_update(void);
struct cosched_ep *cosched_pick_local(struct cosched_ep *self);

/* sysfs.c */
int cosched_sysfs_init(void);
void cosched_sysfs_exit(void);
int cosched_job_sysfs_add(struct cosched_job *job);
void cosched_job_sysfs_del(struct cosched_job *job);
void cosched_job_put(struct cosched_job *job);
extern const struct kobj_type cosched_job_ktype;

/* tunables.c */
int cosched_tunable_parse(enum cosched_tunable_id id, const char *buf,
			  unsigned int *val);
int cosched_tunable_store(enum cosched_tunable_id id, const char *buf);
int cosched_tunable_show(enum cosched_tunable_id id, char *buf);
extern const char * const cosched_tunable_names[COSCHED_NR_TUNABLES];

/* hooks.c */
int cosched_hooks_init(void);
void cosched_hooks_exit(void);
void cosched_hooks_ep_init(struct cosched_ep *ep);
void cosched_hooks_ep_release(struct cosched_ep *ep);
int cosched_hook_register(struct cosched_ep *ep,
			  const struct cosched_hook_reg *reg);
int cosched_hook_unregister(struct cosched_ep *ep,
			    const struct cosched_hook_reg *reg);
/* kfuncs for BPF programs, where module BTF exists. */
struct sock;
int cosched_sock_arrival(struct sock *sk);
int cosched_ring_arrival(u64 ctx);

/* dev.c */
int cosched_dev_init(void);
void cosched_dev_exit(void);

#endif /* _COSCHED_H */
