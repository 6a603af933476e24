// SPDX-License-Identifier: GPL-2.0
/*
 * The boost engine: changes a task's scheduling attributes for a bounded
 * time and always puts its own back.
 *
 * "Boost to the top priority level" (thesis 6.1.3) maps to SCHED_FIFO
 * priority 1 (boost_mech=fifo), which preempts every SCHED_OTHER task on
 * both CFS and EEVDF, or to nice -20 (boost_mech=nice), which keeps the
 * task in the fair class; Documentation/results/boost-mechanisms/ has the
 * measurements that chose the default.  Both go through
 * sched_setattr_nocheck(), which may sleep, so every change is made in
 * process context under the task record's prio_lock; the expiry timer
 * only queues work for the module's unboost worker (workers.c).
 *
 * The state is the task's, not an endpoint's: a task with several
 * endpoints has one saved set of attributes and is boosted or lowered
 * once.  A boost is limited before it exists: its budget is reserved and
 * its expiry armed before the attribute change, so a boosted task that
 * preempts its booster at once is already bounded.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/sched/prio.h>

#include "boost.h"
#include "budget.h"
#include "counters.h"
#include "endpoint.h"
#include "job.h"
#include "repay.h"
#include "task.h"
#include "trace.h"
#include "tunables.h"
#include "user.h"
#include "workers.h"

#define COSCHED_BOOST_RT_PRIO	1

/* A task already real-time needs no boost, and must not be lowered. */
static bool cosched_task_is_rt(struct task_struct *p)
{
	return p->policy == SCHED_FIFO || p->policy == SCHED_RR ||
	       p->policy == SCHED_DEADLINE;
}

/* The task's own fair-class attributes, as sched_getattr() reports them. */
static void cosched_save_own(struct cosched_task *t)
{
	struct task_struct *p = t->task;
	struct sched_attr *a = &t->own_attr;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sched_policy = p->policy;
	a->sched_nice = task_nice(p);
	if (p->sched_reset_on_fork)
		a->sched_flags |= SCHED_FLAG_RESET_ON_FORK;
#ifdef COSCHED_HAVE_CUSTOM_SLICE
	/* EEVDF's slice (6.12), when the task asked for one of its own. */
	if (p->se.custom_slice)
		a->sched_runtime = p->se.slice;
#endif
}

static u64 cosched_task_runtime(struct task_struct *p)
{
	return READ_ONCE(p->se.sum_exec_runtime);
}

/*
 * Whether the task still has the attributes cosched gave it; if it (or
 * anyone) changed them since, its change wins and nothing is restored.
 */
static bool cosched_still_ours(struct cosched_task *t)
{
	struct task_struct *p = t->task;

	if (t->prio_state == COSCHED_PRIO_LOWERED)
		return p->policy == t->own_attr.sched_policy &&
		       task_nice(p) == MAX_NICE;
	if (t->boost_mech == COSCHED_MECH_FIFO)
		return p->policy == SCHED_FIFO &&
		       p->rt_priority == COSCHED_BOOST_RT_PRIO;
	return p->policy == t->own_attr.sched_policy &&
	       task_nice(p) == MIN_NICE;
}

/*
 * Account the task's time since the last change to the attributes it
 * had (repay.c); after a sched_setattr(), which brings its runtime up
 * to date (elsewhere a running task's lags by up to a tick, which the
 * next interval counts; a repaying sleep's start adds it back:
 * cosched_repay_sleep_ns()).  Only a boost under dcs-fair is charged.
 */
static void cosched_repay_account(struct cosched_task *t)
{
	enum cosched_repay_interval how = COSCHED_REPAY_SKIP;

	if (t->prio_state == COSCHED_PRIO_OWN)
		how = COSCHED_REPAY_OWN;
	else if (t->prio_state == COSCHED_PRIO_BOOSTED &&
		 cosched_active_policy()->repay)
		how = COSCHED_REPAY_BOOSTED;
	cosched_repay_update(&t->repay, t->task, how);
}

/*
 * Debts of the user's tasks that closed their endpoints come back to
 * the next of its tasks that is boosted or waits: closing and reopening
 * an endpoint (a fresh task record) wipes no debt.
 */
static void cosched_repay_pick_up(struct cosched_task *t,
				  struct cosched_user *u)
{
	s64 carried = atomic64_xchg(&u->repay_carry_ns, 0);

	if (carried)
		cosched_repay_carry(&t->repay, carried);
}

/* Put @t's own attributes back, checking the result. */
static void cosched_apply_own(struct cosched_task *t)
{
	struct task_struct *p = t->task;
	struct sched_attr own = t->own_attr;
	int ret;

	/*
	 * A FIFO boost leaves the task's nice alone, so a setpriority()
	 * made during the boost shows there: keep it.
	 */
	if (t->prio_state == COSCHED_PRIO_BOOSTED &&
	    t->boost_mech == COSCHED_MECH_FIFO)
		own.sched_nice = task_nice(p);
	ret = sched_setattr_nocheck(p, &own);
	if (!ret)
		return;
	pr_warn_ratelimited("cosched: restoring pid %d failed: %d\n",
			    task_pid_nr(p), ret);
	/* Never leave a task real-time that should not be. */
	if (t->prio_state == COSCHED_PRIO_BOOSTED &&
	    t->boost_mech == COSCHED_MECH_FIFO)
		sched_set_normal(p, own.sched_nice);
}

/* End the running boost's reservation and tell its endpoint. */
static void cosched_boost_settle(struct cosched_task *t)
{
	struct cosched_ep *ep = t->boost_ep;
	u64 ran = cosched_task_runtime(t->task) - t->charge.runtime_start;

	ran = min(ran, t->charge.reserved_ns);
	cosched_count(ep, COSCHED_CNT_BOOSTED_NS, ran);
	cosched_budget_settle(&t->charge, ran);
	cosched_set_state(ep, COSCHED_STATE_BOOSTED, false);
	trace_cosched_unboost(ep->job->id, ep->rank, task_pid_nr(t->task));
	t->boost_ep = NULL;
	cosched_ep_put(ep);
}

/* Back to the task's own attributes; under prio_lock. */
static void cosched_set_own(struct cosched_task *t)
{
	struct task_struct *p = t->task;
	bool ours;

	lockdep_assert_held(&t->prio_lock);
	if (t->prio_state == COSCHED_PRIO_OWN)
		return;
	ours = cosched_still_ours(t);
	if (ours && !(p->flags & PF_EXITING))
		cosched_apply_own(t);
	cosched_repay_account(t);
	if (t->prio_state == COSCHED_PRIO_BOOSTED) {
		/* A timer already firing queues work that finds no boost. */
		hrtimer_try_to_cancel(&t->boost_timer);
		cosched_boost_settle(t);
	} else {
		cosched_set_state(t->lowered_ep, COSCHED_STATE_YIELDED, false);
		cosched_ep_put(t->lowered_ep);
		t->lowered_ep = NULL;
	}
	WRITE_ONCE(t->prio_state, COSCHED_PRIO_OWN);
}

static void cosched_boost_attr(struct cosched_task *t, unsigned int mech,
			       struct sched_attr *attr)
{
	if (mech == COSCHED_MECH_FIFO) {
		memset(attr, 0, sizeof(*attr));
		attr->size = sizeof(*attr);
		attr->sched_policy = SCHED_FIFO;
		attr->sched_priority = COSCHED_BOOST_RT_PRIO;
		/* A child forked while boosted must not inherit it. */
		attr->sched_flags = SCHED_FLAG_RESET_ON_FORK;
	} else {
		*attr = t->own_attr;
		attr->sched_nice = MIN_NICE;
	}
}

/**
 * cosched_boost_for() - boost an endpoint's owner for at most @want_ns
 * @ep: the endpoint whose job the boost is charged to
 * @reason: enum cosched_boost_reason, for the tracepoint
 * @want_ns: the boost's length, if the budgets have room for it
 *
 * Process context only.  Does nothing if the owner is boosted already,
 * is real-time, is exiting, a budget has no room, or (dcs-fair) the
 * owner owes more boosted time than repay_max_debt_us.
 *
 * Return: true if the owner is boosted now by this call.
 */
bool cosched_boost_for(struct cosched_ep *ep, enum cosched_boost_reason reason,
		       u64 want_ns)
{
	struct cosched_task *t = ep->task;
	struct task_struct *p = t->task;
	unsigned int mech = cosched_get(COSCHED_T_BOOST_MECH);
	struct sched_attr attr;
	u64 len;

	might_sleep();
	if (!want_ns)
		return false;
	rt_mutex_lock(&t->prio_lock);
	if (READ_ONCE(ep->dead) || test_bit(COSCHED_TASK_RETIRED, &t->flags) ||
	    t->prio_state == COSCHED_PRIO_BOOSTED ||
	    (p->flags & PF_EXITING) || cosched_task_is_rt(p))
		goto out;
	if (cosched_active_policy()->repay) {
		cosched_repay_pick_up(t, ep->user);
		if (cosched_repay_refuses(&t->repay)) {
			cosched_count(ep, COSCHED_CNT_REPAY_REFUSED, 1);
			goto out;
		}
	}
	len = cosched_budget_reserve(&t->charge, ep->job, ep->user,
				     cosched_task_cpu(t), want_ns);
	if (!len) {
		cosched_count(ep, COSCHED_CNT_BUDGET_EXHAUSTED, 1);
		goto out;
	}
	/*
	 * A boost ends a yield first: SCHED_FIFO keeps the nice a task had,
	 * and a boosted task must not read nice 19 (nor get it back).
	 */
	if (t->prio_state == COSCHED_PRIO_LOWERED)
		cosched_set_own(t);
	cosched_save_own(t);
	cosched_boost_attr(t, mech, &attr);

	/* Bounded before it exists: the expiry runs whatever comes next. */
	t->charge.runtime_start = cosched_task_runtime(p);
	t->boost_end_ns = ktime_get_ns() + len;
	hrtimer_start(&t->boost_timer, ns_to_ktime(len), HRTIMER_MODE_REL);
	if (sched_setattr_nocheck(p, &attr)) {
		hrtimer_cancel(&t->boost_timer);
		cosched_budget_settle(&t->charge, 0);
		goto out;
	}
	/* Its time until now, brought up to date by the change, was its own. */
	cosched_repay_account(t);
	WRITE_ONCE(t->prio_state, COSCHED_PRIO_BOOSTED);
	t->boost_mech = mech;
	cosched_ep_get(ep);
	t->boost_ep = ep;
	WRITE_ONCE(t->arrival_unboosted, false);
	cosched_set_state(ep, COSCHED_STATE_BOOSTED, true);
	cosched_count(ep, COSCHED_CNT_BOOSTS, 1);
	trace_cosched_boost(ep->job->id, ep->rank, task_pid_nr(p), reason, len);
	rt_mutex_unlock(&t->prio_lock);
	return true;
out:
	rt_mutex_unlock(&t->prio_lock);
	return false;
}

/**
 * cosched_boost() - boost an endpoint's owner for boost_us
 * @ep: the endpoint whose job the boost is charged to
 * @reason: enum cosched_boost_reason, for the tracepoint
 *
 * See cosched_boost_for().
 *
 * Return: true if the owner is boosted now by this call.
 */
bool cosched_boost(struct cosched_ep *ep, enum cosched_boost_reason reason)
{
	return cosched_boost_for(ep, reason, (u64)cosched_get(COSCHED_T_BOOST_US) *
				 NSEC_PER_USEC);
}

/**
 * cosched_prio_restore() - end a boost or a yield of @ep's owner now
 * @ep: the endpoint
 */
void cosched_prio_restore(struct cosched_ep *ep)
{
	struct cosched_task *t = ep->task;

	rt_mutex_lock(&t->prio_lock);
	cosched_set_own(t);
	rt_mutex_unlock(&t->prio_lock);
}

/**
 * cosched_lower() - the spin-yield action on the owner itself
 * @ep: the endpoint the owner waits on
 * @seen: the arrival count the owner waits to see change
 *
 * Drops the owner to nice 19 in its own fair policy (below every
 * parallel process at nice 0, thesis 6.1.7), ending a boost if one runs.
 * A second call for the same endpoint and @seen changes nothing.
 *
 * Return: true if this call lowered the owner.
 */
bool cosched_lower(struct cosched_ep *ep, u64 seen)
{
	struct cosched_task *t = ep->task;
	struct task_struct *p = t->task;
	struct sched_attr attr;
	bool lowered = false;

	rt_mutex_lock(&t->prio_lock);
	if (READ_ONCE(ep->dead) || test_bit(COSCHED_TASK_RETIRED, &t->flags) ||
	    (p->flags & PF_EXITING))
		goto out;
	if (t->prio_state == COSCHED_PRIO_LOWERED && t->lowered_ep == ep) {
		lowered = t->yield_seen != seen;
		t->yield_seen = seen;
		goto out;
	}
	cosched_set_own(t);
	if (cosched_task_is_rt(p))
		goto out;
	cosched_save_own(t);
	attr = t->own_attr;
	attr.sched_nice = MAX_NICE;
	if (sched_setattr_nocheck(p, &attr))
		goto out;
	WRITE_ONCE(t->prio_state, COSCHED_PRIO_LOWERED);
	cosched_ep_get(ep);
	t->lowered_ep = ep;
	t->yield_seen = seen;
	cosched_set_state(ep, COSCHED_STATE_YIELDED, true);
	lowered = true;
	/*
	 * An arrival that came before prio_state said LOWERED did not undo
	 * the yield (pairs with the barrier in cosched_arrive_notify()).
	 */
	smp_mb();
	if (cosched_arrivals(ep) != seen) {
		cosched_set_own(t);
		lowered = false;
	}
out:
	rt_mutex_unlock(&t->prio_lock);
	return lowered;
}

/**
 * cosched_unlower() - end a yield made for @ep, leaving a boost alone
 * @ep: the endpoint
 */
void cosched_unlower(struct cosched_ep *ep)
{
	struct cosched_task *t = ep->task;

	rt_mutex_lock(&t->prio_lock);
	if (t->prio_state == COSCHED_PRIO_LOWERED && t->lowered_ep == ep)
		cosched_set_own(t);
	rt_mutex_unlock(&t->prio_lock);
}

/**
 * cosched_repay_due() - how long @ep's owner should sleep to repay
 * @ep: the endpoint the owner waits on
 * @through: out, if it owes: whether to sleep through the message
 *
 * Brings the owner's debt up to date and marks the sleep's start
 * (repay.c).
 *
 * Return: the time it would take to pay its debt at its measured share,
 * or 0 if it owes nothing.
 */
u64 cosched_repay_due(struct cosched_ep *ep, bool *through)
{
	struct cosched_task *t = ep->task;
	u64 due = 0;

	rt_mutex_lock(&t->prio_lock);
	cosched_repay_account(t);
	cosched_repay_pick_up(t, ep->user);
	if (cosched_repay_owes(&t->repay))
		due = cosched_repay_sleep_ns(&t->repay, t->task, through);
	rt_mutex_unlock(&t->prio_lock);
	return due;
}

/**
 * cosched_repay_woke() - credit @ep's owner for a sleep that repaid
 * @ep: the endpoint the owner waited on
 * @slept_ns: how long it slept instead of waiting on its CPU
 */
void cosched_repay_woke(struct cosched_ep *ep, u64 slept_ns)
{
	struct cosched_task *t = ep->task;
	struct cosched_repay_paid paid;
	s64 debt;

	rt_mutex_lock(&t->prio_lock);
	cosched_repay_slept(&t->repay, t->task, slept_ns, &paid);
	/*
	 * Then the time since the last update: an arrival may have boosted
	 * the sleeper, and what it ran boosted is charged, not sampled.
	 */
	cosched_repay_account(t);
	debt = cosched_repay_debt(&t->repay);
	rt_mutex_unlock(&t->prio_lock);
	trace_cosched_repay(ep->job->id, ep->rank, task_pid_nr(t->task),
			    slept_ns, paid.away_ns, paid.share_permille,
			    paid.credit_ns, debt);
}

/* True while @ep's owner is lowered by a yield made for @ep. */
bool cosched_lowered_for(struct cosched_ep *ep)
{
	struct cosched_task *t = ep->task;

	return READ_ONCE(t->prio_state) == COSCHED_PRIO_LOWERED &&
	       READ_ONCE(t->lowered_ep) == ep;
}

static void cosched_unboost_work(struct kthread_work *work)
{
	struct cosched_task *t = container_of(work, struct cosched_task,
					      unboost_work);

	rt_mutex_lock(&t->prio_lock);
	/* Work queued by an earlier boost's timer leaves a later one be. */
	if (t->prio_state == COSCHED_PRIO_BOOSTED &&
	    ktime_get_ns() >= t->boost_end_ns)
		cosched_set_own(t);
	rt_mutex_unlock(&t->prio_lock);
}

static enum hrtimer_restart cosched_boost_expired(struct hrtimer *timer)
{
	struct cosched_task *t = container_of(timer, struct cosched_task,
					      boost_timer);

	cosched_queue_unboost_work(&t->unboost_work);
	return HRTIMER_NORESTART;
}

/* cosched_task_preempted()'s boost, in process context. */
static void cosched_reboost_work(struct kthread_work *work)
{
	struct cosched_task *t = container_of(work, struct cosched_task,
					      reboost_work);
	struct cosched_ep *ep, *pick = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(ep, &t->eps, task_node)
		if (cosched_pending(ep) && refcount_inc_not_zero(&ep->ref)) {
			pick = ep;
			break;
		}
	rcu_read_unlock();
	/*
	 * Even if it is back on a CPU by now: boosted, it keeps the CPU
	 * until it has read what it missed.
	 */
	if (pick) {
		if (cosched_active_policy()->on_arrival ==
		    COSCHED_ON_ARRIVAL_BOOST)
			cosched_boost(pick, COSCHED_BOOST_PREEMPTED);
		cosched_ep_put(pick);
	}
	cosched_task_put(t);
}

static enum hrtimer_restart cosched_reboost_fire(struct hrtimer *timer)
{
	struct cosched_task *t = container_of(timer, struct cosched_task,
					      reboost_timer);

	/* The timer's reference goes to the work, or back if it is queued. */
	if (!cosched_queue_boost_work(&t->reboost_work))
		cosched_task_put(t);
	return HRTIMER_NORESTART;
}

/*
 * cosched_task_preempted() - the owner lost its CPU while still runnable
 * @t: its record; called by its own sched_out notifier, with the
 *	runqueue lock held
 *
 * Under a dcs policy an arrival gets no boost while its receiver is on
 * a CPU, since the receiver is about to see it.  But the receiver may
 * be preempted first: a TCP message that libcosched receives through
 * io_uring, for one, becomes visible only after the receiver has run
 * the kernel's task work, and a tick can take the CPU away before.  A
 * receiver preempted after such an arrival is boosted as if the message
 * had arrived now, once per such arrival, if it still has a message
 * pending when the worker looks.  Nothing here may wake a task, so an
 * hrtimer hands the boost to the worker; the timer holds a reference.
 */
static void cosched_task_preempted(struct cosched_task *t)
{
	WRITE_ONCE(t->arrival_unboosted, false);
	if (test_bit(COSCHED_TASK_RETIRED, &t->flags) ||
	    READ_ONCE(t->prio_state) != COSCHED_PRIO_OWN ||
	    hrtimer_is_queued(&t->reboost_timer))
		return;
	refcount_inc(&t->ref);
	hrtimer_start(&t->reboost_timer, 0, HRTIMER_MODE_REL);
}

static void cosched_task_prio_init(struct cosched_task *t)
{
	rt_mutex_init(&t->prio_lock);
	t->prio_state = COSCHED_PRIO_OWN;
	cosched_repay_init(&t->repay, t->task);
	hrtimer_init(&t->boost_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	t->boost_timer.function = cosched_boost_expired;
	kthread_init_work(&t->unboost_work, cosched_unboost_work);
	hrtimer_init(&t->reboost_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	t->reboost_timer.function = cosched_reboost_fire;
	kthread_init_work(&t->reboost_work, cosched_reboost_work);
}

/*
 * The task's last endpoint is gone (RETIRED is set, so nothing new
 * starts): stop the timers and works and put its own attributes back.
 */
static void cosched_task_prio_release(struct cosched_task *t)
{
	/* A notifier that saw the record before it retired is done. */
	synchronize_rcu();
	WRITE_ONCE(t->arrival_unboosted, false);
	if (hrtimer_cancel(&t->reboost_timer))
		cosched_task_put(t);
	if (kthread_cancel_work_sync(&t->reboost_work))
		cosched_task_put(t);
	hrtimer_cancel(&t->boost_timer);
	kthread_cancel_work_sync(&t->unboost_work);
	rt_mutex_lock(&t->prio_lock);
	cosched_set_own(t);
	rt_mutex_unlock(&t->prio_lock);
}

const struct cosched_task_ops cosched_boost_task_ops = {
	.init		= cosched_task_prio_init,
	.retire		= cosched_task_prio_release,
	.preempted	= cosched_task_preempted,
};

/**
 * cosched_ep_prio_release() - end what @ep started on its owner
 * @ep: an endpoint being destroyed (dead is set)
 *
 * A boost charged to @ep's job, or a yield made for @ep, ends now.  The
 * owner's debt goes to @ep's user, for its next task to pick up.
 */
void cosched_ep_prio_release(struct cosched_ep *ep)
{
	struct cosched_task *t = ep->task;
	s64 debt;

	rt_mutex_lock(&t->prio_lock);
	if (t->boost_ep == ep || t->lowered_ep == ep)
		cosched_set_own(t);
	debt = cosched_repay_take(&t->repay);
	if (debt)
		atomic64_add(debt, &ep->user->repay_carry_ns);
	rt_mutex_unlock(&t->prio_lock);
}
