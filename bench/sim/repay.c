// SPDX-License-Identifier: GPL-2.0
/*
 * dcs-fair: boosted time is paid back to the fair class (issue 14), as
 * the module does it (kernel/repay.c; its sleep: cosched_repay_wait() in
 * kernel/policy.c, here task.c's YIELD).
 *
 * FIFO time is not charged to the fair class (sched.c), so a rank that
 * DCS boosts gets its fair share of the rest of the time and its boosts
 * on top, taken from the other tasks of its CPU.  Each rank keeps a
 * debt.  Its share s is what it got under its own attributes: what it
 * ran over what it was runnable (ran plus its runqueue waits), summed
 * over its unboosted intervals and halved when the runnable sum passes
 * a second; 1/2 until 1 ms is sampled; within [1/16, 15/16].  The CPU's
 * runnable count is not used: the module cannot read it.  A boosted
 * interval in which the rank ran r adds (1 - s) r, what the others
 * would have had of it.  A rank that owes and has waited spin_us for a
 * message sleeps debt / s (within [100 us, 4 ms]), through the message
 * if it owes over half repay_max_debt_us, and is credited s of the time
 * it was off the runqueue.  A rank owing more
 * than repay_max_debt_us is not boosted; at each budget window a debt
 * above that is forgiven down to it, so a rank that never waits is
 * still boosted about once a window.  The debts are updated where the
 * module's are: a boost's start and end, the YIELD, the sleep's end.
 */
#include "sim.h"

/* A credit (a rank that got less than its share) is worth this much. */
#define REPAY_CREDIT		MS(4)
/* Far beyond any repay_max_debt_us (the module's arithmetic bound). */
#define REPAY_DEBT_MAX		SEC(10)
/* The share is measured over about this much runnable time ... */
#define REPAY_HORIZON		SEC(1)
/* ... and taken as 1/2 below this much. */
#define REPAY_MIN_SAMPLE	MS(1)
/* A repaying sleep: not so short it is all switching, nor long. */
#define REPAY_SLEEP_MIN		US(100)
#define REPAY_SLEEP_MAX		MS(4)

static sim_ns runnable(const struct world *w, const struct task *t)
{
	return t->run_ns + (t->on_rq ? w->now - t->rq_since : 0);
}

/* No boost is free and every sleep pays: within [1/16, 15/16]. */
double repay_share(const struct task *t)
{
	double s;

	if (t->share_runnable < REPAY_MIN_SAMPLE)
		return 0.5;
	s = (double)t->share_ran / t->share_runnable;
	return s < 1.0 / 16 ? 1.0 / 16 : s > 15.0 / 16 ? 15.0 / 16 : s;
}

static void add(struct world *w, struct task *t, sim_ns ns)
{
	sim_ns d = t->debt + ns;

	if (d < -REPAY_CREDIT)
		d = -REPAY_CREDIT;
	if (d > REPAY_DEBT_MAX)
		d = REPAY_DEBT_MAX;
	if (d > t->debt)
		w->ctr.debt_charged_ns += d - t->debt;
	else
		w->ctr.debt_repaid_ns += t->debt - d;
	t->debt = d;
}

/* A new budget window: a debt over repay_max_debt_us is forgiven. */
static void roll(struct world *w, struct task *t)
{
	int64_t win = w->now / MS(w->p->budget_window_ms);
	sim_ns max = US(w->p->repay_max_debt_us);

	if (win == t->debt_window)
		return;
	t->debt_window = win;
	if (max > 0 && t->debt > max) {
		w->ctr.debt_forgiven_ns += t->debt - max;
		t->debt = max;
	}
}

/* What T ran and waited on its runqueue since the marks; moves them. */
static void advance(struct world *w, struct task *t, sim_ns *ran,
		    sim_ns *waited)
{
	sim_ns run;

	cpu_account(w, cpu_of(w, t));
	run = runnable(w, t);
	*ran = t->cpu_ns - t->mark_exec;
	*waited = run - t->mark_run - *ran;
	if (*waited < 0)
		*waited = 0;
	t->mark_exec = t->cpu_ns;
	t->mark_run = run;
}

/* An interval under its own attributes measures the share. */
static void sample(struct task *t, sim_ns ran, sim_ns waited)
{
	t->share_ran += ran;
	t->share_runnable += ran + waited;
	while (t->share_runnable > REPAY_HORIZON) {
		t->share_ran /= 2;
		t->share_runnable /= 2;
	}
}

/* The interval since the last update, boosted or under its own. */
static void update(struct world *w, struct task *t, int boosted)
{
	sim_ns ran, waited;

	advance(w, t, &ran, &waited);
	if (boosted) {
		add(w, t, ran - (sim_ns)(repay_share(t) * ran));
		/* a boost preempts at once: a wait in it began unboosted */
		sample(t, 0, waited);
	} else {
		sample(t, ran, waited);
	}
	roll(w, t);
}

int repay_refuse(struct world *w, struct task *t)
{
	if (!w->pol->repay || w->p->repay_max_debt_us <= 0)
		return 0;
	roll(w, t);
	if (t->debt <= US(w->p->repay_max_debt_us))
		return 0;
	w->ctr.repay_refused++;
	return 1;
}

/* A boost starts: the time until now was T's own. */
void repay_boost_start(struct world *w, struct task *t)
{
	if (w->pol->repay)
		update(w, t, 0);
}

/* A boost ended: what it ran, less T's share of that, is owed. */
void repay_boost_end(struct world *w, struct task *t)
{
	if (w->pol->repay)
		update(w, t, 1);
}

/*
 * The YIELD, T's boost ended: how long T sleeps to pay its debt at its
 * share (a longer debt is paid in several sleeps), 0 if it owes nothing.
 * *THROUGH: a debt over half repay_max_debt_us is slept off whatever
 * arrives; a smaller one lets the message end the sleep (the module's
 * cosched_repay_sleep_ns()).
 */
sim_ns repay_due(struct world *w, struct task *t, int *through)
{
	sim_ns ns, max = US(w->p->repay_max_debt_us);

	update(w, t, 0);
	if (t->debt <= 0)
		return 0;
	t->sleep_run = t->mark_run;
	t->sleep_share = repay_share(t);
	*through = max > 0 && t->debt > max / 2;
	ns = (sim_ns)(t->debt / repay_share(t));
	return ns < REPAY_SLEEP_MIN ? REPAY_SLEEP_MIN :
	       ns > REPAY_SLEEP_MAX ? REPAY_SLEEP_MAX : ns;
}

/*
 * T is back on its CPU from a sleep of SLEPT (its start until now): the
 * time it was off the runqueue pays the share the sleep was sized at
 * (the module's sleep_share); its wait to run again is contention,
 * sampled.  Off the runqueue is counted from the sleep's
 * start, not from the marks, which a boost that began after the wake-up
 * has moved.
 */
void repay_slept(struct world *w, struct task *t, sim_ns slept)
{
	sim_ns ran, waited, away, since;

	advance(w, t, &ran, &waited);
	since = t->mark_run - t->sleep_run;
	away = slept > since ? slept - since : 0;
	add(w, t, -(sim_ns)(t->sleep_share * away));
	sample(t, ran, waited);
	roll(w, t);
}
