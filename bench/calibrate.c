// SPDX-License-Identifier: GPL-2.0
/*
 * calibrate: the probe behind bench/calibrate.  Measures, on whatever
 * kernel it runs (the host, or a guest under TCG), how fast this machine
 * runs user-space computation, a cheap system call and a pipe round trip
 * between two processes on one CPU and on two.  bench/calibrate runs it
 * natively and in a guest and divides: the ratio of the compute row is
 * the guest's dilation factor.
 *
 * Every row is timed over -r repeats of a fixed amount of work (after one
 * repeat to warm up) and printed as one line:
 *   <row> <unit> <median> <q1> <q3> <min> <max> <repeats>
 * The scheduler rows are the exception: wall time, not work (quantum_row,
 * wake_row), stretched by $COSCHED_DILATION when it is set.
 * Nothing else runs meanwhile: the caller holds the guest lock.
 *
 * usage: calibrate [-r repeats] [-s scale] [-q | -Q | -w seconds]
 *   -s divides every batch; -q measures the scheduler rows only, -Q the
 *   quantum row only; -w prints the compute row's batches one by one
 *   for that long instead (watch_compute; -r does not apply)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

#define MAX_REPEATS 1000
#define COMPUTE_BATCH 8000000	/* the compute row's iterations a batch */
#define WATCH_MIN_BATCH 10000	/* -w: fewer would time the clock reads */

static int repeats = 11, scale = 1;
static double dilation = 1.0;	/* $COSCHED_DILATION: the scheduler rows' time scale */
static int cpu_a, cpu_b = -1;	/* the first two CPUs we may run on */
static volatile uint64_t sink;	/* keeps the compute loops' results alive */

/*
 * The compute loops: each iteration depends on the one before, so the
 * compiler can neither drop nor vectorise them.  int: xorshift; fp: a
 * multiply-add chain (converges to 1.0, never denormal); mem: loads and
 * stores in an L1-sized array; compute: all three in one loop, the row
 * that gives the dilation factor.
 */
static uint64_t arr[2048];

static void loop_int(long n)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	while (n--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	sink = x;
}

static void loop_fp(long n)
{
	double f = 0.5;

	while (n--)
		f = f * 0.999999 + 1e-6;
	sink = (uint64_t)(f * 1e6);
}

static void loop_mem(long n)
{
	uint64_t i = 0, s = 1;

	while (n--) {
		s += arr[i];
		arr[(i + 7) & 2047] = s;
		i = (i + s) & 2047;
	}
	sink = s;
}

static void loop_compute(long n)
{
	uint64_t x = 0x9e3779b97f4a7c15ull, i = 0;
	double f = 0.5;

	while (n--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		f = f * 0.999999 + (double)(x >> 40) * 1e-18;
		arr[i] += x;
		i = (i + arr[(i + 1) & 2047]) & 2047;
	}
	sink = x + i + (uint64_t)(f * 1e6);
}

static void do_getppid(long n)
{
	while (n--)
		sink += (uint64_t)getppid();
}

/* Pipe round trips: a child on @child_cpu echoes each byte it reads. */
static int to_child[2], to_parent[2];
static pid_t child;

static int pipe_start(int child_cpu)
{
	char c;

	if (pipe(to_child) || pipe(to_parent))
		return -1;
	child = fork();
	if (child < 0)
		return -1;
	if (!child) {
		close(to_child[1]);
		close(to_parent[0]);
		if (pin_cpu(child_cpu))
			_exit(1);
		while (read(to_child[0], &c, 1) == 1)
			if (write(to_parent[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);
	return 0;
}

static void pipe_trips(long n)
{
	char c = 'x';

	while (n--) {
		if (write(to_child[1], &c, 1) != 1 ||
		    read(to_parent[0], &c, 1) != 1) {
			perror("calibrate: pipe");
			exit(1);
		}
	}
}

static void pipe_stop(void)
{
	close(to_child[1]);
	close(to_parent[0]);
	waitpid(child, NULL, 0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One row from its -r values: median, quartiles, extremes (sorts @t). */
static void print_row(const char *name, const char *unit, double *t)
{
	qsort(t, (size_t)repeats, sizeof(t[0]), cmp_double);
	printf("%s %s %.4f %.4f %.4f %.4f %.4f %d\n", name, unit,
	       t[repeats / 2], t[repeats / 4], t[(3 * repeats) / 4],
	       t[0], t[repeats - 1], repeats);
	fflush(stdout);
}

/* Time @fn(@n) -r times; print the time per unit of n (@unit: ns/.., us/..). */
static void row(const char *name, const char *unit, void (*fn)(long), long n)
{
	double t[MAX_REPEATS], div = unit[0] == 'u' ? 1e3 : 1.0;
	uint64_t t0;
	int i;

	n /= scale;
	if (n < 1)
		n = 1;
	fn(n);			/* warm up: caches, page faults, frequency */
	for (i = 0; i < repeats; i++) {
		t0 = now_ns();
		fn(n);
		t[i] = (double)(now_ns() - t0) / (double)n / div;
	}
	print_row(name, unit, t);
}

/*
 * -w: the compute row's batches one by one for @secs, a line each
 * ("<seconds since start> <ns/iter>"), to see whether this machine runs
 * the same work at one speed from second to second (on a shared host it
 * may not: Documentation/results/calibration/host-speed/).
 */
static int watch_compute(double secs)
{
	long n = COMPUTE_BATCH / scale;
	uint64_t start, t0;

	if (n < WATCH_MIN_BATCH) {
		fprintf(stderr, "calibrate: -w with -s %d: batches under %d iterations\n",
			scale, WATCH_MIN_BATCH);
		return 2;
	}
	loop_compute(n);	/* warm up */
	start = now_ns();
	do {
		t0 = now_ns();
		loop_compute(n);
		printf("%.6f %.4f\n", (double)(t0 - start) / 1e9,
		       (double)(now_ns() - t0) / (double)n);
		if (fflush(stdout)) {
			perror("calibrate: -w");
			return 1;
		}
	} while ((double)(now_ns() - start) < secs * 1e9);
	return 0;
}

/*
 * A CPU hog on our CPU (inherited affinity) for the scheduler rows; it
 * dies with us, however we end.  It counts its loops in @hog_loops,
 * shared with us, so that a gap in our run can be told apart: the hog's
 * turn if the count moved, an interrupt (a tick under TCG can take
 * longer than any fixed threshold) if not.
 */
static volatile uint64_t *hog_loops;

static pid_t start_hog(void)
{
	pid_t parent = getpid(), hog;

	if (!hog_loops) {
		hog_loops = mmap(NULL, sizeof(*hog_loops), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (hog_loops == MAP_FAILED) {
			perror("calibrate: mmap");
			exit(1);
		}
	}
	hog = fork();

	if (hog < 0) {
		perror("calibrate: fork");
		exit(1);
	}
	if (!hog) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		for (;;)
			(*hog_loops)++;
	}
	return hog;
}

static void stop_hog(pid_t hog)
{
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);
}

/*
 * The scheduler's effective quantum: how long a task that never sleeps
 * keeps its CPU while another such task waits for it.  A slice that runs
 * out is noticed at the next tick (or the next wake-up on that CPU), so
 * with nothing else on the CPU this is what slice and tick make together
 * (a host whose slice is shorter than its tick gives the tick).  A hog
 * shares our CPU; we spin reading the clock, and a gap of more than
 * QUANTUM_GAP_NS (times the dilation) between two reads during which the
 * hog's count moved is the hog's turn.  Each repeat is the median length
 * of our runs within QUANTUM_WINDOW_NS, the first (begun before the
 * window) left out.
 */
#define QUANTUM_GAP_NS 200000.0
#define QUANTUM_WINDOW_NS 400000000ull
#define QUANTUM_MAX_RUNS 4096

static double median_run_ms(void)
{
	static double runs[QUANTUM_MAX_RUNS];
	uint64_t start = 0, last, t, end, gap = (uint64_t)(QUANTUM_GAP_NS * dilation);
	uint64_t seen = *hog_loops, now;
	int n = -1;

	last = now_ns();
	end = last + QUANTUM_WINDOW_NS;
	while (last < end && n < QUANTUM_MAX_RUNS) {
		t = now_ns();
		if (t - last > gap && (now = *hog_loops) != seen) {
			if (n >= 0)
				runs[n] = (double)(last - start) / 1e6;
			n++;
			start = t;
			seen = now;
		}
		last = t;
	}
	if (n < 1)
		return -1;
	qsort(runs, (size_t)n, sizeof(runs[0]), cmp_double);
	return runs[n / 2];
}

static void quantum_row(void)
{
	double t[MAX_REPEATS];
	pid_t hog = start_hog();
	int i;

	median_run_ms();	/* warm up: let both settle on the CPU */
	for (i = 0; i < repeats; i++) {
		t[i] = median_run_ms();
		if (t[i] < 0)
			break;
	}
	stop_hog(hog);
	if (i < repeats) {
		fprintf(stderr, "calibrate: quantum: the CPU was never taken from us within %llu ms\n",
			QUANTUM_WINDOW_NS / 1000000);
		exit(1);
	}
	print_row("quantum", "ms/run", t);
}

/*
 * How late a task sharing its CPU with a hog runs after its sleep was
 * due: it sleeps a varied time (0.5-8 ms, times the dilation, so that it
 * wakes at the same points of the hog's quantum as natively) and takes
 * now - the time the sleep was due.  With @spin_ns 0 it runs a few
 * microseconds between sleeps, is owed CPU time and may preempt the hog
 * at once; with @spin_ns (times the dilation) it has used its share first,
 * so whether it preempts depends on the slice's protection of the hog.
 * Timer slack is 1 ns (the default 50 us is not dilated).  Each repeat is
 * the mean over WAKES_PER_REPEAT wake-ups.
 */
#define WAKES_PER_REPEAT 50

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static double mean_wake_ms(uint64_t spin_ns, uint64_t *rng)
{
	struct timespec ts;
	uint64_t due, sum = 0, until;
	int i, err;

	for (i = 0; i < WAKES_PER_REPEAT; i++) {
		until = now_ns() + (uint64_t)((double)spin_ns * dilation);
		while (now_ns() < until)
			sink++;
		due = now_ns() + (uint64_t)((500000.0 + (double)(xorshift(rng) % 7500000)) * dilation);
		ts.tv_sec = (time_t)(due / 1000000000ull);
		ts.tv_nsec = (long)(due % 1000000000ull);
		while ((err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR)
			;
		if (err)
			return -err;
		sum += now_ns() - due;
	}
	return (double)sum / WAKES_PER_REPEAT / 1e6;
}

static void wake_row(const char *name, uint64_t spin_ns)
{
	double t[MAX_REPEATS], v;
	uint64_t rng = 0x2545f4914f6cdd1dull;
	pid_t hog;
	int i;

	prctl(PR_SET_TIMERSLACK, 1UL);
	hog = start_hog();
	v = mean_wake_ms(spin_ns, &rng);	/* warm up */
	for (i = 0; i < repeats && v >= 0; i++)
		v = t[i] = mean_wake_ms(spin_ns, &rng);
	stop_hog(hog);
	if (v < 0) {
		fprintf(stderr, "calibrate: %s: clock_nanosleep: %s\n", name, strerror((int)-v));
		exit(1);
	}
	print_row(name, "ms/wake", t);
}

static void sched_rows(int quantum_only)
{
	quantum_row();
	if (quantum_only)
		return;
	wake_row("wake-behind-hog", 0);
	wake_row("wake-after-spin", 2000000);
}

static void pipe_row(const char *name, int cpu, long n)
{
	if (pipe_start(cpu)) {
		perror("calibrate: pipe/fork");
		exit(1);
	}
	row(name, "us/trip", pipe_trips, n);
	pipe_stop();
}

/* $COSCHED_DILATION, if set: a factor in [0.01, 1000], else refused. */
static int read_dilation(void)
{
	const char *env = getenv("COSCHED_DILATION");
	char *end;

	if (!env || !*env)
		return 0;
	dilation = strtod(env, &end);
	if (*end || !(dilation >= 0.01 && dilation <= 1000)) {
		fprintf(stderr, "calibrate: COSCHED_DILATION=%s is not a factor in [0.01, 1000]\n", env);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	cpu_set_t set;
	int opt, c, sched = 0;
	double watch = 0;
	char *end;

	while ((opt = getopt(argc, argv, "r:s:qQw:")) != -1) {
		switch (opt) {
		case 'r':
			repeats = atoi(optarg);
			break;
		case 's':
			scale = atoi(optarg);
			break;
		case 'q':
			sched = 1;
			break;
		case 'Q':
			sched = 2;
			break;
		case 'w':
			watch = strtod(optarg, &end);
			if (*end || !(watch > 0 && watch <= 86400)) {
				fprintf(stderr, "calibrate: -w takes seconds in (0, 86400]\n");
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: calibrate [-r repeats] [-s scale] [-q | -Q | -w seconds]\n");
			return 2;
		}
	}
	if (watch > 0 && sched) {
		fprintf(stderr, "calibrate: -w goes with neither -q nor -Q\n");
		return 2;
	}
	if (repeats < 3 || repeats > MAX_REPEATS || scale < 1) {
		fprintf(stderr, "calibrate: -r 3-%d, -s >= 1\n", MAX_REPEATS);
		return 2;
	}
	if (read_dilation())
		return 2;
	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	cpu_a = -1;
	for (c = 0; c < CPU_SETSIZE; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		if (cpu_a < 0)
			cpu_a = c;
		else if (cpu_b < 0)
			cpu_b = c;
	}
	if (pin_cpu(cpu_a)) {
		perror("calibrate: pin");
		return 1;
	}
	if (watch > 0)
		return watch_compute(watch);
	if (sched) {
		sched_rows(sched == 2);
		return 0;
	}
	/* Batches of about 10-30 ms natively on this machine kind. */
	row("compute", "ns/iter", loop_compute, COMPUTE_BATCH);
	row("compute-int", "ns/iter", loop_int, 20000000);
	row("compute-fp", "ns/iter", loop_fp, 5000000);
	row("compute-mem", "ns/iter", loop_mem, 10000000);
	row("getppid", "ns/call", do_getppid, 100000);
	pipe_row("pipe-same-cpu", cpu_a, 2000);
	if (cpu_b >= 0)
		pipe_row("pipe-cross-cpu", cpu_b, 300);
	sched_rows(0);
	return 0;
}
