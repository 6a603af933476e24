// SPDX-License-Identifier: GPL-2.0
/*
 * One CPU's scheduler, reduced to what decides who runs when ranks wait
 * for each other: a FIFO class (the module's boosts: SCHED_FIFO 1) above
 * a fair class that is either 6.1's CFS (latency / min_granularity /
 * wakeup_granularity, preemption checked at the tick and at wake-up,
 * sleeper credit of half a latency, yield = skip buddy) or 6.12's EEVDF
 * (base slice, eligibility by lag, earliest eligible deadline first,
 * RUN_TO_PARITY, lag kept over a sleep, yield = deadline one slice
 * later).  Slices are enforced at the tick (HZ; hrtick is off in both
 * Debian kernels).  Not modelled: load balancing (every rank is pinned),
 * cgroups, EEVDF's delayed dequeue, CFS's START_DEBIT.
 *
 * FIFO time is not charged to the fair class: the task keeps its place
 * relative to the queue's minimum (CFS) or its lag (EEVDF) across the
 * boost, as the kernels' class switches do.
 */
#include <stdlib.h>

#include "sim.h"

#define NICE0 1024

static int64_t vdelta(sim_ns dt, int weight)
{
	return dt * NICE0 / weight;
}

static int64_t vslice(const struct world *w, const struct task *t)
{
	return vdelta(US(w->p->eevdf_slice_us), t->weight);
}

static int fair_nr(const struct cpu *c, int64_t *load)
{
	int i, n = 0;

	if (load)
		*load = 0;
	for (i = 0; i < c->nrq; i++)
		if (!c->rq[i]->fifo) {
			n++;
			if (load)
				*load += c->rq[i]->weight;
		}
	return n;
}

/* EEVDF's V: the load-weighted mean vruntime of the queue. */
static int64_t avg_v(const struct cpu *c)
{
	double sum = 0, load = 0;
	int i;

	for (i = 0; i < c->nrq; i++)
		if (!c->rq[i]->fifo) {
			sum += (double)c->rq[i]->vruntime * c->rq[i]->weight;
			load += c->rq[i]->weight;
		}
	return load ? (int64_t)(sum / load) : c->min_vruntime;
}

static void update_min_v(struct cpu *c)
{
	int64_t m = INT64_MAX;
	int i;

	for (i = 0; i < c->nrq; i++)
		if (!c->rq[i]->fifo && c->rq[i]->vruntime < m)
			m = c->rq[i]->vruntime;
	if (m != INT64_MAX && m > c->min_vruntime)
		c->min_vruntime = m;
}

/* The fair reference a boost keeps its place against. */
static int64_t fair_ref(struct world *w, struct cpu *c)
{
	return w->eevdf ? avg_v(c) : c->min_vruntime;
}

void cpu_account(struct world *w, struct cpu *c)
{
	struct task *t = c->curr;
	sim_ns now = w->now, dt = now - c->last, from, prog;

	from = c->last > c->ovh_until ? c->last : c->ovh_until;
	if (from < c->stall_until)
		from = c->stall_until;
	c->last = now;
	if (!t || dt <= 0)
		return;
	prog = now > from ? now - from : 0;
	if (t->work > 0) {
		t->work -= prog;
		if (t->work < 0)
			t->work = 0;
	} else if (t->waiting) {
		t->spin_ns += prog;
	}
	t->cpu_ns += dt;
	if (t->fifo) {
		t->boost_ran += dt;
		return;
	}
	t->vruntime += vdelta(dt, t->weight);
	if (!w->eevdf) {
		update_min_v(c);
		return;
	}
	if (t->vruntime >= t->deadline) {	/* update_deadline() */
		t->deadline = t->vruntime + vslice(w, t);
		t->protect = 0;
		if (fair_nr(c, NULL) > 1)
			c->need_resched = 1;
	}
	update_min_v(c);
}

static struct task *pick_cfs(struct world *w, struct cpu *c)
{
	struct task *left = NULL, *second = NULL;
	int i;

	for (i = 0; i < c->nrq; i++) {
		struct task *t = c->rq[i];

		if (t->fifo)
			continue;
		if (!left || t->vruntime < left->vruntime) {
			second = left;
			left = t;
		} else if (!second || t->vruntime < second->vruntime) {
			second = t;
		}
	}
	/* sched_yield's skip buddy: run the next one unless far behind */
	if (left && left == c->skip && second &&
	    second->vruntime - left->vruntime <=
	    vdelta(US(w->p->cfs_wakeup_gran_us), left->weight))
		return second;
	return left;
}

static struct task *pick_eevdf(struct world *w, struct cpu *c)
{
	struct task *best = NULL, *curr = c->curr, *minv = NULL;
	int64_t v = avg_v(c);
	int i;

	(void)w;
	if (curr && curr->on_rq && !curr->fifo && curr->vruntime <= v &&
	    curr->protect)
		return curr;		/* RUN_TO_PARITY */
	for (i = 0; i < c->nrq; i++) {
		struct task *t = c->rq[i];

		if (t->fifo)
			continue;
		if (!minv || t->vruntime < minv->vruntime)
			minv = t;
		if (t->vruntime <= v && (!best || t->deadline < best->deadline))
			best = t;
	}
	return best ? best : minv;
}

static struct task *pick(struct world *w, struct cpu *c)
{
	struct task *f = NULL;
	int i;

	if (c->curr && c->curr->on_rq && c->curr->fifo)
		return c->curr;		/* FIFO runs until it stops */
	for (i = 0; i < c->nrq; i++)
		if (c->rq[i]->fifo &&
		    (!f || c->rq[i]->fifo_since < f->fifo_since))
			f = c->rq[i];
	if (f)
		return f;
	return w->eevdf ? pick_eevdf(w, c) : pick_cfs(w, c);
}

void cpu_resched(struct world *w, struct cpu *c)
{
	struct task *prev, *next;

	cpu_account(w, c);
	prev = c->curr;
	next = pick(w, c);
	c->need_resched = 0;
	c->skip = NULL;
	if (next != prev) {
		if (prev && prev->on_rq)
			policy_on_preempt(w, prev);
		c->curr = next;
		if (next && prev) {
			c->ovh_until = (w->now > c->stall_until ? w->now :
					c->stall_until) + US(w->p->ctx_us);
			w->ctr.switches++;
		}
	}
	if (next) {
		next->exec_start = w->now;
		next->protect = 1;
		if (next != prev) {
			task_on_cpu(w, next);	/* plans the CPU */
			return;
		}
	}
	cpu_plan(w, c);
}

void cpu_plan(struct world *w, struct cpu *c)
{
	struct task *t = c->curr;
	sim_ns start;

	if (c->need_resched) {
		cpu_resched(w, c);
		return;
	}
	c->plan_gen++;
	if (!t)
		return;
	start = w->now > c->ovh_until ? w->now : c->ovh_until;
	if (start < c->stall_until)
		start = c->stall_until;
	if (t->work > 0 || !t->waiting) {
		/*
		 * work 0 and not waiting: another event at the very time its
		 * work ended got here first; the task must still go on.
		 */
		evq_push(&w->q, start + t->work, EV_CPU, c->id, 0, c->plan_gen);
	} else if (t->waiting && w->pol->wait == W_YIELD && c->nrq > 1) {
		if (t->yield_next > start)
			start = t->yield_next;
		evq_push(&w->q, start, EV_CPU, c->id, 0, c->plan_gen);
	}
}

/* CFS's check_preempt_tick(). */
static int cfs_tick_preempt(struct world *w, struct cpu *c)
{
	const struct params *p = w->p;
	struct task *t = c->curr, *left = NULL;
	int64_t load;
	int n = fair_nr(c, &load), i;
	sim_ns period, ideal, ran;

	if (n < 2)
		return 0;
	period = US(p->cfs_latency_us);
	if (n > p->cfs_latency_us / p->cfs_min_gran_us)
		period = n * US(p->cfs_min_gran_us);
	ideal = period * t->weight / load;
	ran = w->now - t->exec_start;
	if (ran > ideal)
		return 1;
	if (ran < US(p->cfs_min_gran_us))
		return 0;
	for (i = 0; i < c->nrq; i++)
		if (c->rq[i] != t && !c->rq[i]->fifo &&
		    (!left || c->rq[i]->vruntime < left->vruntime))
			left = c->rq[i];
	return left && t->vruntime - left->vruntime > ideal;
}

void cpu_tick(struct world *w, struct cpu *c)
{
	cpu_account(w, c);
	if (c->curr && !c->curr->fifo && !w->eevdf && cfs_tick_preempt(w, c))
		c->need_resched = 1;
	if (c->need_resched)
		cpu_resched(w, c);
}

/* Would T, just queued, run before the current task? */
static int wakeup_preempt(struct world *w, struct cpu *c, struct task *t)
{
	struct task *curr = c->curr;

	if (!curr)
		return 1;
	if (curr->fifo)
		return 0;
	if (t->fifo)
		return 1;
	if (!w->eevdf)
		return curr->vruntime - t->vruntime >
		       vdelta(US(w->p->cfs_wakeup_gran_us), t->weight);
	return pick_eevdf(w, c) == t;
}

static void place(struct world *w, struct cpu *c, struct task *t, int wakeup)
{
	if (!w->eevdf) {
		int64_t floor = c->min_vruntime -
				(wakeup ? US(w->p->cfs_latency_us) / 2 : 0);

		if (t->vruntime < floor)
			t->vruntime = floor;
		return;
	}
	{
		int64_t load, v = avg_v(c), lag = t->lag;

		fair_nr(c, &load);
		if (load)	/* PLACE_LAG: inflate for the weight added */
			lag = lag * (load + t->weight) / load;
		t->vruntime = v - lag;
		t->deadline = t->vruntime + vslice(w, t);
		t->protect = 0;
	}
}

void rq_add(struct world *w, struct task *t, int wakeup)
{
	struct cpu *c = cpu_of(w, t);

	if (t->on_rq)
		return;
	cpu_account(w, c);
	if (!t->fifo)
		place(w, c, t, wakeup);
	if (c->nrq == c->caprq) {
		c->caprq = c->caprq ? 2 * c->caprq : 8;
		c->rq = realloc(c->rq, c->caprq * sizeof(*c->rq));
		if (!c->rq)
			abort();
	}
	c->rq[c->nrq++] = t;
	t->on_rq = 1;
	t->rq_since = w->now;
	if (wakeup_preempt(w, c, t))
		c->need_resched = 1;
	cpu_plan(w, c);
}

/* update_entity_lag(): V - v, within a slice's worth either way. */
static int64_t entity_lag(struct world *w, struct cpu *c, struct task *t)
{
	int64_t lim = vslice(w, t) * 2, lag = avg_v(c) - t->vruntime;
	int64_t tick = vdelta((sim_ns)(1e9 / w->p->hz), t->weight);

	if (lim < tick)
		lim = tick;
	return lag > lim ? lim : lag < -lim ? -lim : lag;
}

void rq_del(struct world *w, struct task *t)
{
	struct cpu *c = cpu_of(w, t);
	int i;

	if (!t->on_rq)
		return;
	cpu_account(w, c);
	if (w->eevdf && !t->fifo)
		t->lag = entity_lag(w, c, t);
	for (i = 0; i < c->nrq && c->rq[i] != t; i++)
		;
	c->rq[i] = c->rq[--c->nrq];
	t->on_rq = 0;
	t->run_ns += w->now - t->rq_since;
	if (c->skip == t)
		c->skip = NULL;
	if (c->curr == t)
		c->need_resched = 1;
	cpu_plan(w, c);
}

void sched_yield_task(struct world *w, struct task *t)
{
	struct cpu *c = cpu_of(w, t);

	cpu_account(w, c);
	if (!t->fifo) {
		if (w->eevdf) {
			t->deadline += vslice(w, t);
			t->protect = 0;
		} else if (fair_nr(c, NULL) > 1) {
			c->skip = t;
		}
	}
	t->yield_next = w->now + US(w->p->yield_loop_us);
	cpu_resched(w, c);
}

void task_set_weight(struct world *w, struct task *t, int weight)
{
	struct cpu *c = cpu_of(w, t);
	int old = t->weight;

	if (weight == old)
		return;
	cpu_account(w, c);
	if (w->eevdf && t->on_rq && !t->fifo) {	/* reweight_entity() */
		int64_t v = avg_v(c), lag = entity_lag(w, c, t);
		int64_t d = t->deadline - t->vruntime;

		t->vruntime = v - lag * old / weight;
		t->deadline = t->vruntime + d * old / weight;
	}
	t->weight = weight;
	if (c->curr == t && weight < old)
		c->need_resched = 1;	/* prio_changed_fair() */
	else if (t->on_rq && c->curr != t && weight > old &&
		 wakeup_preempt(w, c, t))
		c->need_resched = 1;
	cpu_plan(w, c);
}

void fifo_enter(struct world *w, struct task *t)
{
	struct cpu *c = cpu_of(w, t);

	cpu_account(w, c);
	t->fifo = 1;		/* the reference is the others' */
	t->fair_rel = t->vruntime - fair_ref(w, c);
	t->fifo_since = w->now;
	if (t->on_rq && c->curr != t && (!c->curr || !c->curr->fifo))
		c->need_resched = 1;
	cpu_plan(w, c);
}

void fifo_leave(struct world *w, struct task *t)
{
	struct cpu *c = cpu_of(w, t);

	cpu_account(w, c);
	t->vruntime = fair_ref(w, c) + t->fair_rel;
	t->fifo = 0;
	t->deadline = t->vruntime + vslice(w, t);
	t->protect = 0;
	if (c->curr == t)
		c->need_resched = 1;
}
