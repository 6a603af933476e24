// SPDX-License-Identifier: GPL-2.0
/*
 * The boost engine: changes an endpoint owner's scheduling attributes
 * for a bounded time and always puts its own back.
 *
 * "Boost to the top priority level" (thesis 6.1.3) maps to SCHED_FIFO
 * priority 1 (boost_mech=fifo), which preempts every SCHED_OTHER task on
 * both CFS and EEVDF, or to nice -20 (boost_mech=nice), which keeps the
 * task in the fair class; Documentation/boost-mechanisms.rst has the
 * measurements that chose the default.  Both go through
 * sched_setattr_nocheck(), which may sleep, so every change is made in
 * process context under prio_lock; the expiry timer only queues work for
 * the module's real-time worker (main.c).
 *
 * A boost lasts at most boost_us and at most what is left of the job's
 * budget; the CPU time the owner runs boosted is charged to the job by
 * the sched_switch probe (oncpu.c) and here when the boost ends.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/sched/prio.h>

#include "cosched.h"
#include "trace.h"

const char * const cosched_mech_names[COSCHED_NR_MECHS] = {
	[COSCHED_MECH_FIFO] = "fifo",
	[COSCHED_MECH_NICE] = "nice",
};

#define COSCHED_BOOST_RT_PRIO	1

/* A task already real-time needs no boost, and must not be lowered. */
static bool cosched_task_is_rt(struct task_struct *p)
{
	return p->policy == SCHED_FIFO || p->policy == SCHED_RR ||
	       p->policy == SCHED_DEADLINE;
}

static void cosched_save_own(struct cosched_ep *ep)
{
	struct task_struct *p = ep->owner;
	struct sched_attr *a = &ep->own_attr;

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sched_policy = p->policy;
	a->sched_nice = task_nice(p);
	if (p->sched_reset_on_fork)
		a->sched_flags |= SCHED_FLAG_RESET_ON_FORK;
}

/* The attributes of a fair-class task at @nice, keeping BATCH and IDLE. */
static void cosched_fair_attr(struct cosched_ep *ep, int nice,
			      struct sched_attr *a)
{
	*a = ep->own_attr;
	a->sched_nice = nice;
}

/* True unless someone else changed the owner's attributes since we did. */
static bool cosched_still_ours(struct cosched_ep *ep, unsigned int mech)
{
	struct task_struct *p = ep->owner;

	if (ep->prio_state == COSCHED_PRIO_LOWERED)
		return task_nice(p) == MAX_NICE;
	if (mech == COSCHED_MECH_FIFO)
		return p->policy == SCHED_FIFO &&
		       p->rt_priority == COSCHED_BOOST_RT_PRIO;
	return task_nice(p) == MIN_NICE;
}

static void cosched_acct_stop(struct cosched_ep *ep)
{
	unsigned long flags;
	u64 delta;

	raw_spin_lock_irqsave(&ep->acct_lock, flags);
	if (ep->acct_boosted && ep->acct_on_cpu) {
		delta = ktime_get_ns() - ep->acct_since_ns;
		atomic64_add(delta, &ep->job->window_used_ns);
		cosched_count(ep, COSCHED_CNT_BOOSTED_NS, delta);
	}
	ep->acct_boosted = false;
	raw_spin_unlock_irqrestore(&ep->acct_lock, flags);
}

static void cosched_acct_start(struct cosched_ep *ep)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&ep->acct_lock, flags);
	ep->acct_boosted = true;
	ep->acct_since_ns = ktime_get_ns();
	raw_spin_unlock_irqrestore(&ep->acct_lock, flags);
}

/* Back to the owner's own attributes; under prio_lock. */
static void cosched_set_own(struct cosched_ep *ep)
{
	struct task_struct *p = ep->owner;
	bool ours;

	lockdep_assert_held(&ep->prio_lock);
	if (ep->prio_state == COSCHED_PRIO_OWN)
		return;
	ours = cosched_still_ours(ep, ep->boost_mech);
	if (ep->prio_state == COSCHED_PRIO_BOOSTED) {
		hrtimer_try_to_cancel(&ep->boost_timer);
		cosched_acct_stop(ep);
		cosched_set_state(ep, COSCHED_STATE_BOOSTED, false);
		trace_cosched_unboost(ep->job->id, ep->rank, p->pid);
	} else {
		cosched_set_state(ep, COSCHED_STATE_YIELDED, false);
	}
	WRITE_ONCE(ep->prio_state, COSCHED_PRIO_OWN);
	if (ours && !(p->flags & PF_EXITING))
		sched_setattr_nocheck(p, &ep->own_attr);
}

/*
 * Room left in the job's budget for the current window, in ns: each of
 * the job's endpoints may run boosted budget_pct percent of the window.
 */
static u64 cosched_budget_left(struct cosched_job *job)
{
	u64 window = (u64)cosched_get(COSCHED_T_BUDGET_WINDOW_MS) *
		     NSEC_PER_MSEC;
	u64 now = ktime_get_ns();
	u64 allowed, used;

	spin_lock(&job->budget_lock);
	if (now - job->window_start_ns >= window) {
		job->window_start_ns = now;
		atomic64_set(&job->window_used_ns, 0);
	}
	allowed = div_u64(window * cosched_get(COSCHED_T_BUDGET_PCT), 100) *
		  max(READ_ONCE(job->nr_endpoints), 1U);
	used = atomic64_read(&job->window_used_ns);
	spin_unlock(&job->budget_lock);
	return used < allowed ? allowed - used : 0;
}

/**
 * cosched_boost() - boost an endpoint's owner for a bounded time
 * @ep: the endpoint
 * @reason: enum cosched_boost_reason, for the tracepoint
 *
 * Process context only.  Does nothing if the owner is boosted already,
 * is real-time, is exiting, or its job has spent its budget.
 *
 * Return: true if the owner is boosted now by this call.
 */
bool cosched_boost(struct cosched_ep *ep, int reason)
{
	struct task_struct *p = ep->owner;
	unsigned int mech = cosched_get(COSCHED_T_BOOST_MECH);
	struct sched_attr attr = { .size = sizeof(attr) };
	bool boosted = false;
	u64 left, len;

	might_sleep();
	mutex_lock(&ep->prio_lock);
	if (ep->dead || ep->prio_state == COSCHED_PRIO_BOOSTED ||
	    (p->flags & PF_EXITING) || cosched_task_is_rt(p))
		goto out;
	left = cosched_budget_left(ep->job);
	if (!left) {
		cosched_count(ep, COSCHED_CNT_BUDGET_EXHAUSTED, 1);
		goto out;
	}
	if (ep->prio_state == COSCHED_PRIO_OWN)
		cosched_save_own(ep);
	if (mech == COSCHED_MECH_FIFO) {
		attr.sched_policy = SCHED_FIFO;
		attr.sched_priority = COSCHED_BOOST_RT_PRIO;
		/* A child forked while boosted must not inherit it. */
		attr.sched_flags = SCHED_FLAG_RESET_ON_FORK;
	} else {
		cosched_fair_attr(ep, MIN_NICE, &attr);
	}
	if (sched_setattr_nocheck(p, &attr))
		goto out;
	if (ep->prio_state == COSCHED_PRIO_LOWERED)
		cosched_set_state(ep, COSCHED_STATE_YIELDED, false);
	WRITE_ONCE(ep->prio_state, COSCHED_PRIO_BOOSTED);
	ep->boost_mech = mech;
	cosched_acct_start(ep);
	cosched_set_state(ep, COSCHED_STATE_BOOSTED, true);
	len = min_t(u64, (u64)cosched_get(COSCHED_T_BOOST_US) * NSEC_PER_USEC,
		    left);
	hrtimer_start(&ep->boost_timer, ns_to_ktime(len), HRTIMER_MODE_REL);
	cosched_count(ep, COSCHED_CNT_BOOSTS, 1);
	trace_cosched_boost(ep->job->id, ep->rank, p->pid, reason, len);
	boosted = true;
out:
	mutex_unlock(&ep->prio_lock);
	return boosted;
}

/**
 * cosched_prio_restore() - end a boost or a yield now
 * @ep: the endpoint
 */
void cosched_prio_restore(struct cosched_ep *ep)
{
	mutex_lock(&ep->prio_lock);
	cosched_set_own(ep);
	mutex_unlock(&ep->prio_lock);
}

/**
 * cosched_lower() - the spin-yield action on the owner itself
 * @ep: the endpoint
 * @seen: the arrival count the owner waits to see change
 *
 * Drops the owner to nice 19 in its own fair policy (below every
 * parallel process at nice 0, thesis 6.1.7), ending a boost if one runs.
 * A second call for the same @seen changes nothing.
 *
 * Return: true if this call lowered the owner.
 */
bool cosched_lower(struct cosched_ep *ep, u64 seen)
{
	struct task_struct *p = ep->owner;
	struct sched_attr attr;
	bool lowered = false;

	mutex_lock(&ep->prio_lock);
	if (ep->dead || (p->flags & PF_EXITING))
		goto out;
	if (ep->prio_state == COSCHED_PRIO_LOWERED) {
		lowered = ep->yield_seen != seen;
		ep->yield_seen = seen;
		goto out;
	}
	cosched_set_own(ep);
	if (cosched_task_is_rt(p))
		goto out;
	cosched_save_own(ep);
	cosched_fair_attr(ep, MAX_NICE, &attr);
	if (sched_setattr_nocheck(p, &attr))
		goto out;
	WRITE_ONCE(ep->prio_state, COSCHED_PRIO_LOWERED);
	ep->yield_seen = seen;
	cosched_set_state(ep, COSCHED_STATE_YIELDED, true);
	lowered = true;
	/*
	 * An arrival that came before prio_state said LOWERED did not undo
	 * the yield (pairs with the barrier in cosched_arrive()): undo it.
	 */
	smp_mb();
	if (READ_ONCE(ep->ctrl->arrivals) != seen) {
		cosched_set_own(ep);
		lowered = false;
	}
out:
	mutex_unlock(&ep->prio_lock);
	return lowered;
}

/**
 * cosched_unlower() - end a yield, leaving a boost alone
 * @ep: the endpoint
 */
void cosched_unlower(struct cosched_ep *ep)
{
	mutex_lock(&ep->prio_lock);
	if (ep->prio_state == COSCHED_PRIO_LOWERED)
		cosched_set_own(ep);
	mutex_unlock(&ep->prio_lock);
}

static void cosched_unboost_work(struct kthread_work *work)
{
	struct cosched_ep *ep = container_of(work, struct cosched_ep,
					     unboost_work);

	mutex_lock(&ep->prio_lock);
	if (ep->prio_state == COSCHED_PRIO_BOOSTED)
		cosched_set_own(ep);
	mutex_unlock(&ep->prio_lock);
}

static enum hrtimer_restart cosched_boost_expired(struct hrtimer *timer)
{
	struct cosched_ep *ep = container_of(timer, struct cosched_ep,
					     boost_timer);

	kthread_queue_work(cosched_worker, &ep->unboost_work);
	return HRTIMER_NORESTART;
}

/* cosched_preempted()'s boost, in process context. */
static void cosched_reboost_work(struct kthread_work *work)
{
	struct cosched_ep *ep = container_of(work, struct cosched_ep,
					     reboost_work);

	/*
	 * Even if it is back on a CPU by now: boosted, it keeps the CPU
	 * until it has read what it missed.
	 */
	if (cosched_pending(ep))
		cosched_boost(ep, COSCHED_BOOST_PREEMPTED);
}

static enum hrtimer_restart cosched_reboost_fire(struct hrtimer *timer)
{
	struct cosched_ep *ep = container_of(timer, struct cosched_ep,
					     reboost_timer);

	kthread_queue_work(cosched_worker, &ep->reboost_work);
	return HRTIMER_NORESTART;
}

int cosched_ep_prio_init(struct cosched_ep *ep)
{
	mutex_init(&ep->prio_lock);
	ep->prio_state = COSCHED_PRIO_OWN;
	hrtimer_init(&ep->boost_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	ep->boost_timer.function = cosched_boost_expired;
	kthread_init_work(&ep->unboost_work, cosched_unboost_work);
	hrtimer_init(&ep->reboost_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	ep->reboost_timer.function = cosched_reboost_fire;
	kthread_init_work(&ep->reboost_work, cosched_reboost_work);
	return 0;
}

/* Endpoint teardown: nothing may start after this, and all is undone. */
void cosched_ep_prio_release(struct cosched_ep *ep)
{
	unsigned long flags;

	mutex_lock(&ep->prio_lock);
	ep->dead = true;
	mutex_unlock(&ep->prio_lock);
	/* A probe that still sees the endpoint starts no reboost after. */
	raw_spin_lock_irqsave(&ep->acct_lock, flags);
	ep->acct_closed = true;
	raw_spin_unlock_irqrestore(&ep->acct_lock, flags);
	hrtimer_cancel(&ep->reboost_timer);
	kthread_cancel_work_sync(&ep->reboost_work);
	hrtimer_cancel(&ep->boost_timer);
	kthread_cancel_work_sync(&ep->unboost_work);
	cosched_prio_restore(ep);
	mutex_destroy(&ep->prio_lock);
}
