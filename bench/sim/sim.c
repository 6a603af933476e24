// SPDX-License-Identifier: GPL-2.0
/*
 * One run: build the nodes, CPUs and ranks, start every rank within the
 * first millisecond, and process events until every MPI job has ended
 * (or the time limit).  sim_mix() adds the standalone runs that make the
 * ideal, as bench/run-mix does: ideal = sum of the jobs' standalone
 * times, slowdown = the last job's completion / ideal.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"

static double wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* vCPU stalls: a Poisson process of stall_per_s per CPU. */
static void stall_next(struct world *w, int cpu)
{
	double u = rng_unit(&w->rng);

	if (w->p->stall_per_s <= 0 || w->p->stall_us <= 0)
		return;
	evq_push(&w->q, w->now + (sim_ns)(-log(1 - u) / w->p->stall_per_s * 1e9),
		 EV_STALL, cpu, 0, 0);
}

static void dispatch(struct world *w, const struct event *e)
{
	struct cpu *c;

	switch (e->kind) {
	case EV_CPU:
		c = &w->cpus[e->a];
		if (e->gen != c->plan_gen || !c->curr)
			return;
		cpu_account(w, c);
		if (c->curr->waiting && !c->curr->work &&
		    w->pol->wait == W_YIELD) {
			sched_yield_task(w, c->curr);
			return;
		}
		task_advance(w, c->curr);
		return;
	case EV_TICK:
		c = &w->cpus[e->a];
		cpu_tick(w, c);
		evq_push(&w->q, e->t + (sim_ns)(1e9 / w->p->hz), EV_TICK, e->a,
			 0, 0);
		return;
	case EV_ARRIVE:
		task_arrive(w, &w->tasks[e->a], e->b);
		return;
	case EV_SPIN_END:
		task_spin_end(w, &w->tasks[e->a], e->gen);
		return;
	case EV_WAKE:
		task_wake(w, &w->tasks[e->a], e->gen);
		return;
	case EV_BOOST_START:
		boost_start(w, &w->tasks[e->a], e->gen);
		return;
	case EV_BOOST_END:
		if (e->gen == w->tasks[e->a].boost_gen)
			boost_stop(w, &w->tasks[e->a], 1);
		return;
	case EV_PB:
		pb_examine(w, e->a);
		evq_push(&w->q, pb_next(w, e->a), EV_PB, e->a, 0, 0);
		return;
	case EV_STALL:
		c = &w->cpus[e->a];
		cpu_account(w, c);
		c->stall_until = (w->now > c->stall_until ? w->now :
				  c->stall_until) + US(w->p->stall_us);
		cpu_plan(w, c);
		stall_next(w, e->a);
		return;
	case EV_GANG:
	case EV_GANG_CONT:
		if (e->gen == w->gang_gen)
			gang_event(w, e->kind);
		return;
	}
}

static void world_free(struct world *w)
{
	int i;

	for (i = 0; i < w->nodes; i++) {
		free(w->cpus[i].rq);
		free(w->cpus[i].all);
	}
	for (i = 0; i < w->njobs; i++)
		job_free(&w->jobs[i]);
	free(w->cpus);
	free(w->hosts);
	free(w->tasks);
	evq_free(&w->q);
}

/*
 * The hosts' CLOCK_REALTIME (pba): a seeded epoch within a day, and each
 * host's offset uniform in [-skew_us/2, skew_us/2].  Its own stream, so
 * that the skew changes nothing else a seed draws.
 */
static void clocks(struct world *w, uint64_t seed)
{
	struct rng r;
	int i;

	rng_seed(&r, seed ^ 0xc10c5ULL);
	w->epoch = SEC(1.8e9) + (sim_ns)(rng_unit(&r) * SEC(86400));
	for (i = 0; i < w->nhosts; i++)
		w->hosts[i].clock_off = (sim_ns)((rng_unit(&r) - 0.5) *
						 US(w->p->skew_us));
}

/*
 * A rank's weight at nice 0.  Under autogroup (the guests' and this
 * host's kernels: Documentation/calibration.rst) every job runs in a
 * session of its own (bench/run-mix), and a session's group weighs
 * 1024 in all, spread over the CPUs it runs on: a job's rank weighs
 * 1024 over its job's ranks on the host, a hog or a background task,
 * alone in its session on its CPU, 1024.  Static: the kernel spreads
 * the group's weight by each CPU's recent load (PELT), which a rank
 * that blocks lowers on its CPU; the model keeps the even split.
 */
static int own_weight(const struct world *w, const struct job *jb, int host)
{
	int nodes, ranks;

	if (!w->p->autogroup || jb->competitor)
		return 1024;
	nodes = w->nodes - host * w->cpus_per_host;
	if (nodes > w->cpus_per_host)
		nodes = w->cpus_per_host;
	ranks = nodes * jb->ranks / w->nodes;
	/* never below the kernel's MIN_SHARES (2) */
	return ranks > 1 ? (ranks < 512 ? 1024 / ranks : 2) : 1024;
}

static int world_build(struct world *w, const struct params *p,
		       const struct run_cfg *cfg)
{
	const struct mix *m = cfg->mix;
	int j, r, i, n = 0;
	sim_ns tick = (sim_ns)(1e9 / p->hz);

	memset(w, 0, sizeof(*w));
	w->p = p;
	w->pol = cfg->pol;
	w->eevdf = strcmp(cfg->kernel, "6.1") != 0;
	w->nodes = cfg->nodes;
	w->cpus_per_host = cfg->cpus_per_host;
	w->nhosts = (cfg->nodes + cfg->cpus_per_host - 1) / cfg->cpus_per_host;
	rng_seed(&w->rng, cfg->seed);
	for (j = 0; j < m->njobs; j++) {
		const struct jobspec *s = &m->jobs[j];
		int ranks = s->kind == WL_HOG ? cfg->nodes : cfg->nodes * m->rpn;


		if (cfg->only_job >= 0 && j != cfg->only_job)
			continue;
		job_build(&w->jobs[w->njobs], s, ranks, cfg->seconds,
			  cfg->iters, p);
		if (!w->jobs[w->njobs].competitor)
			w->mpi_left++;
		n += ranks;
		w->njobs++;
	}
	if (p->background_pct > 0 && w->njobs < MAX_JOBS) {
		struct jobspec bg = { .kind = WL_BG };

		snprintf(bg.label, sizeof(bg.label), "background");
		job_build(&w->jobs[w->njobs++], &bg, cfg->nodes, 0, 0, p);
		n += cfg->nodes;
	}
	w->ntasks = n;
	w->tasks = calloc(n, sizeof(*w->tasks));
	w->cpus = calloc(w->nodes, sizeof(*w->cpus));
	w->hosts = calloc(w->nhosts, sizeof(*w->hosts));
	if (!w->tasks || !w->cpus || !w->hosts)
		abort();
	evq_init(&w->q);
	for (i = 0; i < w->nhosts; i++)
		w->hosts[i].pb_phase = (sim_ns)(rng_unit(&w->rng) * tick);
	clocks(w, cfg->seed);
	for (i = 0; i < w->nodes; i++) {
		w->cpus[i].id = i;
		w->cpus[i].host = i / w->cpus_per_host;
		w->cpus[i].all = calloc(n / w->nodes + 2, sizeof(struct task *));
		w->cpus[i].pb_cursor = -1;
	}
	for (j = 0, i = 0; j < w->njobs; j++) {
		struct job *jb = &w->jobs[j];
		int rpn = jb->competitor ? 1 : m->rpn;

		jb->first = i;
		for (r = 0; r < jb->ranks; r++, i++) {
			struct task *t = &w->tasks[i];
			struct cpu *c;

			t->id = i;
			t->job = j;
			t->rank = r;
			t->cpu = r / rpn;
			t->host = t->cpu / w->cpus_per_host;
			t->own_weight = own_weight(w, jb, t->host);
			t->weight = t->own_weight;
			t->send_to = -1;
			t->state = T_WAKING;
			t->rule2_at = 0;
			c = &w->cpus[t->cpu];
			c->all[c->nall++] = t;
		}
	}
	return 0;
}

int sim_init(struct world *w, const struct params *p,
	     const struct run_cfg *cfg)
{
	sim_ns tick = (sim_ns)(1e9 / p->hz);
	int i;

	world_build(w, p, cfg);
	w->limit = SEC(cfg->limit_s);
	for (i = 0; i < w->nodes; i++)
		evq_push(&w->q, w->hosts[w->cpus[i].host].pb_phase + tick,
			 EV_TICK, i, 0, 0);
	if (w->pol->arrival == A_PB)
		for (i = 0; i < w->nhosts; i++) {
			/* pb: the host's own phase; pba: its clock's */
			sim_ns at = (sim_ns)(rng_unit(&w->rng) *
					     US(p->pb_period_us));

			if (w->pol->pick == PB_ALIGNED)
				at = pb_next(w, i);
			evq_push(&w->q, at, EV_PB, i, 0, 0);
		}
	if (w->pol->gang)
		gang_init(w);
	for (i = 0; i < w->nodes; i++)
		stall_next(w, i);
	/* MPI_Init's last barrier releases the ranks within a millisecond */
	for (i = 0; i < w->ntasks; i++)
		evq_push(&w->q, (sim_ns)(rng_unit(&w->rng) * US(1000)), EV_WAKE,
			 i, 0, 0);
	return 0;
}

int sim_step(struct world *w)
{
	struct event e;

	if (w->mpi_left <= 0 || !w->q.n || w->q.h[0].t > w->limit)
		return 0;
	evq_pop(&w->q, &e);
	w->now = e.t;
	w->ctr.events++;
	dispatch(w, &e);
	return 1;
}

void sim_finish(struct world *w, struct result *r)
{
	int i, j, off;

	memset(r, 0, sizeof(*r));
	r->timed_out = w->mpi_left > 0;
	for (j = 0, off = 0; j < w->njobs; j++) {
		struct job *jb = &w->jobs[j];
		sim_ns cpu = 0;

		for (i = 0; i < jb->ranks; i++)
			cpu += w->tasks[off + i].cpu_ns;
		off += jb->ranks;
		if (jb->competitor)
			continue;
		r->job_s[r->njobs] = (jb->finish >= 0 ? jb->finish : w->now) / 1e9;
		if (r->job_s[r->njobs] > r->completion_s)
			r->completion_s = r->job_s[r->njobs];
		r->share[r->njobs] = cpu / 1e9;
		r->njobs++;
	}
	for (j = 0; j < r->njobs; j++)
		r->share[j] /= r->completion_s * w->nodes;
	r->sim_s = w->now / 1e9;
	r->ctr = w->ctr;
	fair_finish(w, r);
	world_free(w);
}

int sim_run(const struct params *p, const struct run_cfg *cfg,
	    struct result *r)
{
	struct world w;
	double t0 = wall();

	sim_init(&w, p, cfg);
	while (sim_step(&w))
		;
	sim_finish(&w, r);
	r->wall_s = wall() - t0;
	return 0;
}

/*
 * Standalone times depend on the job, the nodes, the kernel, the size and
 * the seed, not on the column: a sweep computes each once.
 */
struct alone_key {
	char label[32], kernel[8];
	int nodes, cpus, rpn;
	double seconds;
	long iters;
	uint64_t seed;
	const struct params *p;
};

static struct {
	struct alone_key k;
	double s;
} alone_cache[256];
static int alone_n;

static int alone_find(const struct alone_key *k, double *s)
{
	int i;

	for (i = 0; i < alone_n; i++)
		if (!memcmp(&alone_cache[i].k, k, sizeof(*k))) {
			*s = alone_cache[i].s;
			return 1;
		}
	return 0;
}

static void alone_put(const struct alone_key *k, double s)
{
	int i = alone_n < 256 ? alone_n++ : (int)(k->seed % 256);

	alone_cache[i].k = *k;
	alone_cache[i].s = s;
}

int sim_mix(const struct params *p, const struct run_cfg *cfg,
	    struct result *r)
{
	struct run_cfg one = *cfg;
	struct result alone;
	double seen[MAX_JOBS];
	int j, k, n = 0;

	if (sim_run(p, cfg, r))
		return -1;
	one.pol = policy_find("busy-poll");	/* run-mix: plain MPI alone */
	r->ideal_s = 0;
	for (j = 0; j < cfg->mix->njobs; j++) {
		const struct jobspec *s = &cfg->mix->jobs[j];

		if (s->kind == WL_HOG)
			continue;
		for (k = 0; k < j; k++)
			if (!strcmp(cfg->mix->jobs[k].label, s->label))
				break;
		if (k < j) {	/* the same job was measured once */
			int idx = 0, q;

			for (q = 0; q < k; q++)
				idx += cfg->mix->jobs[q].kind != WL_HOG;
			r->alone_s[n] = seen[idx];
		} else {
			struct alone_key key;

			memset(&key, 0, sizeof(key));	/* memcmp'd: no padding junk */
			snprintf(key.label, sizeof(key.label), "%s", s->label);
			snprintf(key.kernel, sizeof(key.kernel), "%s", cfg->kernel);
			key.nodes = cfg->nodes;
			key.cpus = cfg->cpus_per_host;
			key.rpn = cfg->mix->rpn;
			key.seconds = cfg->seconds;
			key.iters = cfg->iters;
			key.seed = cfg->seed;
			key.p = p;
			if (!alone_find(&key, &r->alone_s[n])) {
				one.only_job = j;
				sim_run(p, &one, &alone);
				r->alone_s[n] = alone.completion_s;
				alone_put(&key, r->alone_s[n]);
			}
		}
		seen[n] = r->alone_s[n];
		r->ideal_s += r->alone_s[n];
		n++;
	}
	r->slowdown = r->ideal_s > 0 ? r->completion_s / r->ideal_s : 0;
	fair_vs_ps(cfg->mix, r);
	return 0;
}
