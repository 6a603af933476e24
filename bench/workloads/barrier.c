// SPDX-License-Identifier: GPL-2.0
/*
 * barrier: MPI_Barrier with one rank late, after Warfel's barrier
 * measurements (1000 runs, average, minimum and maximum; one cell entering
 * late).  First -n barriers with every rank on time give the barrier's
 * own cost; then -n barriers in each of which the delayed rank computes
 * for -d microseconds before it enters.
 *
 * Reported, in microseconds, each as avg/min/max over the barriers:
 *   base_*   time in the barrier, no delay (mean over ranks);
 *   exec_*   time the late rank spends in it: from the last arrival to its
 *            own exit, the barrier's execution time;
 *   wait_*   time the punctual ranks spend in it: the delay plus that;
 * and wait_pred_us = delay + base_avg, what wait_avg would be if a late
 * arrival cost nothing extra.  Each rank times itself, so no global clock
 * is needed and the numbers hold on a real cluster too.
 */
#include "wl.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>

struct stat {
	double sum, min, max;
	long n;
};

struct opts {
	double delay_us;
	int late;		/* -1: the last rank */
};

static void stat_add(struct stat *s, double v)
{
	if (!s->n || v < s->min)
		s->min = v;
	if (!s->n || v > s->max)
		s->max = v;
	s->sum += v;
	s->n++;
}

static int opt(int c, const char *arg, void *priv)
{
	struct opts *o = priv;
	char *end;

	if (c == 'd') {
		o->delay_us = strtod(arg, &end);
		return *end || o->delay_us < 0 ? -1 : 0;
	}
	if (c == 'r') {
		o->late = (int)strtol(arg, &end, 10);
		return *end || o->late < 0 ? -1 : 0;
	}
	return -1;
}

/* Busy, not asleep: the late rank is a rank still computing. */
static void compute_for(double us)
{
	double end = MPI_Wtime() + us * 1e-6;

	while (MPI_Wtime() < end)
		;
}

/* Time @n barriers; @late_rank computes @delay_us before each. */
static void run(struct wl *w, long n, int late_rank, double delay_us,
		struct stat *s)
{
	double t;
	long i;

	for (i = 0; i < n; i++) {
		if (w->rank == late_rank)
			compute_for(delay_us);
		t = MPI_Wtime();
		WL_MPI_CALL(w, MPI_Barrier(MPI_COMM_WORLD));
		stat_add(s, (MPI_Wtime() - t) * 1e6);
	}
}

/* Reduce one rank's stat (or none, n = 0) to rank 0: avg, min, max. */
static void gather(struct wl *w, const struct stat *s, double out[3])
{
	double in[3] = { s->n ? s->sum : 0, s->n ? s->min : DBL_MAX,
			 s->n ? -s->max : DBL_MAX };
	double sum = 0, mm[2] = { 0, 0 }, mmin[2] = { in[1], in[2] };
	long n = s->n, total = 0;

	WL_MPI_CHECK(w, MPI_Reduce(&in[0], &sum, 1, MPI_DOUBLE, MPI_SUM, 0,
				   MPI_COMM_WORLD));
	WL_MPI_CHECK(w, MPI_Reduce(mmin, mm, 2, MPI_DOUBLE, MPI_MIN, 0,
				   MPI_COMM_WORLD));
	WL_MPI_CHECK(w, MPI_Reduce(&n, &total, 1, MPI_LONG, MPI_SUM, 0,
				   MPI_COMM_WORLD));
	out[0] = total ? sum / total : 0;
	out[1] = mm[0];
	out[2] = -mm[1];
}

int main(int argc, char **argv)
{
	static struct opts o = { .delay_us = 1000, .late = -1 };
	static const struct wl_spec spec = {
		.name = "barrier",
		.def_iters = 1000,
		.usage = "  -n  barriers per phase (default 1000)\n"
			 "  -d  microseconds the late rank computes before each (default 1000)\n"
			 "  -r  the late rank (default the last)\n",
		.opts = "d:r:",
		.opt = opt,
		.priv = &o,
	};
	struct stat base = { 0 }, late = { 0 }, none = { 0 }, *mine;
	double b[3], e[3], wt[3];
	struct wl w;

	wl_init(&w, &argc, &argv, &spec);
	if (w.target_s > 0 || w.grid || w.size_arg)
		wl_die(&w, "barrier takes -n, -d and -r only");
	if (w.size < 2)
		wl_die(&w, "needs at least 2 ranks");
	if (o.late < 0)
		o.late = w.size - 1;
	if (o.late >= w.size)
		wl_die(&w, "-r %d: only %d ranks", o.late, w.size);

	/* A few rounds first: connections are set up on first use. */
	run(&w, 10, -1, 0, &none);
	none = (struct stat){ 0 };
	wl_start(&w);
	run(&w, w.iters, -1, 0, &base);
	run(&w, w.iters, o.late, o.delay_us, &late);
	wl_stop(&w);

	gather(&w, &base, b);
	/* The late rank's times are exec, the others' are wait. */
	mine = w.rank == o.late ? &late : &none;
	gather(&w, mine, e);
	mine = w.rank == o.late ? &none : &late;
	gather(&w, mine, wt);
	wl_report(&w, "barriers=%ld delay_us=%.1f late_rank=%d "
		  "base_avg_us=%.2f base_min_us=%.2f base_max_us=%.2f "
		  "exec_avg_us=%.2f exec_min_us=%.2f exec_max_us=%.2f "
		  "wait_avg_us=%.2f wait_min_us=%.2f wait_max_us=%.2f wait_pred_us=%.2f",
		  w.iters, o.delay_us, o.late, b[0], b[1], b[2], e[0], e[1], e[2],
		  wt[0], wt[1], wt[2], o.delay_us + b[0]);
	MPI_Finalize();
	return 0;
}
