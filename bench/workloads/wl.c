// SPDX-License-Identifier: GPL-2.0
/*
 * wl.c - options, communication clock, calibration and result line of the
 * MPI workloads; see wl.h.
 */
#define _GNU_SOURCE
#include "wl.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Calibration: samples of at least this much CPU time, and iterations. */
#define CAL_SAMPLES	4
#define CAL_MIN_S	0.02
#define CAL_MIN_ITERS	1

void wl_mpi_fail(struct wl *w, const char *what, int rc)
{
	char msg[MPI_MAX_ERROR_STRING];
	int len = 0;

	if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
		snprintf(msg, sizeof(msg), "error %d", rc);
	fprintf(stderr, "%s: rank %d: %s failed: %s\n", w->name, w->rank,
		what, msg);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

void wl_die(struct wl *w, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: rank %d: ", w->name, w->rank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

void wl_note(struct wl *w, const char *fmt, ...)
{
	va_list ap;

	if (w->quiet || w->rank != 0)
		return;
	fprintf(stderr, "# %s: ", w->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(struct wl *w, const struct wl_spec *s)
{
	const char *const *v;

	if (w->rank == 0) {
		fprintf(stderr,
			"usage: %s (-t seconds | -n iterations) [-v variant] [-s size] [-g grid] [-q]%s\n"
			"  -t  size the run to about this many seconds standalone (CPU-time\n"
			"      calibration; the iteration count is printed as iters=)\n"
			"  -n  run exactly this many iterations (reproduces a -t run)\n"
			"  -q  no progress lines on stderr\n",
			s->name, s->opts ? " [options]" : "");
		if (s->variants) {
			fprintf(stderr, "  -v ");
			for (v = s->variants; *v; v++)
				fprintf(stderr, " %s%s", *v, v == s->variants ? " (default)" : "");
			fputc('\n', stderr);
		}
		if (s->usage)
			fputs(s->usage, stderr);
	}
	MPI_Finalize();
	exit(2);
}

/* A positive number, whole unless @frac; -1 when it is not one. */
static double parse_num(const char *s, int frac)
{
	char *end;
	double v;

	errno = 0;
	v = frac ? strtod(s, &end) : (double)strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0)
		return -1;
	return v;
}

int wl_parse_grid(const char *s, long *dims, int ndims)
{
	const char *p = s;
	char *end = (char *)s;
	int n = 0;

	while (n < ndims) {
		errno = 0;
		dims[n] = strtol(p, &end, 10);
		if (errno || end == p || dims[n] <= 0)
			return -1;
		n++;
		if (*end != 'x')
			break;
		p = end + 1;
	}
	if (*end)
		return -1;
	if (n == 1)	/* one number: a square or cube */
		while (n < ndims)
			dims[n] = dims[0], n++;
	return n == ndims ? 0 : -1;
}

void wl_init(struct wl *w, int *argc, char ***argv, const struct wl_spec *s)
{
	char opts[64] = "t:n:v:s:g:qh";
	const char *const *v;
	int c;

	memset(w, 0, sizeof(*w));
	w->name = s->name;
	w->rank = -1;
	w->variant = s->variants ? s->variants[0] : "-";
	if (MPI_Init(argc, argv) != MPI_SUCCESS) {
		fprintf(stderr, "%s: MPI_Init failed\n", s->name);
		exit(1);
	}
	WL_MPI_CHECK(w, MPI_Comm_rank(MPI_COMM_WORLD, &w->rank));
	WL_MPI_CHECK(w, MPI_Comm_size(MPI_COMM_WORLD, &w->size));
	opterr = w->rank == 0;	/* one complaint, not one per rank */
	if (s->opts)
		strncat(opts, s->opts, sizeof(opts) - strlen(opts) - 1);
	while ((c = getopt(*argc, *argv, opts)) != -1) {
		switch (c) {
		case 't':
			w->target_s = parse_num(optarg, 1);
			if (w->target_s < 0)
				usage(w, s);
			break;
		case 'n':
			w->iters = (long)parse_num(optarg, 0);
			if (w->iters < 0)
				usage(w, s);
			break;
		case 'v':
			for (v = s->variants; v && *v; v++)
				if (!strcmp(*v, optarg))
					break;
			if (!v || !*v)
				usage(w, s);
			w->variant = *v;
			break;
		case 's':
			w->size_arg = (long)parse_num(optarg, 0);
			if (w->size_arg < 0)
				usage(w, s);
			break;
		case 'g':
			w->grid = optarg;
			break;
		case 'q':
			w->quiet = 1;
			break;
		default:
			if (c != 'h' && c != '?' && s->opt &&
			    s->opt(c, optarg, s->priv) == 0)
				break;
			usage(w, s);
		}
	}
	if (!w->iters && !w->target_s)
		w->iters = s->def_iters;
	if (optind != *argc || (w->target_s > 0) == (w->iters > 0))
		usage(w, s);
}

double wl_cpu_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void wl_calibrate(struct wl *w, void (*step)(void *), void *arg,
		  double comm_share)
{
	double t0, cost, best = 0, all;
	int sample;
	long n;

	if (w->iters > 0)
		return;
	/* One untimed round first: page faults and cold caches. */
	step(arg);
	/*
	 * The cheapest of a few samples: whatever else runs (another vCPU's
	 * host, an interrupt) can only make a sample dearer.
	 */
	for (sample = 0; sample < CAL_SAMPLES; sample++) {
		n = 0;
		t0 = wl_cpu_now();
		do {
			step(arg);
			n++;
		} while (n < CAL_MIN_ITERS || wl_cpu_now() - t0 < CAL_MIN_S);
		cost = (wl_cpu_now() - t0) / n;
		if (!sample || cost < best)
			best = cost;
	}
	/* Every rank must run the same count: the slowest one's. */
	WL_MPI_CHECK(w, MPI_Allreduce(&best, &all, 1, MPI_DOUBLE, MPI_MAX,
				      MPI_COMM_WORLD));
	w->iters = (long)(w->target_s * (1 - comm_share) / all + 0.5);
	if (w->iters < 1)
		w->iters = 1;
	wl_note(w, "calibrated: %.3f ms CPU per iteration, %ld iterations for %.1f s",
		all * 1e3, w->iters, w->target_s);
}

/*
 * CLOCK_MONOTONIC in seconds: comparable between the jobs on one node,
 * and never stepped by time synchronisation during a run.
 */
static double wl_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void wl_start(struct wl *w)
{
	WL_MPI_CHECK(w, MPI_Barrier(MPI_COMM_WORLD));
	w->comm = 0;
	w->t0 = MPI_Wtime();
	w->t0_mono = wl_mono();
}

void wl_stop(struct wl *w)
{
	w->elapsed = MPI_Wtime() - w->t0;
}

void wl_report(struct wl *w, const char *extra_fmt, ...)
{
	double mine[2], sum[2], max[2], min_share;
	char extra[512];
	va_list ap;

	mine[0] = w->elapsed;
	mine[1] = w->elapsed > 0 ? w->comm / w->elapsed : 0;
	WL_MPI_CHECK(w, MPI_Reduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, 0,
				   MPI_COMM_WORLD));
	WL_MPI_CHECK(w, MPI_Reduce(mine, max, 2, MPI_DOUBLE, MPI_MAX, 0,
				   MPI_COMM_WORLD));
	WL_MPI_CHECK(w, MPI_Reduce(&mine[1], &min_share, 1, MPI_DOUBLE,
				   MPI_MIN, 0, MPI_COMM_WORLD));
	va_start(ap, extra_fmt);
	vsnprintf(extra, sizeof(extra), extra_fmt, ap);
	va_end(ap);
	/*
	 * time_s: the slowest rank, what a job's completion is.  comm_pct:
	 * the mean over ranks of each one's time in MPI calls over its time.
	 * start_mono: when rank 0's timed part began (CLOCK_MONOTONIC), so
	 * that a runner can place the jobs of one run on one time line.
	 */
	if (w->rank == 0)
		printf("workload=%s variant=%s mpi=%s ranks=%d iters=%ld time_s=%.3f "
		       "comm_pct=%.2f comm_pct_min=%.2f comm_pct_max=%.2f "
		       "start_mono=%.6f %s\n",
		       w->name, w->variant, WL_MPI, w->size, w->iters, max[0],
		       100 * sum[1] / w->size, 100 * min_share, 100 * max[1],
		       w->t0_mono, extra);
	fflush(stdout);
}
