// SPDX-License-Identifier: GPL-2.0
/*
 * The aligned periodic boost (pba), watched from outside: every 100 us of
 * simulated time the test looks at which job each CPU runs boosted
 * (SCHED_FIFO).  With synchronised clocks every node boosts the same job
 * at the same time (alignment), both jobs get their turns (rotation), and
 * a boost ends before the next boundary even when boost_us is longer
 * than the period; a 10 ms skew at a 10 ms period loses the alignment.
 * One host per node (--cpus 1), so each node has its own clock.
 */
#include <string.h>

#include "tap.h"

struct obs {
	long boosted;		/* samples with a boost on some CPU */
	long aligned;		/* ... with every CPU boosting the same job */
	long periods, wins[MAX_JOBS];	/* CPU 0's job 1 ms into a period */
	long late;		/* samples in a period's last 100 us, boosted */
};

/* The job boosted on CPU C, or -1. */
static int fifo_job(struct world *w, int c)
{
	struct cpu *cp = &w->cpus[c];
	int k;

	for (k = 0; k < cp->nall; k++)
		if (cp->all[k]->fifo)
			return cp->all[k]->job;
	return -1;
}

static void sample(struct world *w, sim_ns at, struct obs *o)
{
	sim_ns period = US(w->p->pb_period_us);
	sim_ns in = (w->epoch + at) % period;	/* an unskewed clock's */
	int c, job = fifo_job(w, 0), same = job >= 0, any = job >= 0;

	for (c = 1; c < w->nodes; c++) {
		int j = fifo_job(w, c);

		any |= j >= 0;
		same &= j == job;
	}
	o->boosted += any;
	o->aligned += same;
	if (in >= US(1000) && in < US(1100)) {
		o->periods++;
		if (job >= 0)
			o->wins[job]++;
	}
	if (in >= period - US(100))
		o->late += any;
}

/* Two LIFE jobs on NODES nodes under POL, sampled while both run. */
static void watch(const struct params *p, const char *pol, int nodes,
		  struct obs *o)
{
	struct mix m;
	struct run_cfg c = {
		.mix = &m, .pol = policy_find(pol), .kernel = "6.12",
		.nodes = nodes, .cpus_per_host = 1, .seconds = 1,
		.limit_s = 200, .seed = 1, .only_job = -1,
	};
	struct world w;
	struct result r;
	sim_ns next = US(100);

	memset(o, 0, sizeof(*o));
	tap_mix(&m, "two", 2, "life -v hi");
	sim_init(&w, p, &c);
	for (;;) {
		/* the state at NEXT: every event up to NEXT is done */
		while (w.mpi_left == 2 && w.q.n && w.q.h[0].t > next) {
			sample(&w, next, o);
			next += US(100);
		}
		if (!sim_step(&w))
			break;
	}
	sim_finish(&w, &r);
}

int main(void)
{
	struct params p;
	struct obs o;
	double f0, f100, f10k, share;
	int nodes;

	tap_params(&p, "6.12");
	for (nodes = 2; nodes <= 8; nodes *= 2) {
		watch(&p, "pba", nodes, &o);
		f0 = (double)o.aligned / o.boosted;
		ok(o.boosted > 0 && f0 > 0.95,
		   "pba, 2 jobs on %d nodes, no skew: the same job boosted on every node in %.1f%% of %ld boosted samples",
		   nodes, 100 * f0, o.boosted);
		share = (double)o.wins[0] / o.periods;
		ok(o.periods > 50 && share > 0.25 && share < 0.75,
		   "pba, 2 jobs on %d nodes: job 1 boosted in %ld, job 2 in %ld of %ld periods",
		   nodes, o.wins[0], o.wins[1], o.periods);
	}
	p.skew_us = 100;
	watch(&p, "pba", 4, &o);
	f100 = (double)o.aligned / o.boosted;
	p.skew_us = 10000;
	watch(&p, "pba", 4, &o);
	f10k = (double)o.aligned / o.boosted;
	ok(f100 > 0.85, "pba on 4 nodes, 100 us skew: aligned in %.1f%% of boosted samples",
	   100 * f100);
	ok(f10k < 0.5, "pba on 4 nodes, 10 ms skew at a 10 ms period: aligned in %.1f%% of boosted samples",
	   100 * f10k);

	/* The measure behind Documentation/results/sim/pba's skew table. */
	for (nodes = 4; nodes <= 16; nodes *= 4) {
		static const double skews[] = { 0, 100, 1000, 5000, 10000 };
		unsigned int i;

		for (i = 0; i < sizeof(skews) / sizeof(skews[0]); i++) {
			p.skew_us = skews[i];
			watch(&p, "pba", nodes, &o);
			printf("# pba, 2 jobs on %d nodes, skew %g us: aligned in %.1f%% of %ld boosted samples\n",
			       nodes, skews[i], 100.0 * o.aligned / o.boosted,
			       o.boosted);
		}
	}

	p.skew_us = 0;
	p.boost_us = 2 * p.pb_period_us;
	watch(&p, "pba", 2, &o);
	ok(o.boosted > 0 && !o.late,
	   "pba with boost_us = 2 periods: %ld boosted samples, %ld of them in a period's last 100 us",
	   o.boosted, o.late);
	return tap_done();
}
