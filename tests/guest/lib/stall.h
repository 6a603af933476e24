/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stall watch: how long the guest's vCPUs stood still while a timing
 * measurement ran, so that a test can tell a host too busy to measure
 * anything from a policy that does not work.
 *
 * Under TCG a vCPU whose host thread is not running stops, while the
 * guest's clock (the host's) goes on; /proc/stat steal stays 0.  One
 * process per CPU, pinned, at SCHED_FIFO 99, sleeps to absolute
 * deadlines every STALL_PERIOD_US and counts the deadlines it woke more
 * than STALL_LATE_US after: nothing in the guest delays a FIFO 99
 * wake-up that long, so each late deadline is a moment the host had the
 * vCPU stopped.  Late deadlines / all deadlines estimates the share of
 * the watched time the CPU stood still (stalls shorter than
 * STALL_LATE_US are not counted).  It sleeps, so it costs the
 * measurement one short wake-up per CPU and period, not a CPU.
 */
#ifndef COSCHED_TEST_STALL_H
#define COSCHED_TEST_STALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Each wake-up of a watcher makes its CPU pick its next task anew, which
 * can end a running task's turn early: every 10 ms that happens less
 * often than the tick (4 ms) looks.  $COSCHED_STALL_PERIOD_US overrides
 * it (at least 1000).
 */
#define STALL_PERIOD_US	10000
#define STALL_LATE_US	1000
/*
 * A measurement with a CPU stalled longer than this is not judged: once
 * more than a tenth of the time is stall, a tenth of the samples can
 * fall into one and a p90 is the host's.  (Measured under load, 6.12:
 * at 12-17% dcs's p90 was still 11x below local's, at 40-70% 0.5-3.5x.)
 */
#define STALL_MAX_PCT	10.0
/* STALL_MAX_PCT, or $COSCHED_STALL_MAX_PCT (100: judge whatever the host did). */
double stall_max_pct(void);
#define STALL_MAX_CPUS	64

struct stall_cpu {
	uint64_t deadlines, late, max_late_ns;
	pid_t pid;
};

struct stall_watch {
	int ncpu, stop, judge;
	uint64_t period_ns, start_ns, end_ns;
	struct stall_cpu cpu[STALL_MAX_CPUS];
};

/* Start watching every online CPU; the watch lives in shared memory. */
struct stall_watch *stall_watch_start(void);
/* Stop the watchers (the figures below are final afterwards). */
void stall_watch_stop(struct stall_watch *w);
void stall_watch_free(struct stall_watch *w);
/*
 * Judge the watch by this CPU's stall only (default: the worst CPU's):
 * a test whose measurement happens on one CPU judges by that one, since
 * the other's stalls (mostly an idle vCPU woken late) do not touch it.
 */
void stall_watch_judge(struct stall_watch *w, int cpu);
/* Percent of the watched time the judged (or worst) CPU stood still. */
double stall_pct(const struct stall_watch *w, int *cpu);
/* Milliseconds the worst CPU stood still, and the seconds watched. */
double stall_ms(const struct stall_watch *w);
double stall_secs(const struct stall_watch *w);
/* The longest single stall seen on any CPU, in ns. */
uint64_t stall_longest_ns(const struct stall_watch *w);
/* stall_pct() > max_pct: the measurement says more of the host than of
 * the guest. */
bool stall_too_busy(const struct stall_watch *w, double max_pct);
/* "stall 812 ms in 4.1 s, 19.8% of CPU 1, longest 40.2 ms" */
void stall_describe(const struct stall_watch *w, char *buf, size_t size);

#endif
