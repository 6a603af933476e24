/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-task record: one for every task that owns endpoints, holding
 * what belongs to the task rather than to any one endpoint: whether it is
 * on a CPU (kept by a preempt notifier the task registers for itself),
 * and its scheduling attributes while cosched has changed them.
 */
#ifndef _COSCHED_TASK_H
#define _COSCHED_TASK_H

#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/preempt.h>
#include <linux/refcount.h>
#include <linux/rtmutex.h>
#include <linux/sched.h>
#include <linux/task_work.h>

#include <uapi/linux/sched/types.h>

#include "repay.h"

struct cosched_ep;
struct cosched_job;
struct cosched_user;

/* Scheduling attributes of the task, as cosched left them. */
enum cosched_prio_state {
	COSCHED_PRIO_OWN,	/* the task's own attributes */
	COSCHED_PRIO_BOOSTED,
	COSCHED_PRIO_LOWERED,	/* lowered by its own yield */
};

/* What a running boost reserved from the budgets (budget.c). */
struct cosched_charge {
	struct cosched_job *job;	/* a kobject reference */
	struct cosched_user *user;	/* a reference */
	int cpu;
	u64 reserved_ns;
	u64 window;			/* budget_window_id() at reservation */
	u64 runtime_start;		/* the task's sum_exec_runtime then */
};

/* cosched_task.flags */
enum {
	COSCHED_TASK_REGISTERED,	/* the notifier is on the task */
	COSCHED_TASK_RETIRED,		/* no endpoint left; starts nothing */
};

/*
 * Endpoints whose control page and ring header mirror the task's on-CPU
 * state at each of its context switches; a task's later endpoints read
 * as off-CPU, so their senders always ring (the cost is their job's).
 */
#define COSCHED_TASK_MIRRORS	4

struct cosched_task {
	struct task_struct *task;	/* pinned */
	refcount_t ref;
	unsigned long flags;
	bool pinned;			/* holds a module reference */
	struct hlist_node node;		/* cosched_tasks, by task */
	struct rcu_head rcu;

	struct preempt_notifier pn;
	struct callback_head unregister_cb;	/* runs on the task */
	struct irq_work dead_work;		/* after its last switch */

	/* Owned endpoints: changes under eps_lock, the notifier reads RCU. */
	spinlock_t eps_lock;
	struct list_head eps;
	unsigned int nr_eps;

	/* Written by the notifier on the task's own switches. */
	bool on_cpu;
	unsigned int cpu;
	/* dcs: an arrival found it on a CPU and was not boosted for. */
	bool arrival_unboosted;
	/* Woken by an arrival and not yet back on a CPU (pb-sb's pick). */
	bool woken;
	struct hrtimer reboost_timer;
	struct kthread_work reboost_work;

	/*
	 * The attributes: under prio_lock, an rt_mutex so that the worker
	 * ending a boost lends its priority to an owner holding the lock.
	 */
	struct rt_mutex prio_lock;
	enum cosched_prio_state prio_state;
	struct sched_attr own_attr;
	unsigned int boost_mech;	/* of the running boost */
	struct cosched_charge charge;	/* of the running boost */
	struct cosched_ep *boost_ep;	/* whose job pays it; a reference */
	u64 boost_end_ns;		/* CLOCK_MONOTONIC */
	struct cosched_ep *lowered_ep;	/* the yield's endpoint; a reference */
	u64 yield_seen;			/* arrival count it waits to change */
	struct cosched_repay repay;	/* dcs-fair's debt */
	struct hrtimer boost_timer;
	struct kthread_work unboost_work;
};

/*
 * What the boost engine does with a record (boost.c defines them, main.c
 * hands them to cosched_task_init(), so the record never calls up into
 * the engine by name).
 */
struct cosched_task_ops {
	/* A new record, before its notifier is registered. */
	void (*init)(struct cosched_task *t);
	/* Its last endpoint went: end what runs on the task. */
	void (*retire)(struct cosched_task *t);
	/* Its sched_out found it still runnable; runqueue lock held. */
	void (*preempted)(struct cosched_task *t);
};

int cosched_task_init(const struct cosched_task_ops *ops);
void cosched_task_exit(void);
struct cosched_task *cosched_task_get_current(void);
void cosched_task_put(struct cosched_task *t);
void cosched_task_put_unused(struct cosched_task *t);
bool cosched_task_add_ep(struct cosched_task *t, struct cosched_ep *ep);
void cosched_task_del_ep(struct cosched_task *t, struct cosched_ep *ep);
void cosched_task_mirror(struct cosched_task *t);

static inline bool cosched_task_on_cpu(struct cosched_task *t)
{
	return READ_ONCE(t->on_cpu);
}

static inline unsigned int cosched_task_cpu(struct cosched_task *t)
{
	return READ_ONCE(t->cpu);
}

#endif /* _COSCHED_TASK_H */
