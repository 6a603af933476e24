// SPDX-License-Identifier: GPL-2.0
/*
 * Repaying boosted time (dcs-fair).
 *
 * A FIFO boost runs outside the fair class, which therefore does not
 * charge it: after its boost a task gets its full fair share again, and
 * what the boost took from the CPU's other tasks is never given back
 * (the budget flood of Documentation/results/kernel-trust/ left its
 * victim 9.4% of a CPU on 6.12).  Here each task keeps a debt: while
 * boosted under dcs-fair it is charged what it ran minus its share s of
 * that, where s is what it actually got under its own attributes on its
 * current CPU (decayed over about a second; 1/2 until measured, and
 * within [1/16, 15/16]), so neither the number of tasks on its CPU nor
 * their weights need be known: a boost of length b adds (1 - s) b.
 * A task that owes and waits for a message sleeps instead of spinning
 * (policy.c), through the message if it owes much, and a sleep pays
 * back s of the time it kept the task off the runqueue.  A task owing
 * more than repay_max_debt_us is not boosted (boost.c); at each budget
 * window a debt over that is forgiven down to it, so a task that never
 * waits is boosted about once a window.  A task that closes an endpoint
 * leaves its debt to its user, for the user's next task to pick up
 * (boost.c).
 * bench/sim/repay.c models the same; Documentation/simulator.rst says
 * what it leaves out.
 */
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>

#include "repay.h"
#include "tunables.h"

/* A credit (a task that got less than its share) is worth this much. */
#define COSCHED_REPAY_CREDIT_NS		(4 * NSEC_PER_MSEC)
/* Far beyond any repay_max_debt_us: keeps the arithmetic in range. */
#define COSCHED_REPAY_DEBT_MAX_NS	(10 * NSEC_PER_SEC)
/* The share is measured over about this much runnable time. */
#define COSCHED_REPAY_HORIZON_NS	NSEC_PER_SEC
/* Below this much sampled, the share is unknown and taken as 1/2. */
#define COSCHED_REPAY_MIN_SAMPLE_NS	NSEC_PER_MSEC
/* A repaying sleep: not so short it is all switching, nor long. */
#define COSCHED_REPAY_SLEEP_MIN_NS	(100 * NSEC_PER_USEC)
#define COSCHED_REPAY_SLEEP_MAX_NS	(4 * NSEC_PER_MSEC)

/* Fixed-point shares: 1 << COSCHED_SHARE_SHIFT is the whole CPU. */
#define COSCHED_SHARE_SHIFT		16

/*
 * Time @p has spent waiting on a runqueue, the wait under way included
 * (schedstat adds a wait only when it ends).  last_queued is in the
 * clock of the task's runqueue, sched_clock_cpu() of its CPU (a task
 * that has just moved may read a clock that is behind: that wait
 * counts 0).
 */
static u64 cosched_run_delay(struct task_struct *p)
{
#ifdef CONFIG_SCHED_INFO
	u64 delay = READ_ONCE(p->sched_info.run_delay);
	u64 queued = READ_ONCE(p->sched_info.last_queued);
	u64 now = sched_clock_cpu(task_cpu(p));

	if (queued && now > queued)
		delay += now - queued;
	return delay;
#else
	return 0;
#endif
}

/*
 * How much of its run @p's sum_exec_runtime does not hold yet: the
 * scheduler adds a running task's time at a tick, a switch or a change
 * of attributes, so a reading just before a sleep misses up to a tick
 * of it (a second on a nohz_full CPU), which the sleep's credit would
 * then take for time run after the sleep began (a loss of up to share x
 * a tick on every sleep).
 * exec_start is in the task clock of the runqueue, which is its
 * sched_clock_cpu() unless IRQ or steal time is taken out of it: then
 * 0, and the loss stays.  Only for current (the caller repays itself).
 */
static u64 cosched_run_lag(struct task_struct *p)
{
	u64 start, now;

	if (IS_ENABLED(CONFIG_IRQ_TIME_ACCOUNTING) ||
	    IS_ENABLED(CONFIG_PARAVIRT_TIME_ACCOUNTING) || p != current)
		return 0;
	/* Not preempted or moved between the two: one CPU's clock. */
	preempt_disable();
	start = READ_ONCE(p->se.exec_start);
	now = sched_clock_cpu(smp_processor_id());
	preempt_enable();
	/* A sanity bound: a nohz_full CPU's remote tick comes once a second. */
	return now > start ? min_t(u64, now - start, NSEC_PER_SEC) : 0;
}

static u64 cosched_repay_window(void)
{
	u64 len = (u64)cosched_get(COSCHED_T_BUDGET_WINDOW_MS) * NSEC_PER_MSEC;

	return div64_u64(ktime_get_ns(), len);
}

static u64 cosched_max_debt_ns(void)
{
	return (u64)cosched_get(COSCHED_T_REPAY_MAX_DEBT_US) * NSEC_PER_USEC;
}

/*
 * The measured share, in 1 / (1 << COSCHED_SHARE_SHIFT) of a CPU: half
 * until measured (a new record is no licence for free boosts), and kept
 * within [1/16, 15/16], so that no boost is free and every sleep pays.
 */
static u64 cosched_repay_share(const struct cosched_repay *r)
{
	const u64 one = 1ULL << COSCHED_SHARE_SHIFT;

	if (r->share_runnable < COSCHED_REPAY_MIN_SAMPLE_NS)
		return one / 2;
	return clamp_t(u64, div64_u64(r->share_ran << COSCHED_SHARE_SHIFT,
				      r->share_runnable),
		       one / 16, one - one / 16);
}

static void cosched_repay_add(struct cosched_repay *r, s64 ns)
{
	r->debt_ns = clamp_t(s64, r->debt_ns + ns, -COSCHED_REPAY_CREDIT_NS,
			     COSCHED_REPAY_DEBT_MAX_NS);
}

/* At each budget window, a debt over repay_max_debt_us is forgiven. */
static void cosched_repay_roll(struct cosched_repay *r)
{
	u64 window = cosched_repay_window();
	s64 max_debt = cosched_max_debt_ns();

	if (window == r->window)
		return;
	r->window = window;
	if (max_debt && r->debt_ns > max_debt)
		r->debt_ns = max_debt;
}

/**
 * cosched_repay_init() - a task's record starts owing nothing
 * @r: the record
 * @p: the task
 */
void cosched_repay_init(struct cosched_repay *r, struct task_struct *p)
{
	memset(r, 0, sizeof(*r));
	r->exec_mark = READ_ONCE(p->se.sum_exec_runtime);
	r->delay_mark = cosched_run_delay(p);
	r->window = cosched_repay_window();
	r->cpu = task_cpu(p);
}

/* What @p ran and waited on a runqueue since the marks; moves them. */
static void cosched_repay_advance(struct cosched_repay *r,
				  struct task_struct *p, u64 *ran, u64 *waited)
{
	u64 exec = READ_ONCE(p->se.sum_exec_runtime);
	u64 delay = cosched_run_delay(p);

	*ran = exec - r->exec_mark;
	*waited = delay > r->delay_mark ? delay - r->delay_mark : 0;
	r->exec_mark = exec;
	/* The wait under way is an estimate: never count it twice. */
	r->delay_mark = max(delay, r->delay_mark);
}

/* An interval under the task's own attributes measures its share. */
static void cosched_repay_sample(struct cosched_repay *r,
				 struct task_struct *p, u64 ran, u64 waited)
{
	unsigned int cpu = task_cpu(p);

	/* A share measured on another CPU says nothing about this one. */
	if (cpu != r->cpu) {
		r->cpu = cpu;
		r->share_ran = 0;
		r->share_runnable = 0;
		return;
	}
	r->share_ran += ran;
	r->share_runnable += ran + waited;
	while (r->share_runnable > COSCHED_REPAY_HORIZON_NS) {
		r->share_ran >>= 1;
		r->share_runnable >>= 1;
	}
}

/**
 * cosched_repay_update() - account the time since the last update
 * @r: the record, under its task's prio_lock
 * @p: the task
 * @how: what the task's attributes were since the last update
 *
 * Called at every change of the task's attributes, after the change
 * that ends the interval (a sched_setattr() brings sum_exec_runtime up
 * to date), and around a repaying sleep.
 */
void cosched_repay_update(struct cosched_repay *r, struct task_struct *p,
			  enum cosched_repay_interval how)
{
	u64 ran, waited;

	cosched_repay_advance(r, p, &ran, &waited);
	switch (how) {
	case COSCHED_REPAY_OWN:
		cosched_repay_sample(r, p, ran, waited);
		break;
	case COSCHED_REPAY_BOOSTED:
		/*
		 * A boosted task hardly waits: a wait seen here began under
		 * its own attributes (and was not yet counted, as the clock
		 * of another CPU may read late), so it is the share's.
		 */
		cosched_repay_add(r, (s64)ran -
				  (s64)mul_u64_u64_shr(cosched_repay_share(r),
						       ran, COSCHED_SHARE_SHIFT));
		cosched_repay_sample(r, p, 0, waited);
		break;
	case COSCHED_REPAY_SKIP:
		break;
	}
	cosched_repay_roll(r);
}

/**
 * cosched_repay_slept() - credit a repaying sleep that just ended
 * @r: the record, under its task's prio_lock
 * @p: the task (current)
 * @slept_ns: from the start of the sleep until now
 * @paid: out: what the sleep paid, and at which share
 *
 * The sleep pays the share it was sized at (cosched_repay_sleep_ns())
 * of the time it kept the task off the runqueue: what the task ran and
 * waited on a runqueue since the sleep began (after its wake-up, or
 * boosted by an arrival) is not paid.  Not the share measured now: a
 * task woken on another CPU has none measured there yet.  Moves no
 * mark: the caller then accounts the time since the last update
 * (cosched_repay_update()) as boosted or as its own.
 */
void cosched_repay_slept(struct cosched_repay *r, struct task_struct *p,
			 u64 slept_ns, struct cosched_repay_paid *paid)
{
	u64 exec = READ_ONCE(p->se.sum_exec_runtime);
	/* As in cosched_repay_advance(): a wait is never counted twice. */
	u64 delay = max(cosched_run_delay(p), r->delay_mark);
	s64 since;
	u64 away;

	/*
	 * Signed, summed, then bounded: were the start's run ever more
	 * than the task had, the excess offsets its waits, not dropped.
	 */
	since = (s64)(exec - r->sleep_exec) + (s64)(delay - r->sleep_delay);
	away = since <= 0 ? slept_ns :
	       slept_ns > (u64)since ? slept_ns - since : 0;
	paid->away_ns = away;
	paid->share_permille = (u32)((r->sleep_share * 1000) >>
				     COSCHED_SHARE_SHIFT);
	paid->credit_ns = mul_u64_u64_shr(r->sleep_share,
					  min_t(u64, away,
						COSCHED_REPAY_DEBT_MAX_NS),
					  COSCHED_SHARE_SHIFT);
	cosched_repay_add(r, -(s64)paid->credit_ns);
}

/**
 * cosched_repay_debt() - what the task owes now
 * @r: the record, under its task's prio_lock
 *
 * Return: the debt in ns (negative: a credit).
 */
s64 cosched_repay_debt(const struct cosched_repay *r)
{
	return r->debt_ns;
}

/**
 * cosched_repay_carry() - a debt handed over, from a task that left
 * @r: the record, under its task's prio_lock
 * @ns: the debt (positive)
 */
void cosched_repay_carry(struct cosched_repay *r, s64 ns)
{
	cosched_repay_add(r, ns);
}

/**
 * cosched_repay_take() - the task's positive debt, which it gives up
 * @r: the record, under its task's prio_lock
 *
 * Return: the debt, or 0 if it owes nothing.
 */
s64 cosched_repay_take(struct cosched_repay *r)
{
	s64 debt = max_t(s64, r->debt_ns, 0);

	r->debt_ns -= debt;
	return debt;
}

/**
 * cosched_repay_owes() - whether the task has boosted time to pay back
 * @r: the record, under its task's prio_lock
 *
 * Return: true while its debt is positive.
 */
bool cosched_repay_owes(const struct cosched_repay *r)
{
	return r->debt_ns > 0;
}

/**
 * cosched_repay_refuses() - whether the task owes too much for a boost
 * @r: the record, under its task's prio_lock (a new window's forgiveness
 *	is applied first)
 *
 * Return: true if its debt is over repay_max_debt_us (never with 0).
 */
bool cosched_repay_refuses(struct cosched_repay *r)
{
	s64 max_debt = cosched_max_debt_ns();

	cosched_repay_roll(r);
	return max_debt && r->debt_ns > max_debt;
}

/**
 * cosched_repay_sleep_ns() - a repaying sleep begins: how long it lasts
 * @r: the record, brought up to date, under its task's prio_lock
 * @p: its task, current
 * @through: out: whether the sleep lasts through the awaited message
 *
 * A debt over half repay_max_debt_us (never when that is 0) is slept
 * off, 4 ms at most at a time, whether or not the message comes (a
 * signal, the endpoint's end or a lost peer still end the sleep): a
 * task whose messages always come at once (a job whose ranks answer
 * each other) would otherwise never pay, and its refused boosts would
 * break its coscheduling (Documentation/results/dcs-fair/).  A smaller
 * one lets the message end the sleep: a receiver with slack pays in
 * the gaps between its messages without being late for them.
 *
 * Records the sleep's start for cosched_repay_slept(): the task's
 * runtime (with the run the scheduler has not yet added), its runqueue
 * wait and the share.
 *
 * Return: the time its debt would take to pay if it slept where it
 * would have run at its measured share, bounded (the waiter sleeps
 * again if it still owes).
 */
u64 cosched_repay_sleep_ns(struct cosched_repay *r, struct task_struct *p,
			   bool *through)
{
	u64 share = cosched_repay_share(r);
	u64 debt = r->debt_ns > 0 ? r->debt_ns : 0;
	u64 ns = div64_u64(debt << COSCHED_SHARE_SHIFT, max(share, 1ULL));
	u64 max_debt = cosched_max_debt_ns();

	r->sleep_exec = r->exec_mark + cosched_run_lag(p);
	r->sleep_delay = r->delay_mark;
	r->sleep_share = share;
	*through = max_debt && debt > max_debt / 2;
	return clamp_t(u64, ns, COSCHED_REPAY_SLEEP_MIN_NS,
		       COSCHED_REPAY_SLEEP_MAX_NS);
}
