/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wl.h - what the MPI workloads (life, mg, lu, ep, barrier) share: their
 * options, the clock that charges time spent inside MPI calls to
 * communication, the calibration of work to a target time, and the one
 * machine-readable result line rank 0 prints at the end.
 *
 * Plain MPI, nothing of cosched: the workloads stand for the applications
 * a user would run, and whatever coschedules them must do it from outside.
 */
#ifndef WL_H
#define WL_H

#include <mpi.h>
#include <stdint.h>

#ifndef WL_MPI
#define WL_MPI "unknown"
#endif

struct wl {
	const char *name;	/* workload=, as printed */
	const char *variant;	/* -v, "-" when the workload has none */
	int rank, size;
	double target_s;	/* -t, 0 when -n was given */
	long iters;		/* -n, or what -t calibrated */
	long size_arg;		/* -s, 0: the variant's default */
	const char *grid;	/* -g, a global size instead of a per-rank one */
	int quiet;		/* -q: no progress lines on stderr */
	double t0;		/* MPI_Wtime() when the timed part began */
	double t0_mono;		/* the same moment on CLOCK_MONOTONIC */
	double comm;		/* seconds inside MPI calls since t0 */
	double elapsed;		/* set by wl_stop */
};

/*
 * Run an MPI call, charging its time to communication.  Errors abort the
 * whole job: a workload that half-fails would only produce wrong numbers.
 */
#define WL_MPI_CALL(w, call) do {					\
	double wl_t_ = MPI_Wtime();					\
	int wl_rc_ = (call);						\
	(w)->comm += MPI_Wtime() - wl_t_;				\
	if (wl_rc_ != MPI_SUCCESS)					\
		wl_mpi_fail((w), #call, wl_rc_);			\
} while (0)

/* An MPI call outside the timed part (setup, calibration, reporting). */
#define WL_MPI_CHECK(w, call) do {					\
	int wl_rc_ = (call);						\
	if (wl_rc_ != MPI_SUCCESS)					\
		wl_mpi_fail((w), #call, wl_rc_);			\
} while (0)

void wl_mpi_fail(struct wl *w, const char *what, int rc)
	__attribute__((noreturn));

/* Print a message from rank 0 (or any rank with -1) and abort the job. */
void wl_die(struct wl *w, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

/*
 * MPI_Init, then the common options: -t seconds | -n iterations, -v variant,
 * -s size, -g global grid, -q, and the workload's own (@s->opts, handed to
 * @s->opt).  Exits with status 2 and a usage message on bad options.
 */
struct wl_spec {
	const char *name;
	const char *const *variants;	/* NULL-terminated, first: default */
	const char *usage;		/* the workload's options, for usage */
	long def_iters;			/* 0: -t or -n is required */
	const char *opts;		/* extra getopt letters, or NULL */
	/* One extra option; returns 0, or -1 for a bad value. */
	int (*opt)(int c, const char *arg, void *priv);
	void *priv;
};

void wl_init(struct wl *w, int *argc, char ***argv, const struct wl_spec *s);

/* Thread CPU time in seconds: what a competitor on the CPU cannot inflate. */
double wl_cpu_now(void);

/*
 * With -t: turn the target time into an iteration count.  @step runs one
 * iteration's computation without communication; it is timed in CPU time
 * (so a loaded node calibrates like an idle one), the slowest rank's cost
 * is taken, and the count is chosen so that the computation alone fills
 * (1 - @comm_share) of the target: the nominal communication share fills
 * the rest.  Leaves w->iters as given with -n.  Run before wl_start.
 */
void wl_calibrate(struct wl *w, void (*step)(void *), void *arg,
		  double comm_share);

/* All ranks line up, then the timed part begins. */
void wl_start(struct wl *w);

/* The timed part ends (the checksum's reduction comes after, untimed). */
void wl_stop(struct wl *w);

/*
 * Gather every rank's time and communication share; rank 0 prints one
 * line of key=value pairs, beginning with workload=, and ending with
 * @extra_fmt (the workload's checksum and sizes).
 */
void wl_report(struct wl *w, const char *extra_fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A progress line on stderr from rank 0, unless -q. */
void wl_note(struct wl *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Parse "RxC" or "N" (N: a cube or square of that side) into dims. */
int wl_parse_grid(const char *s, long *dims, int ndims);

/* A 64-bit mixing function: deterministic pseudo-random data by index. */
static inline uint64_t wl_hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif
