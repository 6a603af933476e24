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
 *    The trace line must come from CPU 1 (a wake-up on CPU 0 moved
 *    afterwards proves nothing).
 * 2. D, still owing and now alone on CPU 1 (moved or not), runs 5 ms and
 *    YIELDs, eight times: nothing runs there but D, so each sleep is
 *    nearly all time away.  The kernel's reading of D's runtime just
 *    before a sleep can lack up to a tick of D's run (kernel/repay.c,
 *    cosched_run_lag()); counted as run during the sleep, that lag
 *    would take a share of the sleep's credit.  The median sleep must
 *    be credited at least 90% of its length as time away (one host
 *    stall in a sleep moves one sleep, not the median), and each
 *    sleep's credit must come off the debt the trace gives (floored at a
 *    4 ms credit, as the module floors it).  The first check is skipped
 *    where the kernel takes IRQ or steal time out of the task clock
 *    (the lag is not read there), part 2 where repay_max_debt_us
 *    leaves too little debt for the sleeps.
 * 3. The wait after a wake-up is not paid.  W, alone on CPU 1 and
 *    owing (rung beside a hog first), YIELDs three times; while it
 *    sleeps the test spins 8 ms on CPU 1 as SCHED_FIFO, so W wakes and
 *    waits on the runqueue for the rest (its own schedstat says how
 *    long).  The time the trace says was not away (slept less away)
 *    must be that wait, and the credit the share of the rest: a credit
 *    for the wait would pay the task for time it wanted the CPU, which
 *    the CPU's other tasks would then give it back.
 */
#define _GNU_SOURCE
#include "check.h"

#include <sched.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define JOB		0xfa1e2ull
#define TRIES		3
#define NR_HOGS		3
#define ALONE_SLEEPS	8
#define ALONE_RUN_NS	5000000ull
/* Part 2's sleeps need about this much debt (4 ms each at 15/16). */
#define ALONE_DEBT_US	(ALONE_SLEEPS * 3750ull)
/* The debt's floor (kernel/repay.c, COSCHED_REPAY_CREDIT_NS). */
#define CREDIT_FLOOR_NS	4000000ll
/* A repaying sleep's longest (COSCHED_REPAY_SLEEP_MAX_NS). */
#define SLEEP_MAX_NS	4000000ull
/* Part 3: W's sleeps; the spin lasts twice the longest of them. */
#define WAIT_SLEEPS	3
#define FIFO_SPIN_NS	(2 * SLEEP_MAX_NS)
#define TRACEFS		"/sys/kernel/tracing"

struct dshared {
	int ready, go, yielding, done, alone_done;
	int cpu_after;		/* D's CPU after the first YIELD */
};

/* Part 3: W's progress and the runqueue waits it read around each sleep. */
struct wshared {
	int ready, go, turn, back;
	u64 wait_ns[WAIT_SLEEPS];
};

struct paid {
	unsigned long long slept, away, credit;
	unsigned int permille;
	long long debt;
	int cpu;		/* where the trace line was written */
};

static char inst[128], ev[192];
static pid_t owner;

static void must_yield(struct ep *e)
{
	int err = ep_yield(e->fd, RD(e->ctrl->arrivals), NULL);

	if (err)
		bail("YIELD: %s", strerror(-err));
}

/*
 * D: spins on CPU 0 (boosted by the rings) until told, then YIELDs
 * (part 1); then, on CPU 1, runs 5 ms and YIELDs, ALONE_SLEEPS times
 * (part 2).
 */
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
	pin_cpu(1);
	for (i = 0; i < ALONE_SLEEPS; i++) {
		spin_ns(ALONE_RUN_NS);
		must_yield(&e);
	}
	WR(sh->alone_done, 1);
	for (;;)
		x++;
}

/* W: owes, then YIELDs WAIT_SLEEPS times, reading its runqueue wait. */
static void waiter(struct wshared *sh)
{
	volatile unsigned long x = 0;
	u64 w0, w1;
	struct ep e;
	int i;

	pin_cpu(1);
	ep_must_open(&e, JOB + 1, 0);
	WR(sh->ready, 1);
	while (!RD(sh->go))
		x++;
	for (i = 0; i < WAIT_SLEEPS; i++) {
		if (!task_schedstat(0, NULL, &w0))
			bail("W's schedstat: %s", strerror(errno));
		WR(sh->turn, i + 1);
		must_yield(&e);
		if (!task_schedstat(0, NULL, &w1))
			bail("W's schedstat: %s", strerror(errno));
		sh->wait_ns[i] = w1 - w0;
		WR(sh->back, i + 1);
	}
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

static void write_file(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(val, f) < 0 || fclose(f))
		bail("%s: %s", path, strerror(errno));
}

/* The cosched_repay lines of @pid in the instance's trace, in order. */
static int read_paid(pid_t pid, struct paid *p, int max)
{
	char path[256], line[512], key[32], *s, *c;
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
		c = strchr(line, '[');
		s = strstr(s, "slept_ns=");
		if (c && s && sscanf(c + 1, "%d", &p[n].cpu) == 1 &&
		    sscanf(s, "slept_ns=%llu away_ns=%llu share_permille=%u credit_ns=%llu debt_ns=%lld",
			   &p[n].slept, &p[n].away, &p[n].permille,
			   &p[n].credit, &p[n].debt) == 5)
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

/*
 * Part 2: the sleeps D made alone on CPU 1, @p[1..n) (@p[0]: the sleep
 * before them).
 */
static void alone_sleeps(const struct paid *p, int n, u64 max_debt_ns,
			 bool whole)
{
	double ratio[ALONE_SLEEPS];
	int i, k = n - 1, off = 0;

	if (k < ALONE_SLEEPS / 2) {
		okf(false, "part 2's sleeps were traced",
		    "only %d of %d sleeps traced", k, ALONE_SLEEPS);
		return;
	}
	for (i = 1; i < n; i++) {
		long long want = p[i - 1].debt - (long long)p[i].credit;

		if (want < -CREDIT_FLOOR_NS)
			want = -CREDIT_FLOOR_NS;

		ratio[i - 1] = (double)p[i].away / (double)(p[i].slept + 1);
		/* Over the maximum, a new budget window forgives some. */
		if (llabs(p[i].debt - want) > 1000 &&
		    !(max_debt_ns && p[i - 1].debt > (long long)max_debt_ns &&
		      p[i].debt < want))
			off++;
	}
	qsort(ratio, k, sizeof(ratio[0]), cmp_double);
	t_diag("part 2: %d sleeps alone, time away of each: lowest %.2f, median %.2f, highest %.2f",
	       k, ratio[0], ratio[k / 2], ratio[k - 1]);
	if (whole)
		okf(ratio[k / 2] >= 0.9,
		    "sleeps on an idle CPU are credited whole",
		    "median time away %.2f of the sleep", ratio[k / 2]);
	okf(!off, "each sleep's credit comes off the debt",
	    "%d of %d sleeps' debts are not the last one less the credit",
	    off, k);
}

/* Is the lag read on this kernel (kernel/repay.c, cosched_run_lag())? */
static bool lag_read(void)
{
	const char *fmt[] = { "/boot/config-%s", "/lib/modules/%s/build/.config",
			      "/usr/src/linux-headers-%s/.config" };
	char path[256], line[256];
	struct utsname u;
	bool found = false, off = false;
	size_t i;
	FILE *f;

	uname(&u);
	for (i = 0; i < sizeof(fmt) / sizeof(fmt[0]) && !found; i++) {
		snprintf(path, sizeof(path), fmt[i], u.release);
		f = fopen(path, "r");
		if (!f)
			continue;
		found = true;
		while (fgets(line, sizeof(line), f))
			off |= !strcmp(line, "CONFIG_IRQ_TIME_ACCOUNTING=y\n") ||
			       !strcmp(line, "CONFIG_PARAVIRT_TIME_ACCOUNTING=y\n");
		fclose(f);
	}
	if (!found)
		t_diag("no kernel config found: taken as one that reads the lag");
	return !off;
}

/*
 * One try; true if part 1 counted (D slept on CPU 0 and woke on CPU 1).
 * Part 2 is checked once, at the first try, if @part2 (the whole credit
 * too if @whole).
 */
static bool try_move(int fd, int try, bool part2, bool whole,
		     u64 max_debt_ns)
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
	if (!task_schedstat(d, &r0, &w0))
		bail("D's schedstat: %s", strerror(errno));
	sleep_ns(1000000000);
	if (!task_schedstat(d, &r1, &w1))
		bail("D's schedstat: %s", strerror(errno));
	share = (double)(r1 - r0) / (double)(r1 - r0 + w1 - w0 + 1);
	ring_every_ms(fd, JOB, 0, 300);	/* D, boosted, owes */
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
	n = read_paid(d, p, 1 + ALONE_SLEEPS);
	if (try == 1 && part2)
		alone_sleeps(p, n, max_debt_ns, whole);
	if (!asleep || sh->cpu_after != 1 || n < 1 || p[0].cpu != 1) {
		t_diag("try %d: not counted (D %s, woke on CPU %d, traced on %d)",
		       try, asleep ? "was moved asleep" : "was not seen asleep",
		       sh->cpu_after, n > 0 ? p[0].cpu : -1);
		return false;
	}
	moved_sleep(&p[0], share, try);
	return true;
}

/*
 * If W still sleeps its sleep @i, spin FIFO_SPIN_NS on CPU 1 as
 * SCHED_FIFO, so that W wakes into a wait; false if it did not sleep
 * any more.  FIFO before the move and CPU 0 before the return to the
 * fair class: the test never runs on CPU 1 beside W as a fair task,
 * where it would take from W's run outside its sleep.  -1: no FIFO here.
 */
static int spin_over_sleep(pid_t w, struct wshared *sh, int i)
{
	struct sched_param rt = { .sched_priority = 99 }, other = { 0 };
	bool asleep;

	if (sched_setscheduler(0, SCHED_FIFO, &rt))
		return -1;
	pin_cpu(1);
	asleep = sleeping(w) && RD(sh->back) == i;
	if (asleep)
		spin_ns(FIFO_SPIN_NS);
	pin_cpu(0);
	if (sched_setscheduler(0, SCHED_OTHER, &other))
		bail("SCHED_OTHER: %s", strerror(errno));
	return asleep;
}

/* Part 3's checks on W's sleep @p, which waited @wait ns after it. */
static bool waited_sleep_paid(const struct paid *p, double wait)
{
	double unpaid = (double)p->slept - (double)p->away;
	double credit = p->permille / 1000.0 * (double)p->away;

	/*
	 * The kernel's unpaid time is W's wait plus its run from the
	 * wake-up to the credit (32-50 us under TCG): a quarter of the
	 * wait and half a millisecond either way is room for that, and
	 * far from a paid wait (nothing unpaid).  The credit as in
	 * moved_sleep().
	 */
	return unpaid >= 0.75 * wait - 3e5 && unpaid <= 1.25 * wait + 5e5 &&
	       p->credit >= 0.95 * credit && p->credit <= 1.05 * credit + 1000;
}

/* Part 3: W's sleeps, each followed by a wait the test made. */
static void waited_sleeps(int fd)
{
	struct wshared *sh = shared_alloc(sizeof(*sh));
	u64 boost_ns = sysfs_u64("boost_us") * 1000;
	bool spun[WAIT_SLEEPS] = { false };
	int i, n, r, judged = 0, off = 0;
	struct paid p[WAIT_SLEEPS];
	pid_t hog, w;
	u64 deadline;

	pin_cpu(0);
	hog = hog_start(1);
	w = fork();
	if (!w) {
		waiter(sh);
		_exit(0);
	}
	if (!poll_until(RD(sh->ready), 2000))
		bail("W did not start");
	ring_every_ms(fd, JOB + 1, 0, 300);	/* W, boosted, owes */
	hog_stop(hog);
	/* The last boost ends before W's sleeps. */
	sleep_ns(50000000 + 2 * boost_ns);
	WR(sh->go, 1);
	for (i = 0; i < WAIT_SLEEPS; i++) {
		if (!poll_until(RD(sh->turn) == i + 1, 2000))
			bail("W did not come to its YIELD %d", i + 1);
		for (deadline = now_ns() + 50000000ull;
		     RD(sh->back) == i && now_ns() < deadline;) {
			if (!sleeping(w))
				continue;
			r = spin_over_sleep(w, sh, i);
			if (r < 0) {
				int err = errno;	/* hog_stop() may change it */

				hog_stop(w);
				t_skip("the wait after a wake-up is not paid",
				       "SCHED_FIFO refused: %s", strerror(err));
				return;
			}
			spun[i] = r;
			break;
		}
		if (!poll_until(RD(sh->back) == i + 1, 2000))
			bail("W did not come back from its YIELD %d", i + 1);
	}
	hog_stop(w);
	/* A YIELD that does not sleep writes no line: the last ones. */
	n = read_paid(w, p, WAIT_SLEEPS);
	for (i = 0; i < n; i++) {
		t_diag("part 3: sleep %d: %llu us, away %llu us, paid at %.3f: %llu us; W's wait %llu us%s",
		       i + 1, p[i].slept / 1000, p[i].away / 1000,
		       p[i].permille / 1000.0, p[i].credit / 1000,
		       (unsigned long long)sh->wait_ns[i] / 1000,
		       spun[i] ? "" : " (W not held asleep: not judged)");
		if (!spun[i] || sh->wait_ns[i] < 2000000)
			continue;
		judged++;
		if (!waited_sleep_paid(&p[i], (double)sh->wait_ns[i]))
			off++;
	}
	if (!n) {
		okf(false, "W's repaying sleeps were traced",
		    "W owed (rung 300 ms beside a hog) and no sleep of its %d YIELDs was traced",
		    WAIT_SLEEPS);
		return;
	}
	if (!judged) {
		t_skip("the wait after a wake-up is not paid",
		       "no traced sleep of W was held by the spin into a wait of 2 ms or more (%d traced)",
		       n);
		return;
	}
	okf(!off, "the wait after a wake-up is not paid",
	    "%d of %d sleeps: time not away is not W's wait, or the credit not the share of the rest",
	    off, judged);
}

/* At exit, a bail included: the trace instance goes (no bail here). */
static void cleanup(void)
{
	FILE *f;

	if (getpid() != owner)
		return;
	f = fopen(ev, "w");
	if (f) {
		fputs("0", f);
		fclose(f);
	}
	rmdir(inst);
}

int main(void)
{
	u64 max_debt_ns = sysfs_u64("repay_max_debt_us") * 1000;
	bool part2 = true, whole = lag_read();
	char orig[32];
	int fd, try;

	if (nr_cpus() < 2) {
		t_skip("fair-move", "needs 2 CPUs");
		return t_done();
	}
	if (!path_exists(TRACEFS "/events/cosched/cosched_repay"))
		bail("no cosched_repay event in " TRACEFS);
	if (max_debt_ns && max_debt_ns < ALONE_DEBT_US * 1000) {
		part2 = false;
		t_skip("part 2: sleeps on an idle CPU",
		       "repay_max_debt_us %llu leaves too little debt for %d sleeps",
		       (unsigned long long)max_debt_ns / 1000, ALONE_SLEEPS);
	} else if (!whole) {
		t_skip("sleeps on an idle CPU are credited whole",
		       "this kernel takes IRQ or steal time out of the task clock: the lag is not read");
	}
	owner = getpid();
	snprintf(inst, sizeof(inst), TRACEFS "/instances/cosched-move.%d",
		 owner);
	if (mkdir(inst, 0700))
		bail("%s: %s", inst, strerror(errno));
	snprintf(ev, sizeof(ev), "%s/events/cosched/cosched_repay/enable",
		 inst);
	atexit(cleanup);
	write_file(ev, "1");
	policy_get(orig, sizeof(orig));
	policy_set("dcs-fair");
	pin_cpu(1);
	fd = dev_open();
	for (try = 1;
	     try <= TRIES && !try_move(fd, try, part2, whole, max_debt_ns);
	     try++)
		;
	if (try > TRIES)
		t_skip("the moved sleep is paid at its CPU 0 share",
		       "in %d tries D was never moved asleep (a busy host?)",
		       TRIES);
	waited_sleeps(fd);
	close(fd);
	policy_set(orig);
	return t_done();
}
