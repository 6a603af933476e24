// SPDX-License-Identifier: GPL-2.0
/*
 * The module's side (kernel/boost.c, budget.c, pb.c, policy.c): boosts
 * to SCHED_FIFO for at most boost_us, paid in advance from four budgets
 * per window (the job's and the user's on the host, the CPU's, the
 * host's), the unused part given back when a boost ends early; DCS's
 * two rules; the periodic examiner, aligned or not; the spin-yield
 * action.
 */
#include <linux/cosched.h>	/* cosched_pba_rank(): pick as the module */

#include "sim.h"

/* kernel/pb.c: a pba boost ends 1/32 of the period before the boundary. */
#define PB_SHARE 32

static sim_ns window_ns(const struct world *w)
{
	return MS(w->p->budget_window_ms);
}

/* Room left in B this window: PCT percent of CPUS CPUs. */
static sim_ns room(struct world *w, struct budget *b, double pct, int cpus)
{
	int64_t win = w->now / window_ns(w);

	if (b->window != win) {
		b->window = win;
		b->used = 0;
	}
	return (sim_ns)(pct / 100 * cpus * window_ns(w)) - b->used;
}

struct four {
	struct budget *b[4];
};

static struct four budgets(struct world *w, struct task *t)
{
	struct host *h = &w->hosts[t->host];
	int user = w->p->jobs_share_user ? 0 : t->job;

	return (struct four){ { &h->job[t->job], &h->user[user],
				&w->cpus[t->cpu].budget, &h->global } };
}

/* A boost of at most WANT, if the budgets have room (cosched_boost_for). */
void boost_request_len(struct world *w, struct task *t, sim_ns want)
{
	const struct params *p = w->p;
	struct four f = budgets(w, t);
	sim_ns len = want, r[4];
	int i;

	if (want <= 0 || t->state == T_DONE || t->fifo || t->boost_pending ||
	    repay_refuse(w, t))
		return;
	r[0] = room(w, f.b[0], p->budget_pct, 1);
	r[1] = room(w, f.b[1], p->user_budget_pct, 1);
	r[2] = room(w, f.b[2], p->cpu_budget_pct, 1);
	r[3] = room(w, f.b[3], p->global_budget_pct, w->cpus_per_host);
	for (i = 0; i < 4; i++)
		if (r[i] < len)
			len = r[i];
	if (len < US(10)) {
		w->ctr.budget_exhausted++;
		return;
	}
	for (i = 0; i < 4; i++)
		f.b[i]->used += len;
	t->boost_len = len;
	t->boost_window = w->now / window_ns(w);
	t->boost_pending = 1;
	evq_push(&w->q, w->now + US(p->boost_latency_us), EV_BOOST_START,
		 t->id, 0, ++t->boost_gen);
}

void boost_request(struct world *w, struct task *t)
{
	boost_request_len(w, t, US(w->p->boost_us));
}

static void refund(struct world *w, struct task *t, sim_ns unused)
{
	struct four f = budgets(w, t);
	int i;

	if (unused <= 0 || w->now / window_ns(w) != t->boost_window)
		return;
	for (i = 0; i < 4; i++)
		f.b[i]->used -= unused;
}

void boost_start(struct world *w, struct task *t, uint32_t gen)
{
	if (gen != t->boost_gen || !t->boost_pending)
		return;
	t->boost_pending = 0;
	if (t->state == T_DONE) {
		refund(w, t, t->boost_len);
		return;
	}
	t->boost_ran = 0;
	w->ctr.boosts++;
	repay_boost_start(w, t);
	fifo_enter(w, t);
	evq_push(&w->q, w->now + t->boost_len, EV_BOOST_END, t->id, 0,
		 t->boost_gen);
}

void boost_stop(struct world *w, struct task *t, int resched)
{
	struct cpu *c = cpu_of(w, t);

	if (t->boost_pending) {
		t->boost_pending = 0;
		t->boost_gen++;
		refund(w, t, t->boost_len);
		return;
	}
	if (!t->fifo)
		return;
	t->boost_gen++;
	fifo_leave(w, t);
	w->ctr.boosted_ns += t->boost_ran;
	refund(w, t, t->boost_len - t->boost_ran);
	repay_boost_end(w, t);
	if (resched)	/* else the caller reschedules next */
		cpu_plan(w, c);
}

static int pending(const struct task *t)
{
	return t->arrived > t->ep_consumed;
}

void policy_on_arrival(struct world *w, struct task *t)
{
	struct cpu *c = cpu_of(w, t);

	if (w->pol->arrival != A_DCS)
		return;
	if (c->curr == t && t->on_rq)
		return;	/* on its CPU: rule 2 may boost it at a preemption */
	t->rule2_at = t->arrived;
	boost_request(w, t);
}

/* dcs's second rule: preempted with an arrival it has not consumed. */
void policy_on_preempt(struct world *w, struct task *t)
{
	if (w->pol->arrival != A_DCS || !pending(t) || t->arrived <= t->rule2_at)
		return;
	t->rule2_at = t->arrived;
	boost_request(w, t);
}

static int blocked(const struct task *t)
{
	return t->state == T_BLOCKED || t->state == T_WAKING ||
	       t->state == T_SLEEPING;
}

/* HOST's CLOCK_REALTIME now: the true time plus the host's offset. */
static sim_ns realtime(const struct world *w, int host)
{
	return w->epoch + w->now + w->hosts[host].clock_off;
}

/*
 * When HOST's examiner fires next: pb one period after now, at its own
 * phase; pba at the next boundary of a period of its CLOCK_REALTIME.
 */
sim_ns pb_next(struct world *w, int host)
{
	sim_ns period = US(w->p->pb_period_us);

	if (w->pol->pick != PB_ALIGNED)
		return w->now + period;
	return w->now + period - realtime(w, host) % period;
}

/*
 * The examiner's order (kernel/pb.c): a key per policy, lower first,
 * then round robin, the distance from the slot boosted last.  pba's key
 * is cosched_pba_rank() itself (any endpoint, pending or not).
 */
static uint64_t pb_key(struct world *w, const struct task *t,
		       int64_t period_nr)
{
	uint32_t uid = w->p->jobs_share_user ? 0 : 1000 + t->job;

	switch (w->pol->pick) {
	case PB_NEWEST:
		return (uint64_t)(INT64_MAX - t->last_arrival);
	case PB_BLOCKED:
		return !blocked(t);
	case PB_ALIGNED:
		return cosched_pba_rank(t->job + 1, uid, period_nr);
	default:
		return 0;
	}
}

/* pba's boost: boost_us, ending 1/32 of the period before the boundary. */
static sim_ns pb_boost_len(struct world *w, int host, int64_t period_nr)
{
	sim_ns want = US(w->p->boost_us), period = US(w->p->pb_period_us);
	sim_ns end = (period_nr + 1) * period - period / PB_SHARE;
	sim_ns now = realtime(w, host);

	if (w->pol->pick != PB_ALIGNED)
		return want;
	return end > now ? (end - now < want ? end - now : want) : 0;
}

/* kernel/pb.c: per CPU, the lowest pb_key(), ties round robin. */
void pb_examine(struct world *w, int host)
{
	int first = host * w->cpus_per_host, i, k;
	int aligned = w->pol->pick == PB_ALIGNED;
	int64_t nr = realtime(w, host) / US(w->p->pb_period_us);

	w->hosts[host].pba_period = nr;
	for (i = first; i < first + w->cpus_per_host && i < w->nodes; i++) {
		struct cpu *c = &w->cpus[i];
		struct task *best = NULL;
		uint64_t best_key = 0;
		uint32_t best_dist = 0;
		int best_slot = -1;

		for (k = 0; k < c->nall; k++) {
			struct task *t = c->all[k];
			uint32_t dist = (uint32_t)(k - c->pb_cursor - 1);
			uint64_t key;

			if (t->state == T_DONE || w->jobs[t->job].competitor ||
			    (!aligned && !pending(t)))
				continue;
			key = pb_key(w, t, nr);
			if (!best || key < best_key ||
			    (key == best_key && dist < best_dist)) {
				best = t;
				best_key = key;
				best_dist = dist;
				best_slot = k;
			}
		}
		if (best) {
			c->pb_cursor = best_slot;
			boost_request_len(w, best, pb_boost_len(w, host, nr));
		}
	}
}

/* *sy after spin_us: lower the caller, boost the newest pending neighbour. */
void sy_yield(struct world *w, struct task *t)
{
	struct cpu *c = cpu_of(w, t);
	struct task *best = NULL;
	int k;

	w->ctr.yields++;
	boost_stop(w, t, 0);
	for (k = 0; k < c->nall; k++) {
		struct task *o = c->all[k];

		if (o != t && o->state != T_DONE && pending(o) &&
		    !w->jobs[o->job].competitor &&
		    (!best || o->last_arrival > best->last_arrival))
			best = o;
	}
	if (best)
		boost_request(w, best);
	t->lowered = 1;
	/* nice 19: 15 against nice 0's 1024, within its group too */
	task_set_weight(w, t, t->own_weight * 15 / 1024 ?: 1);
}
