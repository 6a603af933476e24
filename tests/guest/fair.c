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
 * 3. Part 1 with A closing its endpoint and making a new one every
 *    50 ms: a debt survives the fresh task record (it goes to the user
 *    and back).
 * 4. (yield_end() below) YIELD_END and another thread's YIELD do not
 *    sleep a debt off; the owner's YIELD does.
 * 5. (sleeps_through() below) a repaying sleep lasts through the
 *    message it waits for while the debt is over half repay_max_debt_us,
 *    and ends at it below that (both are seen in one round).
 */
#define _GNU_SOURCE
#include "check.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
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

enum mode { NEVER_WAITS, REOPENS, WAITS };

/*
 * Part 1's A: an endpoint's owner that never waits; with @reopen it
 * closes its endpoint and makes a new one every 50 ms (a fresh task
 * record each time: the debt must survive that).
 */
static void never_waits(struct shared *sh, bool reopen)
{
	volatile unsigned long x = 0;
	struct ep e;
	u64 next;

	pin_cpu(0);
	ep_must_open(&e, JOB, 0);
	WR(sh->ready, 1);
	for (next = now_ns() + 50000000ull;; x++) {
		if (!reopen || !(x & 0xffff) || now_ns() < next)
			continue;
		ep_close(&e);
		ep_must_open(&e, JOB, 0);
		next = now_ns() + 50000000ull;
	}
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

/*
 * Once the forked owner says @ready: a hog on CPU 0 beside it (@hog),
 * the caller on CPU 1 with a /dev/cosched file to ring from.
 */
static int beside_hog(const int *ready, pid_t *hog)
{
	*hog = hog_start(0);
	if (!poll_until(RD(*ready), 2000))
		bail("the endpoint's owner did not start");
	pin_cpu(1);
	return dev_open();
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

static struct result run(const char *policy, enum mode mode)
{
	bool wait = mode == WAITS;
	struct shared *sh = shared_alloc(sizeof(*sh));
	struct result res = { 0 };
	u64 t0, n0, a0, n1, a1, end, next;
	pid_t a, n;
	int fd;

	policy_set(policy);
	a = fork();
	if (!a) {
		if (wait)
			waits(sh);
		else
			never_waits(sh, mode == REOPENS);
		_exit(0);
	}
	fd = beside_hog(&sh->ready, &n);
	sleep_ns(100000000);	/* both on CPU 0 */

	t0 = now_ns();
	n0 = task_cpu_ns(n);
	a0 = task_cpu_ns(a);
	end = t0 + RUN_NS;
	for (next = t0; now_ns() < end; ) {
		int err = doorbell(fd, JOB, 0, 1);

		/* A reopening A has no endpoint for a moment. */
		if (err && (err != -ENOENT || mode != REOPENS))
			bail("doorbell: %s", strerror(-err));
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

static void part(const char *what, enum mode mode)
{
	bool wait = mode == WAITS;
	struct cosched_stats s0, s1;
	struct result r[NR_POLICIES];
	size_t i;

	for (i = 0; i < NR_POLICIES; i++) {
		module_stats(&s0);
		r[i] = run(policies[i], mode);
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

/* ---- 4: what does not sleep a debt off ---------------------------- */

#define THROUGH_TRIES	300
#define THROUGH_ROUNDS	3
#define AFTER_ENDED	5

struct dshared {
	int ready, go, done;
	u64 blocks[4];
	/*
	 * Part 5: the round the main process has built D's debt for (-1:
	 * no more), D's try number while it sleeps (-1: the round is over),
	 * and the try it has answered.
	 */
	int round, asleep, answered;
	/*
	 * Sleeps that lasted through the ring (all rounds), that the ring
	 * ended in the rounds that saw one through, and in all rounds.
	 */
	int through, ended, ended_any;
};

/* This thread's time kept waiting on a runqueue (schedstat), in ns. */
static u64 run_delay_ns(void)
{
	u64 ran, waited;

	if (!task_schedstat(0, &ran, &waited))
		bail("/proc/thread-self/schedstat: %s", strerror(errno));
	return waited;
}

static struct cosched_stats ep_counts(int fd)
{
	struct cosched_stats st;

	if (ep_stats(fd, &st))
		bail("STATS: %s", strerror(errno));
	return st;
}

static u64 ep_blocks(int fd)
{
	return ep_counts(fd).blocks;
}

static int yield_flags(int fd, u64 seen, u32 flags)
{
	struct cosched_yield y = { .seen = seen, .flags = flags };

	return ioctl(fd, COSCHED_IOC_YIELD, &y) ? -errno : 0;
}

struct other {
	int fd;
	u64 seen;
};

static void *other_thread(void *arg)
{
	struct other *o = arg;

	yield_flags(o->fd, o->seen, 0);
	return NULL;
}

/*
 * Part 5's D, one round: YIELDs while owing, until it has seen both
 * kinds of sleep (AFTER_ENDED of those the ring ended) or THROUGH_TRIES;
 * the main process rings 1 ms into each YIELD.  A try counts when the
 * ring came while D was in the YIELD and D slept.  The endpoint's
 * wakeups (sleeps ended by an arrival) tell a sleep the ring ended from
 * one that outlasted it, which must also have ended 0.5 ms after the
 * ring, its end being its return less the time D waited on a runqueue
 * in the YIELD (a sleep that timed out before a late ring proves
 * nothing).  D begins owing about repay_max_debt_us (its boosts were
 * refused there), so its first sleeps outlast the ring; each pays part
 * of the debt, and once under half of it the ring ends them.  The order
 * is not asserted: a boost at a ring may lift the debt back over half.
 */
static void sleeps_through(struct dshared *sh, struct ep *e)
{
	int i, through = 0, ended = 0;

	for (i = 1; i <= THROUGH_TRIES && !(through && ended >= AFTER_ENDED);
	     i++) {
		u64 seen = RD(e->ctrl->arrivals), back, delay = run_delay_ns();
		struct cosched_stats before = ep_counts(e->fd), after;

		WR(sh->asleep, i);
		yield_flags(e->fd, seen, 0);
		back = now_ns();
		back -= run_delay_ns() - delay;
		after = ep_counts(e->fd);
		WR(sh->answered, i);
		if (after.blocks == before.blocks ||
		    RD(e->ctrl->arrivals) == seen)
			continue;
		if (after.wakeups != before.wakeups)
			ended++;
		else if (back >= RD(e->ctrl->last_arrival_ns) + 500000ull)
			through++;
	}
	sh->through += through;
	sh->ended_any += ended;
	/* An ended sleep counts in the round that saw one through. */
	if (through)
		sh->ended += ended;
	WR(sh->asleep, -1);
}

/* D: spins (and is boosted) until told, then yields in three ways. */
static void debtor(struct dshared *sh)
{
	volatile unsigned long x = 0;
	struct other o;
	pthread_t th;
	struct ep e;
	int round;

	pin_cpu(0);
	ep_must_open(&e, JOB + 1, 0);
	WR(sh->ready, 1);
	while (!RD(sh->go))
		x++;
	o.fd = e.fd;
	o.seen = RD(e.ctrl->arrivals);
	sh->blocks[0] = ep_blocks(e.fd);
	yield_flags(e.fd, o.seen, COSCHED_YIELD_END);
	sh->blocks[1] = ep_blocks(e.fd);
	if (pthread_create(&th, NULL, other_thread, &o) ||
	    pthread_join(th, NULL))
		bail("pthread");
	sh->blocks[2] = ep_blocks(e.fd);
	yield_flags(e.fd, o.seen, 0);
	sh->blocks[3] = ep_blocks(e.fd);
	WR(sh->done, 1);
	for (round = 1;; round++) {
		/* Spinning, and boosted by the rings: owing again. */
		while (RD(sh->round) != round && RD(sh->round) >= 0)
			x++;
		if (RD(sh->round) < 0)
			break;
		sleeps_through(sh, &e);
	}
	for (;;)
		x++;
}

/* Part 5's ringer, one round: 1 ms into each of D's YIELDs, one message. */
static void ring_into_sleeps(struct dshared *sh, int fd)
{
	u64 deadline;
	int i, err;

	/* D may be a try or more ahead: its sleep can end before the ring. */
	for (i = 1;; i++) {
		/* Spun, not polled: the ring is to land 1 ms into the YIELD. */
		deadline = now_ns() + 5000000000ull;
		while (RD(sh->asleep) < i && RD(sh->asleep) >= 0)
			if (now_ns() > deadline)
				bail("D did not yield again");
		i = RD(sh->asleep);
		if (i < 0)
			return;
		spin_ns(1000000ull);
		err = doorbell(fd, JOB + 1, 0, 1);
		if (err)
			bail("doorbell: %s", strerror(-err));
		if (!poll_until(RD(sh->answered) >= i || RD(sh->asleep) < 0,
				5000))
			bail("D did not wake");
	}
}

/* Part 5: rounds of debt and rung sleeps until one saw a sleep through. */
static void part5(struct dshared *sh, int fd)
{
	int round;

	for (round = 1; round <= THROUGH_ROUNDS && !RD(sh->through); round++) {
		if (round > 1)
			ring_every_ms(fd, JOB + 1, 0, 300);
		WR(sh->answered, 0);
		WR(sh->asleep, 0);
		WR(sh->round, round);
		ring_into_sleeps(sh, fd);
	}
	WR(sh->round, -1);
}

/*
 * 4. D, beside a hog on CPU 0, is rung every ms for 300 ms under
 *    dcs-fair, boosted, and so owes.  A YIELD saying the message came
 *    another way (COSCHED_YIELD_END) and a YIELD from another of its
 *    threads (whose sleep would give nobody any CPU back, yet would be
 *    credited) must not sleep; then the owner's own YIELD does (the
 *    debt was there).  Counted by the endpoint's blocks, not timed.
 */
static void yield_end(void)
{
	struct dshared *sh = shared_alloc(sizeof(*sh));
	bool has_max_debt = sysfs_u64("repay_max_debt_us") != 0;
	pid_t d, n;
	int fd;

	policy_set("dcs-fair");
	d = fork();
	if (!d) {
		debtor(sh);
		_exit(0);
	}
	fd = beside_hog(&sh->ready, &n);
	ring_every_ms(fd, JOB + 1, 0, 300);
	WR(sh->go, 1);
	if (!poll_until(RD(sh->done), 5000))
		bail("D did not yield");
	/* With no maximum no sleep lasts through: part 5 has nothing to see. */
	if (has_max_debt)
		part5(sh, fd);
	hog_stop(n);
	hog_stop(d);
	close(fd);
	okf(sh->blocks[1] == sh->blocks[0], "YIELD_END under dcs-fair does not sleep",
	    "%llu sleeps", (unsigned long long)(sh->blocks[1] - sh->blocks[0]));
	okf(sh->blocks[2] == sh->blocks[1],
	    "another thread's YIELD does not sleep the owner's debt off",
	    "%llu sleeps", (unsigned long long)(sh->blocks[2] - sh->blocks[1]));
	okf(sh->blocks[3] > sh->blocks[2], "the owing owner's YIELD sleeps",
	    "no sleep: D owed nothing after 300 ms of boosts?");
	t_diag("part 5: of the sleeps rung into, %d lasted through the ring, "
	       "%d ended at it (%d in the rounds that saw one through)",
	       sh->through, sh->ended_any, sh->ended);
	if (!has_max_debt) {
		t_skip("a repaying sleep lasts through a message while the debt is large",
		       "repay_max_debt_us is 0: no sleep lasts through");
		return;
	}
	if (!sh->through && !sh->ended_any) {
		t_skip("a repaying sleep lasts through a message while the debt is large",
		       "no ring landed inside a sleep (a busy host?)");
		return;
	}
	okf(sh->through, "a repaying sleep lasts through a message while the debt is large",
	    "every sleep (%d) ended at its ring, in %d rounds",
	    sh->ended_any, THROUGH_ROUNDS);
	okf(sh->ended, "a small debt's sleep ends at the message",
	    "none of the sleeps rung into in the round that saw %d through",
	    sh->through);
}

int main(void)
{
	char orig[32];

	policy_get(orig, sizeof(orig));
	part("a hog with an endpoint, rung nonstop", NEVER_WAITS);
	part("the same, its endpoint closed and made anew every 50 ms",
	     REOPENS);
	part("a receiver computing 1 ms per message every 4 ms", WAITS);
	yield_end();
	policy_set(orig);
	return t_done();
}
