// SPDX-License-Identifier: GPL-2.0
/*
 * yield: spin-then-yield (policy sy).
 *
 * On CPU 0 only two processes: T busy-polls for its message, Y spins for
 * its own.  Y rings T (so T has a pending message while Y, not T, holds
 * the CPU) and calls YIELD.  T consumes only after that YIELD returned,
 * so its message is pending whenever YIELD looks: T must be the target, Y lowered to nice 19
 * with YIELDED set, a second YIELD for the same seen lowers nothing, T
 * gets the CPU, and a doorbell to Y gives Y its own nice back.  The same
 * scenario under local (Y keeps spinning) gives the latency to compare.
 * Before that, one process checks every other way back from a yield
 * (WAIT or YIELD with another seen, DESTROY) and that SCHED_BATCH and its
 * nice come back.
 */
#define _GNU_SOURCE
#include "check.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define JOB		0x71e1d0ull
#define ROUNDS		10
#define Y_NICE		2
#define Z_NICE		3

static int nice_of(pid_t tid)
{
	errno = 0;
	return getpriority(PRIO_PROCESS, tid);
}

/* ---- the ways back from a yield, in one process ---- */

static void restore_paths(void)
{
	struct sched_param sp = { 0 };
	struct cosched_yield y;
	struct cosched_stats st;
	struct ep z;

	pin_cpu(1);
	if (sched_setscheduler(0, SCHED_BATCH, &sp) ||
	    setpriority(PRIO_PROCESS, 0, Z_NICE))
		bail("SCHED_BATCH nice %d: %s", Z_NICE, strerror(errno));
	ep_must_open(&z, JOB + 1, 0);

	expect_neg(ep_yield(z.fd, 1, &y), 0, "YIELD after a message arrived");
	expect_eq(y.lowered, 0, "... lowered = 0 (arrivals != seen)");
	expect_eq(nice_of(0), Z_NICE, "... nice unchanged");

	expect_neg(ep_yield(z.fd, 0, &y), 0, "YIELD(seen = arrivals)");
	expect_eq(y.lowered, 1, "... lowered = 1");
	expect_eq(y.target_id, 0, "... target_id 0 (nothing pending here)");
	expect_eq(nice_of(0), 19, "... SCHED_BATCH task now nice 19");
	ok(RD(z.ctrl->state) & COSCHED_STATE_YIELDED, "... state has YIELDED");

	expect_neg(ep_wait(z.fd, 5, 1000000), 0, "WAIT with another seen");
	expect_eq(nice_of(0), Z_NICE, "... gives the nice back");
	expect_eq(sched_getscheduler(0), SCHED_BATCH, "... and SCHED_BATCH");
	ok(!(RD(z.ctrl->state) & COSCHED_STATE_YIELDED), "... YIELDED clear");

	doorbell(z.fd, z.job, z.rank, 1);
	WR(z.ctrl->consumed, 1);
	expect_neg(ep_yield(z.fd, 1, &y), 0, "YIELD for the next seen");
	expect_eq(y.lowered, 1, "... lowered = 1");
	expect_eq(nice_of(0), 19, "... nice 19");
	expect_neg(ep_yield(z.fd, 2, &y), 0, "YIELD with another seen");
	expect_eq(y.lowered, 0, "... lowered = 0");
	expect_eq(nice_of(0), Z_NICE, "... gives the nice back");
	ok(!(RD(z.ctrl->state) & COSCHED_STATE_YIELDED), "... YIELDED clear");

	doorbell(z.fd, z.job, z.rank, 1);
	WR(z.ctrl->consumed, 2);
	expect_neg(ep_yield(z.fd, 2, &y), 0, "YIELD once more");
	expect_eq(nice_of(0), 19, "... nice 19");
	ep_stats(z.fd, &st);
	expect_eq(st.yields, 3, "STATS yields counts the 3 lowering YIELDs");
	expect_neg(ep_destroy(z.fd), 0, "DESTROY while lowered");
	expect_eq(nice_of(0), Z_NICE, "... gives the nice back");
	expect_eq(sched_getscheduler(0), SCHED_BATCH, "... and SCHED_BATCH");
	ep_close(&z);
}

/* ---- T and Y on CPU 0 ---- */

struct shared {
	int go;				/* round the controller started */
	int stop;
	int t_done;			/* rounds T has consumed */
	int y_first;			/* rounds Y's first YIELD returned in */
	int y_yielded;			/* rounds Y has yielded twice in */
	int y_done;			/* rounds Y has consumed */
	u64 t_seen[ROUNDS + 1];		/* T saw its message */
	u64 t_ring[ROUNDS + 1];		/* Y rang T */
	u64 t_yield[ROUNDS + 1];	/* Y entered YIELD */
	u64 target[ROUNDS + 1];
	u32 lowered[ROUNDS + 1], lowered2[ROUNDS + 1];
	int err;
	int yield;			/* the scenario yields */
};

static struct shared *sh;

static void proc_t(int fd)
{
	struct cosched_ctrl *ctrl;
	u64 seen = 0, a;

	pin_cpu(0);
	if (ep_create_fd(fd, JOB, 0, NULL) || !(ctrl = ctrl_map(fd)))
		_exit(1);
	while (!RD(sh->stop)) {
		a = RD(ctrl->arrivals);
		if (a == seen) {
			cpu_relax();
			continue;
		}
		sh->t_seen[a] = now_ns();
		/* Stay pending until Y's YIELD has looked (local: no YIELD). */
		while (RD(sh->y_first) < (int)a && !RD(sh->stop) && RD(sh->yield))
			cpu_relax();
		seen = a;
		WR(ctrl->consumed, a);
		WR(sh->t_done, (int)a);
	}
	_exit(0);
}

static void proc_y(int fd, bool yield)
{
	struct cosched_yield y;
	struct cosched_ctrl *ctrl;
	u64 seen;

	pin_cpu(0);
	setpriority(PRIO_PROCESS, 0, Y_NICE);
	if (ep_create_fd(fd, JOB, 1, NULL) || !(ctrl = ctrl_map(fd)))
		_exit(1);
	for (int r = 1; r <= ROUNDS; r++) {
		while (RD(sh->go) < r || RD(sh->t_done) < r - 1)
			cpu_relax();
		seen = RD(ctrl->arrivals);
		sh->t_ring[r] = now_ns();
		if (doorbell(fd, JOB, 0, 1))
			WR(sh->err, errno);
		if (yield) {
			sh->t_yield[r] = now_ns();
			if (ep_yield(fd, seen, &y))
				WR(sh->err, errno);
			sh->target[r] = y.target_id;
			sh->lowered[r] = y.lowered;
			WR(sh->y_first, r);
			if (ep_yield(fd, seen, &y))
				WR(sh->err, errno);
			sh->lowered2[r] = y.lowered;
			WR(sh->y_yielded, r);
		}
		/* Spin for our own message. */
		while (RD(ctrl->arrivals) == seen)
			cpu_relax();
		WR(ctrl->consumed, RD(ctrl->arrivals));
		WR(sh->y_done, r);
	}
	_exit(0);
}

#define WAIT_FOR(cond, ms, what) ({					\
	bool __w = poll_until(cond, ms);				\
	if (!__w)							\
		t_diag("round %d: timed out waiting for %s", r, what);	\
	__w;								\
})

/* Returns the median latency in ns of the valid rounds. */
static u64 scenario(bool yield)
{
	const char *mode = yield ? "sy" : "local";
	int fdt = dev_open(), fdy = dev_open(), valid = 0;
	int as_target = 0, low1 = 0, low0 = 0, nice19 = 0, yflag = 0;
	int restored = 0, unflag = 0, seen_ok = 0;
	struct cosched_ctrl *yc = NULL;
	pid_t t, y;
	u64 tid_t = 0, lat[ROUNDS], med;
	char n[160];
	int r = 0;

	memset(sh, 0, sizeof(*sh));
	sh->yield = yield;
	policy_set(mode);
	if (!(t = fork()))
		proc_t(fdt);
	if (!(y = fork()))
		proc_y(fdy, yield);
	/* The controller reads both control pages through the shared files. */
	if (!poll_until((yc = ctrl_map(fdy)) != NULL, 2000))
		bail("Y endpoint did not appear");
	struct cosched_ctrl *tc = NULL;

	if (!poll_until((tc = ctrl_map(fdt)) != NULL, 2000))
		bail("T endpoint did not appear");
	tid_t = tc->endpoint_id;

	for (r = 1; r <= ROUNDS; r++) {
		WR(sh->go, r);
		if (!WAIT_FOR(RD(sh->t_done) >= r, 3000, "T to see its message"))
			break;
		seen_ok++;
		if (yield) {
			if (!WAIT_FOR(RD(sh->y_yielded) >= r, 5000, "Y's two YIELDs"))
				break;
			valid++;
			as_target += sh->target[r] == tid_t;
			if (sh->target[r] != tid_t)
				t_diag("round %d: target_id %llu, T is %llu", r,
				       (unsigned long long)sh->target[r],
				       (unsigned long long)tid_t);
			/* T may have run before the YIELD (Y preempted). */
			lat[valid - 1] = sh->t_seen[r] > sh->t_yield[r] ?
					 sh->t_seen[r] - sh->t_yield[r] : 0;
			low1 += sh->lowered[r] == 1;
			low0 += sh->lowered2[r] == 0;
			nice19 += nice_of(y) == 19;
			yflag += !!(RD(yc->state) & COSCHED_STATE_YIELDED);
		} else {
			lat[valid++] = sh->t_seen[r] - sh->t_ring[r];
		}
		doorbell(fdt, JOB, 1, 1);	/* Y's message */
		if (yield) {
			restored += poll_until(nice_of(y) == Y_NICE, 1000);
			unflag += poll_until(!(RD(yc->state) & COSCHED_STATE_YIELDED),
					     1000);
		}
		if (!WAIT_FOR(RD(sh->y_done) >= r, 3000, "Y to see its message"))
			break;
	}
	{
		struct cosched_stats ts;

		ep_stats(fdt, &ts);
		t_diag("%s: T's STATS: arrivals %llu, boosts %llu, budget_exhausted %llu",
		       mode, (unsigned long long)ts.arrivals,
		       (unsigned long long)ts.boosts,
		       (unsigned long long)ts.budget_exhausted);
	}
	WR(sh->stop, 1);
	kill(y, SIGKILL);
	wait_child(t);
	wait_child(y);
	munmap(yc, (size_t)sysconf(_SC_PAGESIZE));
	munmap(tc, (size_t)sysconf(_SC_PAGESIZE));
	close(fdt);
	close(fdy);

	snprintf(n, sizeof(n), "%s: T saw its message in every round", mode);
	expect_eq(seen_ok, ROUNDS, n);
	okf(!sh->err, "ioctls of Y succeeded", "errno %d", sh->err);
	if (yield) {
		expect_eq(as_target, seen_ok, "sy: YIELD target_id = T's endpoint id");
		expect_eq(low1, seen_ok, "sy: first YIELD lowered = 1");
		expect_eq(low0, seen_ok, "sy: second YIELD, same seen: lowered = 0");
		expect_eq(nice19, seen_ok, "sy: the yielder is nice 19");
		expect_eq(yflag, seen_ok, "sy: the yielder's state has YIELDED");
		expect_eq(restored, seen_ok,
			  "sy: a doorbell gives the yielder its own nice back");
		expect_eq(unflag, seen_ok, "sy: ... and clears YIELDED");
	}
	if (!valid)
		return 0;
	med = percentile(lat, valid, 50);
	t_diag("%s: T's message seen %s: median %.1f us, max %.1f us (%d rounds)",
	       mode, yield ? "after Y's YIELD" : "after the ring (Y spins on)",
	       med / 1e3, percentile(lat, valid, 100) / 1e3, valid);
	return med;
}

int main(void)
{
	pid_t z;
	u64 sy, local;

	if (nr_cpus() < 2)
		bail("needs 2 CPUs");
	policy_set("sy");
	if (!(z = fork())) {
		restore_paths();
		_exit(0);
	}
	wait_child(z);

	sh = shared_alloc(sizeof(*sh));
	pin_cpu(1);
	sy = scenario(true);
	local = scenario(false);
	if (sy && local)
		t_diag("yield-to-T-seen median under sy %.1f us vs local ring-to-seen "
		       "%.1f us (ratio %.3f)", sy / 1e3, local / 1e3,
		       (double)sy / (double)local);
	policy_set("local");
	return t_done();
}
