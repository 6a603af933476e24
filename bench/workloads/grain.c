// SPDX-License-Identifier: GPL-2.0
/*
 * grain: a fixed grain of computation, then a ring exchange, again and
 * again: the one workload whose grain is a parameter, for comparing the
 * testbed with native runs (issue 15's validation) and for sweeping the
 * grain.
 *
 * -c US is the grain in native-equivalent microseconds: in a guest that
 * runs user code $COSCHED_DILATION times slower than the host
 * (tests/vm/vmrun.sh --calibrated exports it), a step computes for
 * US x COSCHED_DILATION microseconds of its own CPU time, so that the
 * grain stands in the same proportion to the guest's system calls and
 * context switches as it does on the host.  Unset: 1.
 *
 * The computation is an integer recurrence, timed alone in CPU time
 * before the run (the cheapest of a few samples, the slowest rank's
 * count taken by all).  Each step then sends the step's token to the
 * right neighbour and receives the left one's (MPI_Sendrecv, 8 bytes).
 * Checksum: bad= counts tokens that were not the left neighbour's for
 * that step (0 unless MPI lost or reordered a message).  units= is the
 * step's recurrence count: -u UNITS makes another run do the same work
 * (bench/run-mix passes a standalone run's to the concurrent ones, whose
 * own measurement a loaded host would make smaller).  unit_ns= is what
 * a recurrence step cost during the run, in CPU time, on the slowest
 * rank (one step in SPEED_EVERY timed): a run whose unit_ns differs
 * from its standalone run's computed at another speed (a loaded host
 * slows a guest's vCPUs; CPU time in a guest does not see it), and
 * its slowdown compares unlike work.
 */
#include "wl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_GRAIN_US	100.0
#define UNIT_CHUNK		(1 << 18)	/* timed at once: the clock read costs */
#define UNIT_SAMPLES		5
#define UNIT_MIN_S		0.02
#define SPEED_EVERY		8	/* time one step in this many */

struct opts {
	double grain_us;
	uint64_t units;		/* -u: the step as a run printed it, or 0 */
};

struct step_arg {
	uint64_t units;		/* recurrence steps per grain */
	uint64_t state;
};

static int opt(int c, const char *arg, void *priv)
{
	struct opts *o = priv;
	char *end;

	if (c == 'u') {
		errno = 0;
		o->units = strtoull(arg, &end, 10);
		return errno || *end || !o->units || *arg == '-' ? -1 : 0;
	}
	if (c != 'c')
		return -1;
	o->grain_us = strtod(arg, &end);
	return *end || !(o->grain_us > 0) || o->grain_us > 1e7 ? -1 : 0;
}

/* A dependency chain the compiler can neither shorten nor vectorise. */
static uint64_t spin(uint64_t x, uint64_t n)
{
	while (n--) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

static void step(void *p)
{
	struct step_arg *a = p;

	a->state = spin(a->state, a->units);
}

/* CPU seconds per recurrence step here; the cheapest sample. */
static double unit_cost(void)
{
	double best = 0, t0, cost;
	uint64_t x = 1, n;
	int s;

	x = spin(x, UNIT_CHUNK);	/* warm up */
	for (s = 0; s < UNIT_SAMPLES; s++) {
		n = 0;
		t0 = wl_cpu_now();
		do {
			x = spin(x, UNIT_CHUNK);
			n += UNIT_CHUNK;
		} while (wl_cpu_now() - t0 < UNIT_MIN_S);
		cost = (wl_cpu_now() - t0) / n;
		if (!s || cost < best)
			best = cost;
	}
	return best;
}

/* $COSCHED_DILATION, or 1 when unset; a bad value ends the job. */
static double dilation(struct wl *w)
{
	const char *s = getenv("COSCHED_DILATION");
	char *end;
	double d;

	if (!s || !*s)
		return 1.0;
	d = strtod(s, &end);
	if (*end || !(d > 0) || d > 1000)
		wl_die(w, "COSCHED_DILATION=%s is not a factor in (0, 1000]", s);
	return d;
}

int main(int argc, char **argv)
{
	struct opts o = { .grain_us = DEFAULT_GRAIN_US };
	const struct wl_spec spec = {
		.name = "grain",
		.usage = "  -c US  native-equivalent microseconds of computation per step\n"
			 "         (default 100; times $COSCHED_DILATION)\n"
			 "  -u N   the step's recurrence count as a run printed it (units=):\n"
			 "         the same work as that run, whatever this one measures\n"
			 "  -n     steps\n",
		.opts = "c:u:",
		.opt = opt,
		.priv = &o,
	};
	struct step_arg a = { .state = 1 };
	double cost, slowest, dil, local_us, t0, timed_cpu = 0;
	double unit_ns, max_unit_ns = 0;
	long timed = 0;
	long i, bad = 0, all_bad = 0;
	int left, right;
	struct wl w;

	wl_init(&w, &argc, &argv, &spec);
	if (w.grid || w.size_arg)
		wl_die(&w, "grain takes -c, -n or -t only");
	dil = dilation(&w);
	local_us = o.grain_us * dil;
	if (o.units) {
		a.units = o.units;
	} else {
		cost = unit_cost();
		WL_MPI_CHECK(&w, MPI_Allreduce(&cost, &slowest, 1, MPI_DOUBLE,
					       MPI_MAX, MPI_COMM_WORLD));
		a.units = (uint64_t)(local_us * 1e-6 / slowest + 0.5);
		if (!a.units)
			a.units = 1;
	}
	wl_calibrate(&w, step, &a, 0.0);
	wl_note(&w, "grain %.1f us native-equivalent, %.1f us here (dilation %.2f), "
		"%llu units, %ld steps", o.grain_us, local_us, dil,
		(unsigned long long)a.units, w.iters);

	right = (w.rank + 1) % w.size;
	left = (w.rank + w.size - 1) % w.size;
	wl_start(&w);
	for (i = 0; i < w.iters; i++) {
		long out = i * w.size + w.rank, in = -1;

		if (i % SPEED_EVERY) {
			step(&a);
		} else {
			t0 = wl_cpu_now();
			step(&a);
			timed_cpu += wl_cpu_now() - t0;
			timed++;
		}
		WL_MPI_CALL(&w, MPI_Sendrecv(&out, 1, MPI_LONG, right, 0, &in, 1,
					     MPI_LONG, left, 0, MPI_COMM_WORLD,
					     MPI_STATUS_IGNORE));
		bad += in != i * w.size + left;
	}
	wl_stop(&w);

	WL_MPI_CHECK(&w, MPI_Reduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, 0,
				    MPI_COMM_WORLD));
	unit_ns = timed ? timed_cpu * 1e9 / ((double)timed * a.units) : 0;
	WL_MPI_CHECK(&w, MPI_Reduce(&unit_ns, &max_unit_ns, 1, MPI_DOUBLE,
				    MPI_MAX, 0, MPI_COMM_WORLD));
	wl_report(&w, "grain_us=%g dilation=%g local_grain_us=%.1f units=%llu steps=%ld bad=%ld unit_ns=%.4f",
		  o.grain_us, dil, local_us, (unsigned long long)a.units, w.iters,
		  all_bad, max_unit_ns);
	MPI_Finalize();
	return 0;
}
