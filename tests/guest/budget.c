// SPDX-License-Identifier: GPL-2.0
/*
 * budget: boosts must not buy a job more than its budget of CPU.
 *
 * Under dcs, process A (an endpoint, itself a CPU hog) and an ordinary
 * hog N share CPU 0 while a helper on CPU 1 rings A's doorbell in a tight
 * loop.  With budget_pct=10, N must keep at least 40% of CPU 0 (fair
 * share 50%, minus at most 10% boosted).  The same run with
 * budget_pct=100 is printed to show what the budget prevents.
 */
#define _GNU_SOURCE
#include "check.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define JOB		0xb0d6e7ull
#define RUN_NS		3000000000ull

struct result {
	double n_share, a_share;
	struct cosched_stats st;
	u64 rings;
};

static struct result run(u64 pct)
{
	struct result res = { 0 };
	int fd = dev_open(), *ready = shared_alloc(sizeof(int));
	u64 t0, t1, n0, n1, a0, a1, end;
	pid_t a, n;

	sysfs_set_u64("budget_pct", pct);
	a = fork();
	if (!a) {
		/* A: owns the endpoint and never stops computing. */
		volatile unsigned long x = 0;

		pin_cpu(0);
		if (ep_create_fd(fd, JOB, 0, NULL))
			_exit(1);
		WR(*ready, 1);
		for (;;)
			x++;
	}
	n = hog_start(0);
	if (!poll_until(RD(*ready), 2000))
		bail("A did not create its endpoint");

	t0 = now_ns();
	n0 = task_cpu_ns(n);
	a0 = task_cpu_ns(a);
	end = t0 + RUN_NS;
	while (now_ns() < end) {
		if (doorbell(fd, JOB, 0, 1))
			bail("doorbell: %s", strerror(errno));
		res.rings++;
	}
	t1 = now_ns();
	n1 = task_cpu_ns(n);
	a1 = task_cpu_ns(a);
	ep_stats(fd, &res.st);
	hog_stop(n);
	hog_stop(a);
	close(fd);
	res.n_share = (double)(n1 - n0) / (double)(t1 - t0);
	res.a_share = (double)(a1 - a0) / (double)(t1 - t0);
	t_diag("budget_pct %3llu: N kept %.1f%% of CPU 0, A got %.1f%%; %llu rings, "
	       "%llu boosts, boosted %.1f ms, %llu refused by the budget",
	       (unsigned long long)pct, res.n_share * 100, res.a_share * 100,
	       (unsigned long long)res.rings, (unsigned long long)res.st.boosts,
	       res.st.boosted_ns / 1e6,
	       (unsigned long long)res.st.budget_exhausted);
	return res;
}

int main(void)
{
	struct result r10;

	if (nr_cpus() < 2)
		bail("needs 2 CPUs");
	pin_cpu(1);
	policy_set("dcs");
	r10 = run(10);
	okf(r10.n_share >= 0.40, "budget_pct=10: the normal process keeps >= 40% of CPU 0",
	    "it kept %.1f%%", r10.n_share * 100);
	ok(r10.st.boosts > 0, "budget_pct=10: A was boosted");
	ok(r10.st.budget_exhausted > 0, "budget_pct=10: boosts were refused");
	run(100);	/* shown, not asserted: what the budget prevents */
	sysfs_set_u64("budget_pct", 30);
	policy_set("local");
	return t_done();
}
