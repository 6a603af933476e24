// SPDX-License-Identifier: GPL-2.0
/*
 * task_test.c - bpf/mon_task.c against this thread's own runtime.
 *
 * The case: a thread's switch in was never traced (the 6.18 host drops
 * some), so its BPF record still says "off since its last switch out"
 * while it runs.  The record is replayed as the BPF side would hold it:
 * snapshot A while it runs untraced, then the traced switch out folds
 * the run in, snapshot B.  Between A and B hardly any time passes, so
 * B - A must show hardly any on-CPU time; counting the run as off at A
 * and as on at B printed CPU shares of 1.18 in CI.  Also: a thread on a
 * CPU with a traced switch in, and one that is blocked.
 *
 * TAP; the last line is "N passed, N failed".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mon.h"

static int passed, failed;

static void check(int ok, const char *what, double got_ms)
{
	printf("%sok - %s (%.1f ms)\n", ok ? "" : "not ", what, got_ms);
	if (ok)
		passed++;
	else
		failed++;
}

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* What the scheduler says this thread has run (se.sum_exec_runtime). */
static __u64 my_runtime(void)
{
	unsigned long long sum = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (f) {
		if (fscanf(f, "%llu", &sum) != 1)
			sum = 0;
		fclose(f);
	}
	return sum;
}

static void spin_ms(int ms)
{
	__u64 end = mono_ns() + ms * 1000000ull;

	while (mono_ns() < end)
		;
}

static double ms(__u64 ns)
{
	return ns / 1e6;
}

static struct mon_snap a, b;

/* A scheduler tick: how stale a running thread's schedstat may be. */
#define TICK_NS	10000000ull

int main(void)
{
	static struct mon_task t;
	__u32 tid = gettid();
	__u64 t0, s0, ta, tb, sb, ran;

	/*
	 * By its presence, not its value: a thread read before its first
	 * tick or switch shows a runtime of 0 (seen on the 6.18 host).
	 */
	if (access("/proc/thread-self/schedstat", R_OK)) {
		printf("# no /proc/thread-self/schedstat: nothing to test\n");
		printf("0 passed, 0 failed\n");
		return 0;
	}
	/* Traced switch out at t0, then an untraced switch in. */
	t.job = 0;
	t.tgid = getpid();
	t.cpu = 0;
	spin_ms(20);
	t0 = mono_ns();
	s0 = my_runtime();
	t.last_sum = s0;
	t.off_since = t0;
	t.off_state = MON_OFF_PREEMPTED;
	t.switches[0] = 1;
	spin_ms(300);

	ta = mono_ns();
	memset(&a, 0, sizeof(a));
	mon_add_task(&a, &t, tid, ta);

	/* The traced switch out, as monitor.bpf.c's switch_out() folds it. */
	tb = mono_ns();
	sb = my_runtime();
	t.on_ns[0] += sb - s0;
	t.preempted_ns[0] += tb - t0 > sb - s0 ? tb - t0 - (sb - s0) : 0;
	t.last_sum = sb;
	t.off_since = tb;
	memset(&b, 0, sizeof(b));
	mon_add_task(&b, &t, tid, mono_ns());

	ran = my_runtime() - s0;
	/* Its CPU time, not the wall time: a busy host preempts the spin. */
	check(a.on[0][0] + TICK_NS >= ran && a.on[0][0] <= ran,
	      "untraced switch in: a running thread counts as on", ms(a.on[0][0]));
	check(b.on[0][0] <= a.on[0][0] + (mono_ns() - ta) + TICK_NS,
	      "then its traced switch out adds no on-CPU time the snapshot before had not",
	      ms(b.on[0][0] - a.on[0][0]));
	check(b.preempted[0][0] + TICK_NS >= a.preempted[0][0],
	      "and off-CPU time never goes backwards",
	      ms(a.preempted[0][0]) - ms(b.preempted[0][0]));

	/* Traced switch in at t0: on since then. */
	memset(&t, 0, sizeof(t));
	t.tgid = getpid();
	t0 = mono_ns();
	t.on_since = t0;
	t.last_sum = my_runtime();
	spin_ms(100);
	ta = mono_ns();
	memset(&a, 0, sizeof(a));
	mon_add_task(&a, &t, tid, ta);
	ran = my_runtime() - t.last_sum;
	/*
	 * The runtime read at t0 may lag by up to a tick and the one in
	 * mon_add_task less: their difference may pass the wall time
	 * (100.0 ms against ta - t0 on a CI host).
	 */
	check(a.on[0][0] + TICK_NS >= ran &&
	      a.on[0][0] <= mono_ns() - t0 + TICK_NS &&
	      !a.preempted[0][0] && !a.blocked[0][0],
	      "traced switch in: on for the time since", ms(a.on[0][0]));

	/* Blocked since t0 (a record whose thread does not run: runtime fixed). */
	memset(&t, 0, sizeof(t));
	t.tgid = getpid();
	t.off_since = t0;
	t.off_state = MON_OFF_BLOCKED;
	ta = mono_ns();
	memset(&a, 0, sizeof(a));
	mon_add_task(&a, &t, tid, ta);
	check(a.blocked[0][0] == ta - t0 && !a.on[0][0],
	      "never seen on a CPU, asleep: blocked for the time since",
	      ms(a.blocked[0][0]));

	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
