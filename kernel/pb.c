// SPDX-License-Identifier: GPL-2.0
/*
 * The periodic examiner of pb, pbt, pb-sb and pb-sy (thesis 6.1.5-6.1.6).
 *
 * Every pb_period_us it looks at each node's (CPU's) endpoints, reading
 * pending = arrivals - consumed, and boosts one per CPU.  It adds
 * nothing to the message path: arrivals only bump a counter.  An hrtimer
 * keeps the period exact; the examination runs on the module's worker
 * because boosting may sleep.  It walks the endpoints under RCU, taking
 * no lock that an endpoint's creation or destruction holds, and the CPU
 * it files an endpoint under is the kernel's own record of where the
 * owner last ran.
 *
 * However many endpoints the users of the node make, an examination
 * takes at most 1/COSCHED_PB_SHARE of the period (the worker runs at FIFO
 * priority): when it runs out, it boosts the best it has seen and the
 * next examination goes on from where this one stopped.
 *
 * The aligned policies (pba*) examine at the boundaries of periods of
 * CLOCK_REALTIME instead, which NTP or PTP keeps close across a
 * cluster, and pick on each CPU the endpoint whose job ranks lowest for
 * the period (cosched_pba_rank(), pending or not): every node that runs
 * the job boosts it at the same time, for boost_us (cut short before
 * the next boundary).  Gang scheduling's alignment, with no master and no
 * message, and a CPU whose winner waits still runs whatever else is
 * ready.
 */
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uidgid.h>

#include "boost.h"
#include "endpoint.h"
#include "job.h"
#include "pb.h"
#include "task.h"
#include "tunables.h"
#include "user.h"
#include "workers.h"

/* An examination's share of the period, and how often it looks at the clock. */
#define COSCHED_PB_SHARE	32
#define COSCHED_PB_CLOCK_EVERY	16

/*
 * One examination: the policy, its deadline, how many it has seen and,
 * for pba, the period of the shared clock it picks for.
 */
struct cosched_pb_scan {
	const struct cosched_policy_desc *pol;
	u64 deadline_ns;
	unsigned int seen;
	u64 period_nr;
};

static struct hrtimer cosched_pb_timer;
/* pba's: fires at the boundaries of CLOCK_REALTIME's periods. */
static struct hrtimer cosched_pba_timer;
static u64 cosched_pba_period_nr;	/* the boundary it fired at last */
static struct kthread_work cosched_pb_work;
static DEFINE_MUTEX(cosched_pb_lock);	/* timer start and stop */
static bool cosched_pb_running;
/* Per CPU, the examiner's own: round-robin position (a slot) and the pick. */
static u32 *cosched_pb_cursor;
static struct cosched_ep **cosched_pb_pick;
/* The slot the next examination starts at: where the last one stopped. */
static u32 cosched_pb_resume;

static ktime_t cosched_pb_period(void)
{
	return ns_to_ktime((u64)cosched_get(COSCHED_T_PB_PERIOD_US) *
			   NSEC_PER_USEC);
}

static bool cosched_ep_blocked(struct cosched_ep *ep)
{
	return atomic_read(&ep->nr_waiters) || READ_ONCE(ep->task->woken);
}

/*
 * Round robin's order: the distance from the slot last boosted, going
 * round, so that the first one after it wins wherever the walk began and
 * a walk that resumes mid-table starves nobody.
 */
static u32 cosched_pb_distance(struct cosched_ep *ep, u32 cursor)
{
	return ep->slot - cursor - 1;
}

/* Sort key of the policy's pick, lower wins; ties go round robin. */
static u64 cosched_pb_key(const struct cosched_pb_scan *scan,
			  struct cosched_ep *ep)
{
	switch (scan->pol->pb_pick) {
	case COSCHED_PB_ALIGNED:
		return cosched_pba_rank(ep->job->id,
					from_kuid(&init_user_ns, ep->job->owner),
					scan->period_nr);
	case COSCHED_PB_NEWEST:
		return U64_MAX - cosched_last_arrival(ep);
	case COSCHED_PB_PREFER_BLOCKED:
		return !cosched_ep_blocked(ep);
	default:
		return 0;
	}
}

static bool cosched_pb_better(const struct cosched_pb_scan *scan,
			      struct cosched_ep *ep, struct cosched_ep *best,
			      u32 cursor)
{
	u64 a = cosched_pb_key(scan, ep), b = cosched_pb_key(scan, best);

	if (a != b)
		return a < b;
	return cosched_pb_distance(ep, cursor) <
	       cosched_pb_distance(best, cursor);
}

/* One endpoint's turn in the examination: is it its CPU's best so far? */
static void cosched_pb_consider(struct cosched_ep *ep,
				const struct cosched_pb_scan *scan)
{
	struct cosched_ep *best;
	unsigned int cpu;

	/* pbt's order: when the kernel first saw the ring pending. */
	if (!cosched_ring_pending(ep))
		WRITE_ONCE(ep->ring_seen_ns, 0);
	else if (!ep->ring_seen_ns)
		WRITE_ONCE(ep->ring_seen_ns, ktime_get_ns());
	if (READ_ONCE(ep->dead))
		return;
	if (scan->pol->pb_pick != COSCHED_PB_ALIGNED && !cosched_pending(ep))
		return;
	cpu = cosched_task_cpu(ep->task);
	best = cosched_pb_pick[cpu];
	if (!best || cosched_pb_better(scan, ep, best, cosched_pb_cursor[cpu]))
		cosched_pb_pick[cpu] = ep;
}

/*
 * The walk's visitor: consider @ep, then say whether there is time for
 * another.  The walk resumes after the last endpoint considered.
 */
static bool cosched_pb_visit(struct cosched_ep *ep, void *arg)
{
	struct cosched_pb_scan *scan = arg;

	cosched_pb_consider(ep, scan);
	return ++scan->seen % COSCHED_PB_CLOCK_EVERY ||
	       ktime_get_ns() <= scan->deadline_ns;
}

/*
 * How long a boost made now may last: boost_us, and for pba no later
 * than one share of the period before the next boundary, so that it has
 * ended when the next period's winner is boosted (0 if that has passed).
 */
static u64 cosched_pb_boost_len(const struct cosched_pb_scan *scan)
{
	u64 want = (u64)cosched_get(COSCHED_T_BOOST_US) * NSEC_PER_USEC;
	u64 period = ktime_to_ns(cosched_pb_period());
	u64 end, now;

	if (scan->pol->pb_pick != COSCHED_PB_ALIGNED)
		return want;
	end = (scan->period_nr + 1) * period - period / COSCHED_PB_SHARE;
	now = ktime_get_real_ns();
	return end > now ? min(want, end - now) : 0;
}

static void cosched_pb_examine(struct kthread_work *work)
{
	struct cosched_pb_scan scan = { .pol = cosched_active_policy() };
	struct cosched_ep *ep;
	unsigned int cpu;

	if (scan.pol->on_arrival != COSCHED_ON_ARRIVAL_PERIODIC)
		return;
	scan.period_nr = READ_ONCE(cosched_pba_period_nr);
	scan.deadline_ns = ktime_get_ns() +
			   ktime_to_ns(cosched_pb_period()) / COSCHED_PB_SHARE;

	rcu_read_lock();
	cosched_pb_resume = cosched_ep_visit_from_rcu(cosched_pb_resume,
						      cosched_pb_visit, &scan);
	for_each_possible_cpu(cpu) {
		ep = cosched_pb_pick[cpu];
		if (!ep)
			continue;
		if (!refcount_inc_not_zero(&ep->ref)) {
			cosched_pb_pick[cpu] = NULL;
			continue;
		}
		cosched_pb_cursor[cpu] = ep->slot;
	}
	rcu_read_unlock();

	/* Boost outside the RCU section: it may sleep on the scheduler. */
	for_each_possible_cpu(cpu) {
		ep = cosched_pb_pick[cpu];
		if (!ep)
			continue;
		cosched_pb_pick[cpu] = NULL;
		cosched_boost_for(ep, scan.pol->pb_pick == COSCHED_PB_ALIGNED ?
				  COSCHED_BOOST_ALIGNED : COSCHED_BOOST_PERIODIC,
				  cosched_pb_boost_len(&scan));
		cosched_ep_put(ep);
	}
}

/**
 * cosched_pick_local() - the spin-yield target for @self
 * @self: the yielding endpoint
 *
 * Only endpoints of @self's user are candidates: those are the ones its
 * owner may boost, and the walk is bounded by user_max_endpoints
 * whatever other users make.
 *
 * Return: the endpoint, other than @self, whose owner last ran on
 * @self's owner's CPU, that has a pending message (the newest one of
 * all) and that the caller may boost, with a reference; or NULL.
 */
struct cosched_ep *cosched_pick_local(struct cosched_ep *self)
{
	unsigned int cpu = cosched_task_cpu(self->task);
	struct cosched_ep *ep, *best = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(ep, &self->user->eps, user_node) {
		if (ep == self || ep->task == self->task ||
		    cosched_task_cpu(ep->task) != cpu ||
		    READ_ONCE(ep->dead) || !cosched_pending(ep) ||
		    !cosched_may_steer_noaudit(ep))
			continue;
		if (!best ||
		    cosched_last_arrival(ep) > cosched_last_arrival(best))
			best = ep;
	}
	if (best && !refcount_inc_not_zero(&best->ref))
		best = NULL;
	rcu_read_unlock();
	return best;
}

static enum hrtimer_restart cosched_pb_tick(struct hrtimer *timer)
{
	cosched_queue_boost_work(&cosched_pb_work);
	hrtimer_forward_now(timer, cosched_pb_period());
	return HRTIMER_RESTART;
}

/*
 * The period of the shared clock we are in (a timer a little early for
 * its boundary counts as on time), and when, on CLOCK_MONOTONIC, the
 * next one begins.  The timer runs on the monotonic clock so that a
 * step of the wall clock moves one period, not every period until the
 * wall clock catches up with an absolute expiry.
 */
static ktime_t cosched_pba_next(u64 *period_nr)
{
	u64 period = ktime_to_ns(cosched_pb_period());
	ktime_t mono = ktime_get();
	u64 real = ktime_get_real_ns();
	u64 nr = div64_u64(real + period / 64, period);

	if (period_nr)
		*period_nr = nr;
	return ktime_add_ns(mono, (nr + 1) * period - real);
}

static enum hrtimer_restart cosched_pba_tick(struct hrtimer *timer)
{
	u64 nr;

	/* Late, or after a clock step: the period we are in now. */
	hrtimer_set_expires(timer, cosched_pba_next(&nr));
	WRITE_ONCE(cosched_pba_period_nr, nr);
	cosched_queue_boost_work(&cosched_pb_work);
	return HRTIMER_RESTART;
}

/**
 * cosched_pb_update() - run the examiner exactly when a pb policy is on
 *
 * Called after the policy or the period changed; a new period takes
 * effect at once.
 */
void cosched_pb_update(void)
{
	const struct cosched_policy_desc *pol = cosched_active_policy();
	bool want = pol->on_arrival == COSCHED_ON_ARRIVAL_PERIODIC;

	mutex_lock(&cosched_pb_lock);
	if (cosched_pb_running) {
		hrtimer_cancel(&cosched_pb_timer);
		hrtimer_cancel(&cosched_pba_timer);
		kthread_cancel_work_sync(&cosched_pb_work);
	}
	cosched_pb_running = want;
	if (want && pol->pb_pick == COSCHED_PB_ALIGNED)
		hrtimer_start(&cosched_pba_timer, cosched_pba_next(NULL),
			      HRTIMER_MODE_ABS);
	else if (want)
		hrtimer_start(&cosched_pb_timer, cosched_pb_period(),
			      HRTIMER_MODE_REL);
	mutex_unlock(&cosched_pb_lock);
}

int cosched_pb_init(void)
{
	cosched_pb_cursor = kcalloc(nr_cpu_ids, sizeof(*cosched_pb_cursor),
				    GFP_KERNEL);
	cosched_pb_pick = kcalloc(nr_cpu_ids, sizeof(*cosched_pb_pick),
				  GFP_KERNEL);
	if (!cosched_pb_cursor || !cosched_pb_pick) {
		kfree(cosched_pb_cursor);
		kfree(cosched_pb_pick);
		return -ENOMEM;
	}
	hrtimer_init(&cosched_pb_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	cosched_pb_timer.function = cosched_pb_tick;
	hrtimer_init(&cosched_pba_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	cosched_pba_timer.function = cosched_pba_tick;
	kthread_init_work(&cosched_pb_work, cosched_pb_examine);
	cosched_pb_update();
	return 0;
}

void cosched_pb_exit(void)
{
	mutex_lock(&cosched_pb_lock);
	cosched_pb_running = false;
	hrtimer_cancel(&cosched_pb_timer);
	hrtimer_cancel(&cosched_pba_timer);
	kthread_cancel_work_sync(&cosched_pb_work);
	mutex_unlock(&cosched_pb_lock);
	kfree(cosched_pb_cursor);
	kfree(cosched_pb_pick);
}
