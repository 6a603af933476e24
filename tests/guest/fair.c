// SPDX-License-Identifier: GPL-2.0
/*
 * fair: dcs-fair pays back the CPU time its boosts take (issue 14).
 *
 * Under dcs a FIFO boost runs outside the fair class, so the boosted
 * task keeps its fair share after the boost and the time the boost took
 * from its CPU's other tasks is lost to them.  Each part runs under
 * local, dcs and dcs-fair in turn, in this one guest, on CPU 0 with an
 * ordinary hog N, and measures N's share of the CPU time N and the
 * communicating process got (a ratio of CPU times, so a host that stalls
 * the vCPU moves both).  What is asserted is that the repayment works:
 * under dcs-fair N keeps at least 80% of what it keeps under local (dcs
 * left it 62-67% of that in the runs that set this bound, dcs-fair
 * 89-98%).  Issue 14's target, 90%, is a benchmark's: the ratio is
 * printed.
 *
 * 1. A never waits: a hog owning an endpoint whose doorbell the main
 *    process rings in a tight loop from CPU 1.  dcs-fair refuses A's
 *    boosts once it owes more than repay_max_debt_us (repay_refused
 *    counts them).
 * 2. R waits: after each message it computes 1 ms, then waits the way
 *    libcosched does (the control page's wait mode: busy polling under
 *    local and dcs; under dcs-fair spin spin_us, then YIELD, again until
 *    the message).  A sender on CPU 1 rings it every 4 ms.  Under
 *    dcs-fair R sleeps in YIELD while it owes (blocks count the sleeps);
 *    its arrival-to-seen delay is printed beside local's and dcs's, not
 *    asserted.
 */
#define _GNU_SOURCE
#include "check.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define JOB		0xfa1e0ull
#define RUN_NS		3000000000ull
#define COMPUTE_NS	1000000ull
#define PERIOD_NS	4000000ull

static const char *const policies[] = { "local", "dcs", "dcs-fair" };
#define NR_POLICIES	(sizeof(policies) / sizeof(policies[0]))

struct shared {
	int ready;
	u64 seen_msgs;		/* R: messages it saw */
	u64 delay_sum_ns;	/* R: arrival to seen, summed */
};

struct result {
	double n_share;		/* N's share of N's and the other's CPU time */
	struct cosched_stats st;
	u64 msgs;
	double delay_us;
};

/* Part 1's A: an endpoint's owner that never waits. */
static void never_waits(struct shared *sh)
{
	volatile unsigned long x = 0;
	struct ep e;

	pin_cpu(0);
	ep_must_open(&e, JOB, 0);
	WR(sh->ready, 1);
	for (;;)
		x++;
}

/* Part 2's R: computes after each message, waits as libcosched does. */
static void waits(struct shared *sh)
{
	u64 spin = sysfs_u64("spin_us") * 1000, seen, t;
	struct cosched_yield y;
	struct ep e;

	pin_cpu(0);
	ep_must_open(&e, JOB, 0);
	WR(sh->ready, 1);
	seen = RD(e.ctrl->arrivals);
	for (;;) {
		while (RD(e.ctrl->arrivals) == seen) {
			t = now_ns() + spin;
			while (RD(e.ctrl->arrivals) == seen && now_ns() < t)
				;
			if (RD(e.ctrl->arrivals) == seen &&
			    RD(e.ctrl->wait_mode) == COSCHED_WAIT_YIELD)
				ep_yield(e.fd, seen, &y);
		}
		seen = RD(e.ctrl->arrivals);
		t = now_ns();
		WR(sh->delay_sum_ns, sh->delay_sum_ns +
		   (t - RD(e.ctrl->last_arrival_ns)));
		WR(sh->seen_msgs, sh->seen_msgs + 1);
		spin_ns(COMPUTE_NS);
	}
}

/* The module's counters (the endpoints' end with their owners). */
static void module_stats(struct cosched_stats *s)
{
	s->boosts = sysfs_u64("stats/boosts");
	s->boosted_ns = sysfs_u64("stats/boosted_ns");
	s->yields = sysfs_u64("stats/yields");
	s->blocks = sysfs_u64("stats/blocks");
	s->budget_exhausted = sysfs_u64("stats/budget_exhausted");
	s->repay_refused = sysfs_u64("stats/repay_refused");
}

static struct result run(const char *policy, bool wait)
{
	struct shared *sh = shared_alloc(sizeof(*sh));
	struct result res = { 0 };
	u64 t0, n0, a0, n1, a1, end, next;
	pid_t a, n;
	int fd;

	policy_set(policy);
	a = fork();
	if (!a) {
		(wait ? waits : never_waits)(sh);
		_exit(0);
	}
	n = hog_start(0);
	if (!poll_until(RD(sh->ready), 2000))
		bail("the endpoint's owner did not start");
	fd = dev_open();
	pin_cpu(1);
	sleep_ns(100000000);	/* both on CPU 0 */

	t0 = now_ns();
	n0 = task_cpu_ns(n);
	a0 = task_cpu_ns(a);
	end = t0 + RUN_NS;
	for (next = t0; now_ns() < end; ) {
		if (doorbell(fd, JOB, 0, 1))
			bail("doorbell: %s", strerror(errno));
		if (wait) {
			next += PERIOD_NS;
			while (now_ns() < next)
				;
		}
	}
	n1 = task_cpu_ns(n);
	a1 = task_cpu_ns(a);
	res.msgs = RD(sh->seen_msgs);
	res.delay_us = res.msgs ? RD(sh->delay_sum_ns) / 1e3 / res.msgs : 0;
	hog_stop(n);
	hog_stop(a);
	close(fd);
	res.n_share = (double)(n1 - n0) / (double)(n1 - n0 + a1 - a0 + 1);
	return res;
}

static void part(const char *what, bool wait)
{
	struct cosched_stats s0, s1;
	struct result r[NR_POLICIES];
	size_t i;

	for (i = 0; i < NR_POLICIES; i++) {
		module_stats(&s0);
		r[i] = run(policies[i], wait);
		module_stats(&s1);
		r[i].st.boosts = s1.boosts - s0.boosts;
		r[i].st.boosted_ns = s1.boosted_ns - s0.boosted_ns;
		r[i].st.yields = s1.yields - s0.yields;
		r[i].st.blocks = s1.blocks - s0.blocks;
		r[i].st.budget_exhausted = s1.budget_exhausted -
					   s0.budget_exhausted;
		r[i].st.repay_refused = s1.repay_refused - s0.repay_refused;
		t_diag("%s, %s: N kept %.1f%% of CPU 0; %llu boosts (%.1f ms), "
		       "%llu sleeps, %llu refused for debt, %llu for budget; "
		       "%llu messages seen, %.0f us after their arrival",
		       what, policies[i], r[i].n_share * 100,
		       (unsigned long long)r[i].st.boosts,
		       r[i].st.boosted_ns / 1e6,
		       (unsigned long long)r[i].st.blocks,
		       (unsigned long long)r[i].st.repay_refused,
		       (unsigned long long)r[i].st.budget_exhausted,
		       (unsigned long long)r[i].msgs, r[i].delay_us);
	}
	t_diag("%s: N's share against local's: dcs %.2f, dcs-fair %.2f "
	       "(target 0.90)", what, r[1].n_share / r[0].n_share,
	       r[2].n_share / r[0].n_share);
	okf(r[2].n_share >= 0.8 * r[0].n_share, what,
	    "%s: N kept %.1f%% under dcs-fair, under 80%% of local's %.1f%% "
	    "(dcs: %.1f%%)", what, r[2].n_share * 100, r[0].n_share * 100,
	    r[1].n_share * 100);
	okf(r[2].st.boosts > 0, what, "%s: dcs-fair never boosted", what);
	if (wait)
		okf(r[2].st.blocks > 0, what,
		    "%s: the receiver never slept off a debt", what);
	else
		okf(r[2].st.repay_refused > 0, what,
		    "%s: dcs-fair never refused a boost for debt", what);
}

int main(int argc, char **argv)
{
	char orig[32];

	policy_get(orig, sizeof(orig));
	/* fair POLICY...: part 2 under each, measured only (no checks). */
	for (int i = 1; i < argc; i++) {
		struct result r = run(argv[i], true);

		t_diag("%s: N kept %.1f%%; %llu messages, %.0f us", argv[i],
		       r.n_share * 100, (unsigned long long)r.msgs, r.delay_us);
	}
	if (argc > 1) {
		policy_set(orig);
		return t_done();
	}
	part("a hog with an endpoint, rung nonstop", false);
	part("a receiver computing 1 ms per message every 4 ms", true);
	policy_set(orig);
	return t_done();
}
