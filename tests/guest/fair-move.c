// SPDX-License-Identifier: GPL-2.0
/*
 * fair-move: what dcs-fair credits a repaying sleep (issue 14), read
 * from the cosched_repay tracepoint.
 *
 * 1. A sleeper moved to another CPU during its sleep is paid at the
 *    share it had where it slept.  The share is measured per CPU, and a
 *    task woken on another CPU has none measured there yet (1/2 until
 *    measured): a credit priced after the wake-up would pay a task that
 *    slept beside three hogs (a quarter of its CPU) twice what its
 *    sleep gave them.  D spins on CPU 0 beside three hogs for a second
 *    (the test reads its share from schedstat meanwhile), is rung every
 *    ms for 300 ms (boosted, it owes), then YIELDs; as soon as D
 *    sleeps, the test allows it CPU 1 only, so it wakes there.  The
 *    share the trace says the sleep was paid at must be D's measured
 *    one, and the credit that share of the time away.  A try counts
 *    only if D slept before the move and woke on CPU 1; up to three.
 * 2. D, still owing and now alone on CPU 1, runs 5 ms and YIELDs, eight
 *    times: nothing runs there but D, so each sleep is nearly all time
 *    away.  The kernel's reading of D's runtime just before a sleep can
 *    lack up to a tick of D's run (kernel/repay.c, cosched_run_lag());
 *    counted as run during the sleep, that lag would take a share of
 *    the sleep's credit.  The sleeps together must be credited at least
 *    90% of their length as time away.
 */
#define _GNU_SOURCE
#include "check.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define JOB		0xfa1e2ull
#define TRIES		3
#define NR_HOGS		3
#define ALONE_SLEEPS	8
#define ALONE_RUN_NS	5000000ull
#define TRACEFS		"/sys/kernel/tracing"

struct dshared {
	int ready, go, yielding, done, alone_done;
	int cpu_after;		/* D's CPU after the first YIELD */
};

struct paid {
	u64 slept, away, credit;
	unsigned int permille;
	long long debt;
};

/* A task's ran and waited ns from /proc/<pid>/schedstat. */
static void schedstat(pid_t pid, u64 *ran, u64 *waited)
{
	unsigned long long r, w;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu %llu", &r, &w) != 2)
		bail("%s: %s", path, strerror(errno));
	fclose(f);
	*ran = r;
	*waited = w;
}

static void must_yield(struct ep *e)
{
	int err = ep_yield(e->fd, RD(e->ctrl->arrivals), NULL);

	if (err)
		bail("YIELD: %s", strerror(-err));
}

/* D: spins on CPU 0 (boosted by the rings) until told, then YIELDs. */
static void debtor(struct dshared *sh)
{
	volatile unsigned long x = 0;
	struct ep e;
	int i;

	pin_cpu(0);
	ep_must_open(&e, JOB, 0);
	WR(sh->ready, 1);
	while (!RD(sh->go))
		x++;
	WR(sh->yielding, 1);
	must_yield(&e);
	sh->cpu_after = sched_getcpu();
	WR(sh->done, 1);
	if (sh->cpu_after == 1)
		for (i = 0; i < ALONE_SLEEPS; i++) {
			spin_ns(ALONE_RUN_NS);
			must_yield(&e);
		}
	WR(sh->alone_done, 1);
	for (;;)
		x++;
}

/* Is @pid sleeping (state S in /proc/<pid>/stat)? */
static bool sleeping(pid_t pid)
{
	char path[64], buf[256], *p;
	bool s = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')');
		s = p && p[1] == ' ' && p[2] == 'S';
	}
	fclose(f);
	return s;
}

static void allow_cpu(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(pid, sizeof(set), &set))
		bail("sched_setaffinity: %s", strerror(errno));
}

/* Rings D's endpoint every ms for 300 ms: D, boosted, owes. */
static void ring_debt(int fd)
{
	u64 end = now_ns() + 300000000ull, next;
	int err;

	for (next = now_ns(); next < end; next += 1000000ull) {
		while (now_ns() < next)
			;
		err = doorbell(fd, JOB, 0, 1);
		if (err)
			bail("doorbell: %s", strerror(-err));
	}
}

static void write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(val, f) < 0 || fclose(f))
		bail("%s: %s", path, strerror(errno));
}

/* The cosched_repay lines of @pid in the instance's trace, in order. */
static int read_paid(const char *inst, pid_t pid, struct paid *p, int max)
{
	char path[256], line[512], key[32], *s;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace", inst);
	snprintf(key, sizeof(key), " pid=%d ", pid);
	f = fopen(path, "r");
	if (!f)
		bail("%s: %s", path, strerror(errno));
	while (n < max && fgets(line, sizeof(line), f)) {
		s = strstr(line, "cosched_repay:");
		if (!s || !strstr(s, key))
			continue;
		s = strstr(s, "slept_ns=");
		if (s && sscanf(s, "slept_ns=%llu away_ns=%llu share_permille=%u credit_ns=%llu debt_ns=%lld",
				(unsigned long long *)&p[n].slept,
				(unsigned long long *)&p[n].away,
				&p[n].permille,
				(unsigned long long *)&p[n].credit,
				&p[n].debt) == 5)
			n++;
	}
	fclose(f);
	return n;
}

/* Part 1's checks on the moved sleep @p. */
static void moved_sleep(const struct paid *p, double share, int try)
{
	double paid_share = p->permille / 1000.0;

	t_diag("try %d: D's share beside %d hogs %.3f; the sleep: %llu us, away %llu us, paid at %.3f: %llu us",
	       try, NR_HOGS, share, (unsigned long long)p->slept / 1000,
	       (unsigned long long)p->away / 1000, paid_share,
	       (unsigned long long)p->credit / 1000);
	okf(p->away <= p->slept &&
	    p->credit >= 0.95 * paid_share * p->away &&
	    p->credit <= 1.05 * paid_share * p->away + 1000,
	    "the credit is the share paid at of the time away",
	    "slept %llu away %llu credit %llu at %.3f",
	    (unsigned long long)p->slept, (unsigned long long)p->away,
	    (unsigned long long)p->credit, paid_share);
	if (share > 0.4) {
		t_skip("the moved sleep is paid at its CPU 0 share",
		       "D got %.3f of CPU 0 beside %d hogs: too near 1/2 to tell",
		       share, NR_HOGS);
		return;
	}
	okf(paid_share > share - 0.08 && paid_share < share + 0.08,
	    "the moved sleep is paid at its CPU 0 share",
	    "paid at %.3f, D's share there %.3f", paid_share, share);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Part 2: the sleeps D made alone on CPU 1, @p[0..n). */
static void alone_sleeps(const struct paid *p, int n)
{
	double ratio[ALONE_SLEEPS], slept = 0, away = 0;
	int i;

	if (n < ALONE_SLEEPS / 2) {
		okf(false, "sleeps on an idle CPU are credited whole",
		    "only %d of %d sleeps traced", n, ALONE_SLEEPS);
		return;
	}
	for (i = 0; i < n; i++) {
		ratio[i] = (double)p[i].away / (double)(p[i].slept + 1);
		slept += p[i].slept;
		away += p[i].away;
	}
	qsort(ratio, n, sizeof(ratio[0]), cmp_double);
	t_diag("part 2: %d sleeps alone, %.1f ms, %.2f of it away (per sleep: lowest %.2f, median %.2f, highest %.2f)",
	       n, slept / 1e6, away / slept, ratio[0], ratio[n / 2],
	       ratio[n - 1]);
	okf(away >= 0.9 * slept, "sleeps on an idle CPU are credited whole",
	    "time away %.2f of the sleeps", away / slept);
}

/* One try; true if it counted (D slept on CPU 0 and woke on CPU 1). */
static bool try_move(const char *inst, int fd, int try)
{
	struct dshared *sh = shared_alloc(sizeof(*sh));
	struct paid p[1 + ALONE_SLEEPS];
	u64 r0, w0, r1, w1, deadline;
	pid_t hogs[NR_HOGS], d;
	bool asleep = false;
	double share;
	int i, n;

	for (i = 0; i < NR_HOGS; i++)
		hogs[i] = hog_start(0);
	d = fork();
	if (!d) {
		debtor(sh);
		_exit(0);
	}
	if (!poll_until(RD(sh->ready), 2000))
		bail("D did not start");
	sleep_ns(100000000);
	schedstat(d, &r0, &w0);
	sleep_ns(1000000000);
	schedstat(d, &r1, &w1);
	share = (double)(r1 - r0) / (double)(r1 - r0 + w1 - w0 + 1);
	ring_debt(fd);
	WR(sh->go, 1);
	if (!poll_until(RD(sh->yielding), 2000))
		bail("D did not yield");
	/* Polled without sleeping: the sleep lasts at most 4 ms. */
	for (deadline = now_ns() + 50000000ull;
	     !RD(sh->done) && now_ns() < deadline;)
		if (sleeping(d)) {
			allow_cpu(d, 1);
			asleep = !RD(sh->done);
			break;
		}
	/* Off CPU 1: a wake-up there would bring D's runtime up to date. */
	pin_cpu(0);
	if (!poll_until(RD(sh->alone_done), 5000))
		bail("D did not come back from its YIELDs");
	for (i = 0; i < NR_HOGS; i++)
		hog_stop(hogs[i]);
	hog_stop(d);
	pin_cpu(1);
	if (!asleep || sh->cpu_after != 1) {
		t_diag("try %d: not counted (D %s, woke on CPU %d)", try,
		       asleep ? "was moved asleep" : "was not seen asleep",
		       sh->cpu_after);
		return false;
	}
	n = read_paid(inst, d, p, 1 + ALONE_SLEEPS);
	okf(n > 0, "the cosched_repay tracepoint fired for the sleep",
	    "no line of pid %d in %s/trace", d, inst);
	if (n > 0) {
		moved_sleep(&p[0], share, try);
		alone_sleeps(p + 1, n - 1);
	}
	return true;
}

int main(void)
{
	char orig[32], inst[128], ev[192];
	int fd, try;

	if (!path_exists(TRACEFS "/events/cosched/cosched_repay"))
		bail("no cosched_repay event in " TRACEFS);
	snprintf(inst, sizeof(inst), TRACEFS "/instances/cosched-move.%d",
		 getpid());
	if (mkdir(inst, 0700))
		bail("%s: %s", inst, strerror(errno));
	snprintf(ev, sizeof(ev), "%s/events/cosched/cosched_repay/enable",
		 inst);
	write_file(ev, "1");
	policy_get(orig, sizeof(orig));
	policy_set("dcs-fair");
	pin_cpu(1);
	fd = dev_open();
	for (try = 1; try <= TRIES && !try_move(inst, fd, try); try++)
		;
	if (try > TRIES)
		t_skip("the moved sleep is paid at its CPU 0 share",
		       "in %d tries D was never moved asleep (a busy host?)",
		       TRIES);
	close(fd);
	policy_set(orig);
	write_file(ev, "0");
	rmdir(inst);
	return t_done();
}
