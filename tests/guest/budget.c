// SPDX-License-Identifier: GPL-2.0
/*
 * budget: boosts must not buy anyone more CPU than the budgets allow.
 *
 * 1. Each budget alone.  Under dcs, process A (a CPU hog with 8
 *    endpoints of one job) and an ordinary hog N share CPU 0 while a
 *    helper on CPU 1 rings A's doorbells in a tight loop.  With one of
 *    budget_pct, user_budget_pct, cpu_budget_pct at 10 (the others at
 *    100 or their maximum), or global_budget_pct at 5 (10% of one of 2
 *    CPUs), A's boosted time stays within 10% of the run: the job
 *    budget is not multiplied by its endpoints (that gave A 8 x 10% =
 *    80%).  N's share is printed, not asserted: it is less than 50%
 *    minus the 10% boosted (6.1: 40.3-57.1%, 6.12: 32-34% measured),
 *    since a boosted task keeps its fair-class place and so gets more of
 *    the fair time after its boost (repaying it is issue 14's
 *    "fairness-repaid DCS").
 * 2. The flood of issue 11 ("budget flood" runs only this part), with
 *    default budgets: user 65534 has 32 endpoints (one job, then 4
 *    jobs) whose second thread rings the first thread's doorbells
 *    while that thread spins on CPU 0, beside user 65533's compute
 *    process on CPU 0.  The victim's share of the two's CPU time, per
 *    2 s window, is printed (the old module left it 4-11%; the new one
 *    25.6% worst on 6.1 but 9.4% on 6.12, for the reason above: boosted
 *    time is bounded, the fair time after it is not repaid); what is
 *    asserted is that the module's boosted time per window stays
 *    within the tightest budget that applies: the job's times the
 *    number of jobs, the user's, the CPU's (plus one budget window's
 *    share and one boost, for boosts charged to the window they
 *    started in).  The old module (6.12) boosted one job of 32
 *    endpoints 517-846 ms per 2 s window, over that bound (30%, 632 ms)
 *    in 4 of 5 windows in one run, 1 of 5 in another: part 1 is what
 *    fails it for sure.  Tunables a module lacks count at their default
 *    here, and part 1 skips writing them, so an old module fails the
 *    bounds, not the setup.
 */
#define _GNU_SOURCE
#include "check.h"
#include "stall.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define JOB		0xb0d6e7ull
#define RUN_NS		3000000000ull
#define A_EPS		8
#define FLOODER		65534
#define VICTIM		65533
#define FLOOD_EPS	32
#define WINDOWS		5
#define WINDOW_NS	2000000000ull

struct result {
	double n_share, a_share;
	struct cosched_stats st;
	u64 rings;
};

/* ---- 1: each budget alone ------------------------------------------ */

static struct result run(const char *what)
{
	struct result res = { 0 };
	int fds[A_EPS], *ready = shared_alloc(sizeof(int));
	u64 t0, t1, n0, n1, a0, a1, end;
	struct cosched_stats st;
	pid_t a, n;
	int i;

	for (i = 0; i < A_EPS; i++)
		fds[i] = dev_open();
	a = fork();
	if (!a) {
		/* A: owns the endpoints and never stops computing. */
		volatile unsigned long x = 0;

		pin_cpu(0);
		for (i = 0; i < A_EPS; i++)
			if (ep_create_fd(fds[i], JOB, i, NULL))
				_exit(1);
		WR(*ready, 1);
		for (;;)
			x++;
	}
	n = hog_start(0);
	if (!poll_until(RD(*ready), 2000))
		bail("A did not create its endpoints");

	t0 = now_ns();
	n0 = task_cpu_ns(n);
	a0 = task_cpu_ns(a);
	end = t0 + RUN_NS;
	for (i = 0; now_ns() < end; i = (i + 1) % A_EPS) {
		if (doorbell(fds[0], JOB, i, 1))
			bail("doorbell: %s", strerror(errno));
		res.rings++;
	}
	t1 = now_ns();
	n1 = task_cpu_ns(n);
	a1 = task_cpu_ns(a);
	for (i = 0; i < A_EPS; i++) {
		ep_stats(fds[i], &st);
		res.st.boosts += st.boosts;
		res.st.boosted_ns += st.boosted_ns;
		res.st.budget_exhausted += st.budget_exhausted;
	}
	hog_stop(n);
	hog_stop(a);
	for (i = 0; i < A_EPS; i++)
		close(fds[i]);
	res.n_share = (double)(n1 - n0) / (double)(t1 - t0);
	res.a_share = (double)(a1 - a0) / (double)(t1 - t0);
	t_diag("%s: N kept %.1f%% of CPU 0, A got %.1f%%; %llu rings, "
	       "%llu boosts, boosted %.1f ms, %llu refused by a budget",
	       what, res.n_share * 100, res.a_share * 100,
	       (unsigned long long)res.rings, (unsigned long long)res.st.boosts,
	       res.st.boosted_ns / 1e6,
	       (unsigned long long)res.st.budget_exhausted);
	return res;
}

/*
 * A tunable the module has; one it lacks (7074990 had only budget_pct)
 * is skipped, so that an old module fails the bound, not the setup.
 */
static void set_budget(const char *name, u64 pct)
{
	char buf[64];

	if (sysfs_read(name, buf, sizeof(buf)) == -ENOENT) {
		t_diag("no %s in this module: not set", name);
		return;
	}
	sysfs_set_u64(name, pct);
}

static void budgets(u64 job, u64 user, u64 cpu, u64 global)
{
	set_budget("budget_pct", job);
	set_budget("user_budget_pct", user);
	set_budget("cpu_budget_pct", cpu);
	set_budget("global_budget_pct", global);
}

static void one_budget(const char *what, u64 job, u64 user, u64 cpu,
		       u64 global)
{
	struct stall_watch *w;
	struct result r;
	char stall[160];
	u64 bound;

	budgets(job, user, cpu, global);
	w = stall_watch_start();
	stall_watch_judge(w, 0);	/* the measured CPU */
	r = run(what);
	stall_watch_stop(w);
	stall_describe(w, stall, sizeof(stall));
	/*
	 * What the budget bounds is boosted time: at most its share of the
	 * run, plus one window's worth for boosts charged to the window they
	 * started in, plus the time the host kept the guest's CPUs standing
	 * still (a stalled vCPU ends no boost: lib/stall.h).  (The old
	 * module allowed 8 endpoints x 10% here.)
	 */
	bound = RUN_NS / 100 * 10 * 5 / 4 + 100000000ull +
		(u64)(stall_ms(w) * 1e6);
	stall_watch_free(w);
	okf(r.st.boosted_ns <= bound, what,
	    "%s: %.1f ms boosted in %.1f s, bound %.1f ms (%s)", what,
	    r.st.boosted_ns / 1e6, RUN_NS / 1e9, bound / 1e6, stall);
	okf(r.st.boosts > 0 && r.st.budget_exhausted > 0, what,
	    "%s: %llu boosts, %llu refused: the budget was not what bounded it",
	    what, (unsigned long long)r.st.boosts,
	    (unsigned long long)r.st.budget_exhausted);
}

/* ---- 2: the flood --------------------------------------------------- */

struct flood {
	int ready;
	int njobs;
	int fds[FLOOD_EPS];
	pid_t spinner;
};

static struct flood *fl;

static void *ringer(void *unused)
{
	int per = FLOOD_EPS / fl->njobs, i = 0;

	(void)unused;
	pin_cpu(1);
	for (;;) {
		doorbell(fl->fds[0], JOB + i / per, i % per, 1);
		i = (i + 1) % FLOOD_EPS;
	}
	return NULL;
}

static void flooder(void)
{
	int per = FLOOD_EPS / fl->njobs, i;
	volatile unsigned long x = 0;
	pthread_t th;

	become_user(FLOODER, true);
	pin_cpu(0);
	for (i = 0; i < FLOOD_EPS; i++) {
		fl->fds[i] = dev_open();
		if (ep_create_fd(fl->fds[i], JOB + i / per, i % per, NULL))
			bail("flooder: CREATE: %s", strerror(errno));
	}
	if (pthread_create(&th, NULL, ringer, NULL))
		bail("pthread_create");
	WR(fl->ready, 1);
	for (;;)
		x++;
}

static void victim(void)
{
	volatile unsigned long x = 0;

	become_user(VICTIM, false);
	pin_cpu(0);
	for (;;)
		x++;
}

/* A tunable, or @def on a module without it (to measure an old one). */
static u64 tun_or(const char *name, u64 def)
{
	char buf[64];

	if (sysfs_read(name, buf, sizeof(buf)))
		return def;
	return strtoull(buf, NULL, 10);
}

static void flood(int njobs)
{
	u64 win_ms = sysfs_u64("budget_window_ms");
	u64 cpu_pct = tun_or("cpu_budget_pct", 50);
	u64 user_pct = tun_or("user_budget_pct", 60);
	u64 job_pct = sysfs_u64("budget_pct");
	u64 pct = job_pct * njobs;
	u64 boost_ns = sysfs_u64("boost_us") * 1000;
	u64 v0, f0, b0, t0, v1, f1, b1, t1, bound;
	double worst = 1, share, fshare, bmax = 0;
	pid_t f, v;
	int w;

	fl->ready = 0;
	fl->njobs = njobs;
	f = fork();
	if (!f)
		flooder();
	if (!poll_until(RD(fl->ready), 10000)) {
		kill(f, SIGKILL);
		bail("the flooder did not start");
	}
	v = fork();
	if (!v)
		victim();
	sleep_ns(200000000);

	/*
	 * The window bound: the tightest budget that applies (the jobs',
	 * the user's, the CPU's; a module without the last two is held to
	 * their defaults), plus a boost charged to the window before (one
	 * budget window's share) and one boost.
	 */
	if (user_pct < pct)
		pct = user_pct;
	if (cpu_pct < pct)
		pct = cpu_pct;
	bound = WINDOW_NS / 100 * pct + win_ms * 1000000 / 100 * pct + boost_ns;
	v0 = task_cpu_ns(v);
	f0 = task_cpu_ns(f);	/* its spinning main thread */
	b0 = sysfs_u64("stats/boosted_ns");
	t0 = now_ns();
	for (w = 0; w < WINDOWS; w++) {
		struct stall_watch *sw = stall_watch_start();
		stall_watch_judge(sw, 0);	/* the measured CPU */
		u64 slack;

		sleep_ns(WINDOW_NS);
		v1 = task_cpu_ns(v);
		f1 = task_cpu_ns(f);
		b1 = sysfs_u64("stats/boosted_ns");
		t1 = now_ns();
		stall_watch_stop(sw);
		/* A stalled vCPU ends no boost (lib/stall.h). */
		slack = (u64)(stall_ms(sw) * 1e6);
		stall_watch_free(sw);
		share = (double)(v1 - v0) / (double)(v1 - v0 + f1 - f0 + 1);
		fshare = 1 - share;
		t_diag("flood, %d job(s): window %d (%.2f s): victim %.1f%%, "
		       "flooder %.1f%% of their CPU time; boosted %.1f ms "
		       "(bound %.1f ms + %.1f ms the host stalled a CPU)",
		       njobs, w, (t1 - t0) / 1e9, share * 100, fshare * 100,
		       (b1 - b0) / 1e6, bound / 1e6, slack / 1e6);
		if (share < worst)
			worst = share;
		if ((double)(b1 - b0) > bmax)
			bmax = (double)(b1 - b0);
		okf(b1 - b0 <= bound + slack, "flood: boosted time per window within the budgets",
		    "%d job(s), window %d: boosted %.1f ms > bound %.1f ms + stall %.1f ms",
		    njobs, w, (b1 - b0) / 1e6, bound / 1e6, slack / 1e6);
		v0 = v1;
		f0 = f1;
		b0 = b1;
		t0 = t1;
	}
	kill(f, SIGKILL);
	kill(v, SIGKILL);
	wait_child(f);
	wait_child(v);
	t_diag("flood, %d job(s) of %d endpoints, budget_pct %llu, "
	       "cpu_budget_pct %llu, bound %llu%%: "
	       "worst victim share %.1f%% (not asserted; fair 50%%); "
	       "flooder at most %.1f%% = %.2fx the job budget; most boosted "
	       "per window %.1f%% of it", njobs, FLOOD_EPS / njobs,
	       (unsigned long long)job_pct, (unsigned long long)cpu_pct,
	       (unsigned long long)pct, worst * 100, (1 - worst) * 100,
	       (1 - worst) * 100 / job_pct,
	       bmax / WINDOW_NS * 100);
	ok(poll_until(sysfs_u64("stats/endpoints") == 0, 3000),
	   "flood: the flooder's endpoints are gone");
}

int main(int argc, char **argv)
{
	bool flood_only = argc > 1 && !strcmp(argv[1], "flood");

	if (nr_cpus() < 2)
		bail("needs 2 CPUs");
	pin_cpu(1);
	policy_set("dcs");
	fl = shared_alloc(sizeof(*fl));
	if (flood_only)
		goto flood;
	one_budget("budget_pct=10 (job, 8 endpoints)", 10, 100, 90, 90);
	one_budget("user_budget_pct=10", 100, 10, 90, 90);
	one_budget("cpu_budget_pct=10", 100, 100, 10, 90);
	one_budget("global_budget_pct=5 (10% of one CPU of 2)", 100, 100, 90, 5);
	/* Shown, not asserted: the default budgets. */
	budgets(30, 60, 50, 50);
	run("default budgets");
flood:
	flood(1);
	flood(4);
	policy_set("local");
	return t_done();
}
