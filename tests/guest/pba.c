// SPDX-License-Identifier: GPL-2.0
/*
 * pba: the aligned periodic boost.
 *  - turns: two jobs, one busy process each, share CPU 0.  In each period
 *    of CLOCK_REALTIME, the process that finds itself SCHED_FIFO must be
 *    the one whose job ranks lower by cosched_pba_rank() from the UAPI
 *    header: the turn that any other node running the same jobs computes
 *    for that period.  A module that took turns any other way (pb's round
 *    robin, another hash, monotonic periods) matches about half the time.
 *    A period in which both were seen boosted (a host that stalled the
 *    guest can delay the end of the last period's boost) is counted
 *    apart.  How late into its period each boost was first seen is
 *    printed.
 *  - idle: a job whose only process sleeps is boosted in its turns all the
 *    same (pb boosts only endpoints with a message pending).
 *  - yielded: under pba-sy a receiver lowered to nice 19 by a yield and
 *    then boosted in its turn reads its own nice (0) while boosted, not
 *    19: SCHED_FIFO keeps the nice a task had, so a boost must end the
 *    yield first.
 */
#define _GNU_SOURCE
#include "check.h"

#include <sched.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define JOB		0xba000ull
#define PERIOD_US	20000
#define BOOST_US	10000	/* the first half of each period */
#define NPERIODS	150	/* 3 s */
/* A FIFO sample this early in a period may be the last one's boost. */
#define EARLY_NS	1000000ull
#define MIN_MATCH_PCT	90

/* What one busy process saw, per period. */
struct seen {
	u64 first_fifo_ns[NPERIODS];	/* offset into the period, 0: never */
	bool boosted[NPERIODS];		/* FIFO after EARLY_NS into it */
	int ready, stop, err;
};

static u64 realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

static void busy(struct seen *s, u64 job, u64 first_period)
{
	const u64 period = PERIOD_US * 1000ull;
	int fd = dev_open();

	pin_cpu(0);
	if ((s->err = -ep_create_fd(fd, job, 0, NULL))) {
		__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
		_exit(1);
	}
	__atomic_store_n(&s->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		u64 t = realtime_ns(), n = t / period;
		int pol = sched_getscheduler(0) & ~SCHED_RESET_ON_FORK;

		if (pol != SCHED_FIFO || n < first_period ||
		    n >= first_period + NPERIODS)
			continue;
		if (!s->first_fifo_ns[n - first_period])
			s->first_fifo_ns[n - first_period] = t % period ? t % period : 1;
		if (t % period >= EARLY_NS)
			s->boosted[n - first_period] = true;
	}
	close(fd);
	_exit(0);
}

static pid_t start_busy(struct seen *s, u64 job, u64 first_period)
{
	pid_t pid = fork();

	if (pid < 0)
		bail("fork");
	if (!pid)
		busy(s, job, first_period);
	if (!poll_until(__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE), 5000) ||
	    s->err)
		bail("busy process: %s", errno_name(s->err));
	return pid;
}

static void stop_busy(struct seen *s, pid_t pid)
{
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
	wait_child(pid);
}

/* The job cosched_pba_rank() puts first in period @n: 0 for @a, 1 for @b. */
static int winner(u64 a, u64 b, u64 n)
{
	u32 uid = getuid();

	return cosched_pba_rank(b, uid, n) < cosched_pba_rank(a, uid, n);
}

static void test_turns(void)
{
	const u64 period = PERIOD_US * 1000ull, jobs[2] = { JOB + 1, JOB + 2 };
	struct seen *s[2] = { shared_alloc(sizeof(*s[0])), shared_alloc(sizeof(*s[1])) };
	unsigned int boosted[2] = { 0 }, match = 0, wrong = 0, both = 0, i, n;
	u64 first = realtime_ns() / period + 50;	/* after the set-up */
	u64 offsets[2 * NPERIODS];
	size_t noff = 0;
	pid_t pid[2];

	for (i = 0; i < 2; i++)
		pid[i] = start_busy(s[i], jobs[i], first);
	sysfs_set_u64("pb_period_us", PERIOD_US);
	sysfs_set_u64("boost_us", BOOST_US);
	policy_set("pba");
	while (realtime_ns() / period < first + NPERIODS)
		sleep_ns(10000000);
	policy_set("local");
	for (i = 0; i < 2; i++)
		stop_busy(s[i], pid[i]);

	for (n = 0; n < NPERIODS; n++) {
		int w = winner(jobs[0], jobs[1], first + n);

		for (i = 0; i < 2; i++) {
			if (s[i]->first_fifo_ns[n])
				offsets[noff++] = s[i]->first_fifo_ns[n];
			boosted[i] += s[i]->boosted[n];
		}
		if (s[0]->boosted[n] && s[1]->boosted[n])
			both++;
		else if (s[w]->boosted[n])
			match++;
		else if (s[!w]->boosted[n])
			wrong++;
	}
	t_diag("turns: %u periods of %d ms; job a boosted in %u, b in %u; only the job whose turn it was in %u, only the other in %u, both in %u",
	       NPERIODS, PERIOD_US / 1000, boosted[0], boosted[1], match, wrong, both);
	if (noff)
		t_diag("turns: first seen boosted %.2f ms (median), %.2f ms (p90) into the period",
		       percentile(offsets, noff, 50) / 1e6,
		       percentile(offsets, noff, 90) / 1e6);
	okf(boosted[0] && boosted[1], "turns: both jobs are boosted",
	    "a %u, b %u", boosted[0], boosted[1]);
	okf(match + wrong && match * 100 >= MIN_MATCH_PCT * (match + wrong),
	    "turns: the job boosted is the one cosched_pba_rank() puts first",
	    "%u of %u", match, match + wrong);
}

static void test_idle(void)
{
	struct cosched_stats st0, st1;
	int fd = dev_open();

	if (ep_create_fd(fd, JOB + 3, 0, NULL))
		bail("CREATE");
	/* The caller sleeps in nanosleep: nothing is ever pending. */
	sysfs_set_u64("pb_period_us", 10000);
	ep_stats(fd, &st0);
	policy_set("pba");
	/* Every period is its turn; a busy host may delay a few. */
	poll_until(!ep_stats(fd, &st1) && st1.boosts >= st0.boosts + 3, 3000);
	policy_set("local");
	ep_stats(fd, &st1);
	ok(st1.boosts >= st0.boosts + 3,
	   "idle: the job is boosted in its turns with nothing pending");
	close(fd);
}

static void test_boost_ends_yield(void)
{
	unsigned int samples = 0, lowered = 0;
	struct cosched_yield y;
	struct ep e;
	u64 t0;

	policy_set("pba-sy");
	ep_must_open(&e, JOB + 4, 0);
	memset(&y, 0, sizeof(y));
	if (ep_yield(e.fd, RD(e.ctrl->arrivals), &y))
		bail("YIELD");
	/* Sample our nice while the control page says we are boosted. */
	for (t0 = now_ns(); now_ns() - t0 < 1000000000ull && samples < 100;) {
		int nice;

		if (!(RD(e.ctrl->state) & COSCHED_STATE_BOOSTED))
			continue;
		errno = 0;
		nice = getpriority(PRIO_PROCESS, 0);
		if (errno || !(RD(e.ctrl->state) & COSCHED_STATE_BOOSTED))
			continue;
		samples++;
		lowered += nice != 0;
	}
	policy_set("local");
	ep_close(&e);
	okf(samples && !lowered,
	    "yielded: boosted in its turn, the receiver reads its own nice",
	    "%u of %u samples while boosted read a nice other than 0", lowered,
	    samples);
}

int main(void)
{
	if (nr_cpus() < 2)
		bail("needs 2 CPUs");
	pin_cpu(1);
	/* Budgets that never refuse, so that only turns decide. */
	sysfs_set_u64("budget_pct", 100);
	sysfs_set_u64("user_budget_pct", 100);
	sysfs_set_u64("cpu_budget_pct", 90);
	test_turns();
	test_idle();
	test_boost_ends_yield();
	return t_done();
}
