// SPDX-License-Identifier: GPL-2.0
/*
 * The policies of thesis Table 6.1 and the three events they act on:
 * a message arrival, a receiver that blocks, a receiver that yields.
 */
#include <linux/sched/signal.h>
#include <linux/ktime.h>
#include <linux/poll.h>
#include <linux/wait.h>

#include "boost.h"
#include "counters.h"
#include "endpoint.h"
#include "job.h"
#include "pb.h"
#include "policy.h"
#include "task.h"
#include "trace.h"
#include "tunables.h"

/**
 * cosched_set_policy() - switch the policy of every endpoint
 * @policy: enum cosched_policy, already validated
 *
 * Safe with endpoints alive: boosts already running end at their own
 * time, and each control page shows the new wait mode at once.
 *
 * Return: 0.
 */
int cosched_set_policy(unsigned int policy)
{
	cosched_ep_publish_tunable(COSCHED_T_POLICY, policy);
	cosched_pb_update();
	return 0;
}

/**
 * cosched_tunable_store() - set a tunable at run time
 * @id: the tunable
 * @buf: its new value as text
 *
 * What the control pages mirror is republished, and the examiner follows
 * a new policy or period at once.
 *
 * Return: 0, or a negative errno with the tunable unchanged.
 */
int cosched_tunable_store(enum cosched_tunable_id id, const char *buf)
{
	unsigned int val;
	int ret;

	ret = cosched_tunable_parse(id, buf, &val);
	if (ret)
		return ret;
	switch (id) {
	case COSCHED_T_POLICY:
		return cosched_set_policy(val);
	case COSCHED_T_SPIN_US:
		cosched_ep_publish_tunable(id, val);
		return 0;
	case COSCHED_T_PB_PERIOD_US:
		cosched_tunable_set(id, val);
		cosched_pb_update();
		return 0;
	default:
		cosched_tunable_set(id, val);
		return 0;
	}
}

/**
 * cosched_arrive_notify() - count @count arrivals and wake the receiver
 * @ep: the endpoint, pinned by the caller
 * @count: how many messages arrived
 *
 * The arrival count is published before anything looks at waiters, so a
 * waiter that checked the count before sleeping is always woken (the
 * wait queue's barriers close the spin-then-block race).  Any context:
 * the arrival hooks call this from the waker's.  What the policy does
 * about the arrival is cosched_arrive_steer()'s, which may sleep.
 *
 * Return: whether cosched_arrive_steer() has anything to do.
 */
bool cosched_arrive_notify(struct cosched_ep *ep, u32 count)
{
	unsigned long flags;
	u64 arrivals;
	bool on_cpu;

	spin_lock_irqsave(&ep->arrive_lock, flags);
	arrivals = ep->arrivals + count;
	WRITE_ONCE(ep->last_arrival_ns, ktime_get_ns());
	WRITE_ONCE(ep->ctrl->last_arrival_ns, ep->last_arrival_ns);
	/* In the mirror, a reader that sees the new count sees its time. */
	smp_wmb();
	WRITE_ONCE(ep->ctrl->arrivals, arrivals);
	/*
	 * The mirror before the kernel's count: a waiter that the kernel's
	 * count lets go finds the mirror moved too (pairs with the
	 * smp_rmb() in cosched_wait_result()).
	 */
	smp_wmb();
	WRITE_ONCE(ep->arrivals, arrivals);
	spin_unlock_irqrestore(&ep->arrive_lock, flags);
	cosched_count(ep, COSCHED_CNT_ARRIVALS, count);

	/* Pairs with the barrier in cosched_lower() and the waiter's. */
	smp_mb();
	on_cpu = cosched_task_on_cpu(ep->task);
	trace_cosched_arrival(ep->job->id, ep->rank, count, arrivals, on_cpu);
	/* The smp_mb() above orders the count before this test. */
	if (waitqueue_active(&ep->wq)) {
		WRITE_ONCE(ep->task->woken, true);
		wake_up_interruptible_all(&ep->wq);
	}
	cosched_poll_wake(ep, EPOLLIN | EPOLLRDNORM);
	if (cosched_lowered_for(ep))
		return true;
	if (cosched_active_policy()->on_arrival != COSCHED_ON_ARRIVAL_BOOST)
		return false;
	if (on_cpu) {
		/* Boosted if preempted before it reads (cosched_task_preempted()). */
		WRITE_ONCE(ep->task->arrival_unboosted, true);
		return false;
	}
	return true;
}

/**
 * cosched_arrive_steer() - the policy's action on an arrival
 * @ep: the endpoint, pinned by the caller
 *
 * Ends a yield made while waiting for a message, and under the dcs
 * policies boosts an owner that is off its CPU with arrivals it has not
 * consumed.  Process context.  Called right after cosched_arrive_notify()
 * or, for hook arrivals, some time later on the boost worker: the receiver
 * may have run and read everything meanwhile, and then needs no boost.
 */
void cosched_arrive_steer(struct cosched_ep *ep)
{
	if (cosched_lowered_for(ep))
		cosched_unlower(ep);
	if (cosched_active_policy()->on_arrival != COSCHED_ON_ARRIVAL_BOOST ||
	    cosched_task_on_cpu(ep->task) || !cosched_pending(ep))
		return;
	cosched_boost(ep, COSCHED_BOOST_ARRIVAL);
}

/**
 * cosched_arrive() - announce @count arrivals and apply the policy
 * @ep: the endpoint, pinned by the caller
 * @count: how many messages arrived
 *
 * Process context: the policy's action may boost.
 */
void cosched_arrive(struct cosched_ep *ep, u32 count)
{
	if (cosched_arrive_notify(ep, count))
		cosched_arrive_steer(ep);
}

/* A peer of the job went away that the owner has not yet been told of. */
bool cosched_peer_lost_unseen(struct cosched_ep *ep)
{
	return atomic_read(&ep->peers_lost) != READ_ONCE(ep->ctrl->lost_seen);
}

/* A dcs-fair sleep @through a debt lasts through arrivals: see below. */
static bool cosched_wait_done(struct cosched_ep *ep, u64 seen, bool through)
{
	return (!through && cosched_arrivals(ep) != seen) ||
	       READ_ONCE(ep->dead) || cosched_peer_lost_unseen(ep);
}

/* Why a finished wait ended, as its return value. */
static int cosched_wait_result(struct cosched_ep *ep, u64 seen)
{
	if (READ_ONCE(ep->dead))
		return -EIDRM;
	if (cosched_arrivals(ep) != seen) {
		/* The owner reads the mirror next: see cosched_arrive_notify(). */
		smp_rmb();
		return 0;
	}
	return -ECONNRESET;
}

/*
 * Blocks on @ep's queue until an arrival after @w->seen (not if
 * @through), a signal, the timeout, the endpoint's end or a lost peer.
 */
static int cosched_sleep(struct cosched_ep *ep, const struct cosched_wait *w,
			 bool through)
{
	/* Clamped, so that no u64 becomes a negative ktime. */
	ktime_t timeout = ns_to_ktime(min_t(u64, w->timeout_ns, KTIME_MAX));
	int ret;

	/* A yield lasts for one awaited message; this is a new wait. */
	cosched_unlower(ep);
	if (cosched_wait_done(ep, w->seen, through))
		return cosched_wait_result(ep, w->seen);
	/* Going to sleep: a boost has nothing left to do. */
	if (current == ep->task->task)
		cosched_prio_restore(ep);

	if (atomic_inc_return(&ep->nr_waiters) == 1)
		cosched_set_state(ep, COSCHED_STATE_BLOCKED, true);
	cosched_count(ep, COSCHED_CNT_BLOCKS, 1);
	trace_cosched_block(ep->job->id, ep->rank, current->pid);
	if (w->timeout_ns)
		ret = wait_event_interruptible_hrtimeout(ep->wq,
							 cosched_wait_done(ep, w->seen, through),
							 timeout);
	else
		ret = wait_event_interruptible(ep->wq,
					       cosched_wait_done(ep, w->seen, through));
	if (atomic_dec_and_test(&ep->nr_waiters))
		cosched_set_state(ep, COSCHED_STATE_BLOCKED, false);

	if (!ret)
		ret = cosched_wait_result(ep, w->seen);
	else if (READ_ONCE(ep->dead))
		ret = -EIDRM;
	else if (ret == -ETIME)
		ret = -ETIMEDOUT;
	else if (ret == -ERESTARTSYS)
		ret = -EINTR;
	if (!ret)
		cosched_count(ep, COSCHED_CNT_WAKEUPS, 1);
	trace_cosched_wake(ep->job->id, ep->rank, current->pid, ret);
	return ret;
}

/**
 * cosched_wait() - block until an arrival after @w->seen
 * @ep: the endpoint, pinned by the caller
 * @w: what was seen and for how long to wait
 *
 * A waiter gives up any yield or boost: it needs no CPU until woken.
 *
 * Return: 0 on an arrival, -ETIMEDOUT, -EINTR on a signal, -EIDRM if
 * the endpoint was destroyed, or -ECONNRESET if a peer of the job was
 * lost and the owner's lost_seen does not say so yet.
 */
int cosched_wait(struct cosched_ep *ep, const struct cosched_wait *w)
{
	return cosched_sleep(ep, w, false);
}

/*
 * cosched_repay_wait() - dcs-fair's yield: sleep off a debt
 * @ep: the caller's endpoint
 * @seen: the arrival count the caller waits to see change
 *
 * Ends a boost that still runs.  An owner that owes boosted time then
 * sleeps for as long as its share of the CPU would take to pay the debt
 * (bounded), or until the message if it owes little (repay.c says why);
 * the sleep is credited.  A message that comes during a sleep it lasts
 * through boosts the sleeper as under dcs if cosched_arrive_steer()
 * finds it off its CPU (the arrival's wake-up, after which the sleeper
 * rechecks and sleeps on, often puts it on one) and its debt is under
 * repay_max_debt_us, so the sleeper may wake boosted, or not if the
 * boost ran out first (boost_us counts from the arrival).  Sleeping,
 * not lowering, repays on EEVDF: a task lowered to nice 19 while it owed
 * and raised when paid was measured (tests/guest/fair.c) leaving its
 * CPU's other task 12-62% of the CPU where it has 50% under local, run
 * to run; a sleeper is simply off the queue.  Only the owner repays:
 * another thread's sleep gives nobody any CPU.
 */
static int cosched_repay_wait(struct cosched_ep *ep, u64 seen)
{
	struct cosched_wait w = { .seen = seen };
	bool through = false;
	u64 start;
	int ret;

	if (current != ep->task->task)
		return 0;
	/* It has spun spin_us since its message: a boost has done its work. */
	cosched_prio_restore(ep);
	w.timeout_ns = cosched_repay_due(ep, &through);
	if (!w.timeout_ns)
		return 0;
	/*
	 * Not before: the restore above may leave it waiting behind the
	 * CPU's other tasks, a wait the credit would take for sleep.
	 */
	start = ktime_get_ns();
	ret = cosched_sleep(ep, &w, through);
	cosched_repay_woke(ep, ktime_get_ns() - start);
	return ret == -EINTR ? -EINTR : 0;
}

/**
 * cosched_yield() - the spin-yield action (thesis 6.1.7)
 * @ep: the caller's endpoint, pinned by the caller
 * @y: in: the arrival count waited for; out: what was done
 *
 * Lowers the owner once per awaited message and boosts the local
 * endpoint with the newest pending message, so the CPU goes where work
 * is waiting while the caller keeps spinning.  With %COSCHED_YIELD_END,
 * or once the message has arrived, it ends such a yield instead.  Under
 * dcs-fair it is cosched_repay_wait()'s instead.
 *
 * Return: 0, or -EINTR if a signal ended a sleep under dcs-fair.
 */
int cosched_yield(struct cosched_ep *ep, struct cosched_yield *y)
{
	struct cosched_ep *target;

	y->lowered = 0;
	y->target_id = 0;
	if (cosched_arrivals(ep) != y->seen ||
	    (y->flags & COSCHED_YIELD_END)) {
		/* The message is here: end a yield made for it. */
		cosched_unlower(ep);
		return 0;
	}
	if (cosched_active_policy()->repay)
		return cosched_repay_wait(ep, y->seen);
	if (!cosched_lower(ep, y->seen))
		return 0;
	y->lowered = 1;
	cosched_count(ep, COSCHED_CNT_YIELDS, 1);
	target = cosched_pick_local(ep);
	if (target) {
		if (cosched_boost(target, COSCHED_BOOST_YIELD))
			y->target_id = target->id;
		cosched_ep_put(target);
	}
	trace_cosched_yield(ep->job->id, ep->rank, current->pid, y->target_id);
	return 0;
}
