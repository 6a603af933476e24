/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cosched internal interfaces.
 *
 * Locking, outermost first:
 *   cosched_file.lock     one file's endpoint binding
 *   cosched_mutex         the endpoint and job tables, the policy
 *   cosched_ep.prio_lock  the owner task's scheduling attributes
 *   cosched_job.budget_lock, cosched_ep.arrive_lock (spinlocks)
 *   cosched_ep.acct_lock  (raw spinlock, also taken under the rq lock)
 * Endpoints and jobs are found under RCU and pinned with a reference.
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

/* Scheduling attributes of the owner task, as cosched left them. */
enum cosched_prio_state {
	COSCHED_PRIO_OWN,	/* the task's own attributes */
	COSCHED_PRIO_BOOSTED,
	COSCHED_PRIO_LOWERED,	/* lowered by its own yield */
};

struct cosched_job {
	u64 id;
	kuid_t owner;
	struct hlist_node node;		/* cosched_jobs, under cosched_mutex */
	unsigned int nr_endpoints;	/* under cosched_mutex */
	struct kobject kobj;		/* jobs/<id>; holds the memory */
	struct cosched_counters stats;

	spinlock_t budget_lock;		/* rolls the budget window */
	u64 window_start_ns;
	atomic64_t window_used_ns;	/* boosted CPU time this window */
};

struct cosched_ep {
	u64 id;
	u32 rank;
	struct cosched_job *job;
	struct task_struct *owner;	/* the creating thread, pinned */
	kuid_t owner_uid;
	struct page *ctrl_page;
	struct cosched_ctrl *ctrl;
	struct cosched_ring *ring;	/* receive ring, shared in the job */
	u32 ring_data;			/* bytes in its data area */
	refcount_t ref;
	bool dead;			/* written under prio_lock */

	struct hlist_node key_node;	/* (job, rank) table */
	struct hlist_node task_node;	/* owner table, read by the probe */
	struct list_head node;		/* all endpoints, by id */
	struct rcu_head rcu;

	spinlock_t arrive_lock;		/* orders arrivals and their time */
	wait_queue_head_t wq;
	/* poll() waiters of the owning file, which outlives the binding. */
	wait_queue_head_t __rcu *poll_wq;
	atomic_t nr_waiters;
	bool woken;			/* woken, not yet back on a CPU */

	/* Owner's scheduling attributes: under prio_lock. */
	struct mutex prio_lock;
	enum cosched_prio_state prio_state;
	struct sched_attr own_attr;
	u64 yield_seen;
	unsigned int boost_mech;	/* mechanism of the running boost */
	struct hrtimer boost_timer;
	struct kthread_work unboost_work;
	/* Arrival count a dcs boost was last decided for (policy.c). */
	u64 boost_seen;
	struct hrtimer reboost_timer;	/* started by the probe */
	struct kthread_work reboost_work;

	/* Boosted-time accounting, shared with the sched_switch probe. */
	raw_spinlock_t acct_lock;
	bool acct_boosted;
	bool acct_on_cpu;
	bool acct_closed;		/* the probe may start nothing */
	u64 acct_since_ns;

	struct cosched_counters stats;

	/* Arrival hooks (hooks.c); the list under cosched_hooks_mutex. */
	struct list_head hooks;
	unsigned int nr_hooks;
	bool hooks_closed;
	struct kthread_work hook_work;	/* cosched_arrive_steer() */
};

/* main.c */
extern struct kthread_worker *cosched_worker;

/* endpoint.c */
extern struct mutex cosched_mutex;
extern struct list_head cosched_endpoints;
extern struct cosched_counters cosched_global_stats;
extern atomic_t cosched_nr_endpoints;
extern atomic_t cosched_nr_jobs;
struct cosched_ep *cosched_ep_create(u64 job_id, u32 rank);
void cosched_ep_destroy(struct cosched_ep *ep, bool orderly);
struct cosched_ep *cosched_ep_lookup(u64 job_id, u32 rank);
void cosched_ep_put(struct cosched_ep *ep);
static inline void cosched_ep_get(struct cosched_ep *ep)
{
	refcount_inc(&ep->ref);
}

void cosched_count(struct cosched_ep *ep, enum cosched_counter c, u64 n);
void cosched_ctrl_publish_policy(struct cosched_ep *ep);
bool cosched_may_steer(struct cosched_ep *ep);

/* ring.c */
u32 cosched_ring_size(void);
int cosched_ring_alloc(struct cosched_ep *ep);
void cosched_ring_free(struct cosched_ep *ep);
bool cosched_ring_pending(struct cosched_ep *ep);
u64 cosched_ring_last_send(struct cosched_ep *ep);
int cosched_ring_mmap(struct cosched_ep *self, struct vm_area_struct *vma);

/*
 * Messages the owner has not consumed: announced arrivals beyond what it
 * reports consumed, plus one if its ring holds anything.
 */
static inline u64 cosched_pending(struct cosched_ep *ep)
{
	s64 p = READ_ONCE(ep->ctrl->arrivals) - READ_ONCE(ep->ctrl->consumed);

	return (p > 0 ? p : 0) + cosched_ring_pending(ep);
}

/* The newest arrival, announced or written into the ring. */
static inline u64 cosched_last_arrival(struct cosched_ep *ep)
{
	return max(READ_ONCE(ep->ctrl->last_arrival_ns),
		   cosched_ring_last_send(ep));
}

void cosched_set_state(struct cosched_ep *ep, u32 bit, bool on);
void cosched_poll_wake(struct cosched_ep *ep, __poll_t mask);

/* oncpu.c */
int cosched_oncpu_init(void);
void cosched_oncpu_exit(void);
void cosched_oncpu_track(struct cosched_ep *ep);
void cosched_oncpu_untrack(struct cosched_ep *ep);

/* boost.c */
int cosched_ep_prio_init(struct cosched_ep *ep);
void cosched_ep_prio_release(struct cosched_ep *ep);
bool cosched_boost(struct cosched_ep *ep, int reason);
void cosched_prio_restore(struct cosched_ep *ep);
bool cosched_lower(struct cosched_ep *ep, u64 seen);
void cosched_unlower(struct cosched_ep *ep);
void cosched_preempted(struct cosched_ep *ep);

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
