// SPDX-License-Identifier: GPL-2.0
/*
 * dcs-fair: boosted time is paid back to the fair class (issue 14).
 *
 * FIFO time is not charged to the fair class (sched.c), so a rank that
 * DCS boosts gets its fair share of the rest of the time and its boosts
 * on top, taken from the fair tasks of its CPU.  Here each rank keeps a
 * debt: the CPU time it had minus its fair share of the time it was
 * runnable, that share being 1 / n (n: the CPU's runnable fair tasks,
 * all taken at nice 0) of the time the CPU did not run other ranks'
 * boosts.  A boost of length b adds (1 - 1/n) b; a rank that owes runs
 * at nice repay_nice, gets less than 1 / n, and so pays back.  The debt
 * is measured from what the rank had (exec and runnable time, as
 * schedstat's sum_exec_runtime and run_delay give them), not inferred
 * from the weight: the fair class's reaction to a reweight (EEVDF keeps
 * the lag, CFS the vruntime) does not matter, and a rank that got less
 * than its share builds a credit, at most REPAY_CREDIT.  The debt is
 * brought up to date at each boost's start and end and at each check:
 * when the first debt of the CPU would be paid if its owner ran nothing,
 * at least every repay_check_us (the module's timer and worker).  A
 * boost ends a repayment (as it ends a yield).  At a window's end a debt
 * above the job's budget of one window is forgiven, so a debt is for
 * this window's boosts and the last's; with repay_max_debt_us > 0 a rank
 * that owes more is not boosted.  Documentation/simulator.rst maps each
 * step to the module.
 */
#include "sim.h"

/* The kernels' sched_prio_to_weight[], nice -20 .. 19. */
static const int nice_weight[40] = {
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991, 1586, 1277,
	1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
	110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
};

/* Below a minimal boost's worth, a debt is paid. */
#define REPAY_MIN	US(10)
/* A rank that got less than its share may be owed up to a tick (HZ 250). */
#define REPAY_CREDIT	US(4000)

static sim_ns runnable(const struct world *w, const struct task *t)
{
	return t->run_ns + (t->on_rq ? w->now - t->rq_since : 0);
}

/* 1 / the CPU's runnable fair tasks, T counted whether queued or not. */
static double fair_share(struct world *w, const struct task *t)
{
	const struct cpu *c = cpu_of(w, t);
	int i, n = 1;

	for (i = 0; i < c->nrq; i++)
		n += c->rq[i] != t && !c->rq[i]->fifo;
	return 1.0 / n;
}

static sim_ns window_ns(const struct world *w)
{
	return MS(w->p->budget_window_ms);
}

/* A new window: a debt past a window's budget goes. */
static void roll(struct world *w, struct task *t)
{
	int64_t win = w->now / window_ns(w);
	sim_ns cap = (sim_ns)(w->p->budget_pct / 100 * window_ns(w));

	if (t->debt_window == win)
		return;
	t->debt_window = win;
	if (t->debt > cap) {
		w->ctr.debt_forgiven_ns += t->debt - cap;
		t->debt = cap;
	}
}

/*
 * Bring T's debt up to now (T's CPU accounted): what it ran minus its
 * share of the time it was runnable and the CPU ran no one else's boost.
 * An interval is wholly boosted or not (boosts close one).
 */
static void sync(struct world *w, struct task *t)
{
	struct cpu *c = cpu_of(w, t);
	sim_ns run = runnable(w, t), fifo = c->fifo_ns - t->snap_fifo;
	sim_ns dexec = t->cpu_ns - t->snap_exec, drun = run - t->snap_run;
	sim_ns others, d;

	others = t->fifo ? fifo - dexec : fifo;
	if (others < 0)
		others = 0;
	d = dexec - (sim_ns)(fair_share(w, t) *
			     (drun > others ? drun - others : 0));
	if (t->debt + d < -REPAY_CREDIT)
		d = -REPAY_CREDIT - t->debt;
	t->debt += d;
	if (d > 0)
		w->ctr.debt_charged_ns += d;
	else
		w->ctr.debt_repaid_ns -= d;
	t->snap_exec = t->cpu_ns;
	t->snap_run = run;
	t->snap_fifo = c->fifo_ns;
	roll(w, t);
}

/* Owing: at repay_nice; paid: its own nice again. */
static void settle(struct world *w, struct task *t)
{
	int owe = t->debt >= REPAY_MIN && t->state != T_DONE;

	/*
	 * repay_wait_only: while it has waited spin_us for a message that
	 * has not arrived (an arrival ends the lowering, as it ends a yield).
	 */
	if (owe && w->p->repay_wait_only &&
	    (!t->waiting || !t->spun_out || msg_avail(t, t->wait_src)))
		owe = 0;

	if (owe == t->repaying)
		return;
	t->repaying = owe;
	task_set_weight(w, t, owe ? nice_weight[(int)w->p->repay_nice + 20] :
			1024);
}

/*
 * The next check of C: when its first debt would be paid if its owner
 * ran nothing meanwhile, and at least every repay_check_us while any
 * rank of C owes (the module's hrtimer, re-armed by its worker).
 */
static void arm(struct world *w, struct cpu *c)
{
	sim_ns next = US(w->p->repay_check_us), due;
	int k, owing = 0;

	for (k = 0; k < c->nall; k++) {
		struct task *t = c->all[k];

		if (!t->repaying)
			continue;
		owing = 1;
		due = (sim_ns)(t->debt / fair_share(w, t));
		if (due < next)
			next = due;
	}
	c->repay_gen++;
	if (owing)
		evq_push(&w->q, w->now + (next > 0 ? next : 1), EV_REPAY, c->id,
			 0, c->repay_gen);
}

int repay_refuse(struct world *w, struct task *t)
{
	if (!w->pol->repay || w->p->repay_max_debt_us <= 0 ||
	    t->debt <= US(w->p->repay_max_debt_us))
		return 0;
	w->ctr.repay_refused++;
	return 1;
}

/* A boost starts: the repayment stops (the module restores the nice). */
void repay_boost_start(struct world *w, struct task *t)
{
	if (!w->pol->repay)
		return;
	cpu_account(w, cpu_of(w, t));
	sync(w, t);
	if (t->repaying) {
		t->repaying = 0;
		task_set_weight(w, t, 1024);
	}
}

/* A boost ended: what it took from the others is owed now. */
void repay_boost_end(struct world *w, struct task *t)
{
	if (!w->pol->repay)
		return;
	cpu_account(w, cpu_of(w, t));
	sync(w, t);
	settle(w, t);
	arm(w, cpu_of(w, t));
}

/* T starts or ends waiting for a message. */
void repay_wait(struct world *w, struct task *t)
{
	if (!w->pol->repay || t->fifo || !w->p->repay_wait_only)
		return;
	cpu_account(w, cpu_of(w, t));
	sync(w, t);
	settle(w, t);
	arm(w, cpu_of(w, t));
}

/* A check of CPU's ranks (the module's timer and worker). */
void repay_check(struct world *w, int cpu, uint32_t gen)
{
	struct cpu *c = &w->cpus[cpu];
	int k;

	if (gen != c->repay_gen)
		return;
	cpu_account(w, c);
	for (k = 0; k < c->nall; k++) {
		struct task *t = c->all[k];

		if (t->fifo || t->state == T_DONE)
			continue;
		sync(w, t);
		settle(w, t);
	}
	arm(w, c);
	if (c->need_resched)
		cpu_resched(w, c);
}
