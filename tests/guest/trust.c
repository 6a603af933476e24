// SPDX-License-Identifier: GPL-2.0
/*
 * trust: the control page is a mirror of kernel state, not an input.
 *  - forged on_cpu=0 plus a doorbell to itself while on its CPU, under
 *    dcs: no boost; really off its CPU (asleep), with a forged on_cpu=1
 *    and state BOOSTED|DEAD: boosted.
 *  - forged arrivals=1000: WAIT(seen=0) still waits (-ETIMEDOUT); a
 *    forged peers_lost: no -ECONNRESET.
 *  - forged cpu=100000 under pb: boosts still happen, nothing crashes.
 *  - WAIT with timeout_ns = UINT64_MAX waits for the arrival (0).
 *  - on_cpu in the control page and ring header is exact for a task's
 *    first COSCHED_TASK_MIRRORS (4) endpoints and 0 for later ones,
 *    across destruction in several orders, by the owner, another thread
 *    and another process, and for an endpoint whose thread exited;
 *    afterwards nothing is left and the module unloads.
 * The endpoints' owner is a thread that sleeps in read() on a pipe
 * between the commands the main thread gives it.
 */
#define _GNU_SOURCE
#include "check.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define JOB		0x7c0571ull
#define MIRRORS		4	/* COSCHED_TASK_MIRRORS of the module */
#define NEP		8

enum { OP_CREATE = 1, OP_DESTROY, OP_CHECK, OP_SELF_RING, OP_EXIT };

static struct ep eps[NEP];
static struct cosched_ring *rings[NEP];

static struct {
	pthread_t th;
	int pipe[2];
	int op, arg;
	int acks;
	int ctrl_on[NEP], ring_on[NEP];	/* what OP_CHECK saw, -1: none */
} own;

static void ep_drop(int r)
{
	if (rings[r])
		munmap(rings[r], getpagesize());
	rings[r] = NULL;
	ep_close(&eps[r]);
}

static void ep_make(int r)
{
	void *p;

	ep_must_open(&eps[r], JOB, r);
	p = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE, MAP_SHARED,
		 eps[r].fd, COSCHED_RING_OFFSET(r));
	if (p == MAP_FAILED)
		bail("ring mmap: %s", strerror(errno));
	rings[r] = p;
}

static void *owner_main(void *unused)
{
	char c;
	int r;

	(void)unused;
	for (;;) {
		if (read(own.pipe[0], &c, 1) != 1)
			return NULL;
		switch (RD(own.op)) {
		case OP_CREATE:
			ep_make(own.arg);
			break;
		case OP_DESTROY:
			ep_drop(own.arg);
			break;
		case OP_CHECK:
			/* Read on its CPU, by the owner itself. */
			for (r = 0; r < NEP; r++) {
				own.ctrl_on[r] = eps[r].ctrl ?
					(int)RD(eps[r].ctrl->on_cpu) : -1;
				own.ring_on[r] = rings[r] ?
					(int)RD(rings[r]->on_cpu) : -1;
			}
			break;
		case OP_SELF_RING:
			if (doorbell(eps[own.arg].fd, JOB, own.arg, 1))
				bail("doorbell: %s", strerror(errno));
			break;
		case OP_EXIT:
			__atomic_add_fetch(&own.acks, 1, __ATOMIC_RELEASE);
			return NULL;
		}
		__atomic_add_fetch(&own.acks, 1, __ATOMIC_RELEASE);
	}
}

static void owner_start(void)
{
	if (pipe(own.pipe))
		bail("pipe: %s", strerror(errno));
	if (pthread_create(&own.th, NULL, owner_main, NULL))
		bail("pthread_create");
}

static void cmd(int op, int arg)
{
	int acks = RD(own.acks);

	WR(own.op, op);
	WR(own.arg, arg);
	if (write(own.pipe[1], "c", 1) != 1)
		bail("write: %s", strerror(errno));
	if (!poll_until(RD(own.acks) != acks, 5000))
		bail("the owner thread did not do command %d", op);
}

static void owner_exit(void)
{
	cmd(OP_EXIT, 0);
	pthread_join(own.th, NULL);
	close(own.pipe[0]);
	close(own.pipe[1]);
}

static u64 boosts_of(struct ep *e)
{
	struct cosched_stats st = { 0 };

	ep_stats(e->fd, &st);
	return st.boosts;
}

/* ---- 7: forged fields ---------------------------------------------- */

static void test_forged_on_cpu(void)
{
	struct ep e;
	int i;

	ep_must_open(&e, JOB + 1, 0);
	/* On its CPU, it says it is not, and rings itself. */
	for (i = 0; i < 20; i++) {
		WR(e.ctrl->on_cpu, 0);
		if (doorbell(e.fd, JOB + 1, 0, 1))
			bail("doorbell: %s", strerror(errno));
		/* Consumed at once: a later preemption has nothing to boost. */
		WR(e.ctrl->consumed, RD(e.ctrl->arrivals));
	}
	expect_eq(boosts_of(&e), 0,
		  "dcs: forged on_cpu=0 while on its CPU: its own doorbell boosts nothing");
	expect_eq(RD(e.ctrl->arrivals), 20, "the mirror shows the kernel's arrival count");
	ep_close(&e);
}

static void test_off_cpu_boosts(void)
{
	int fd = dev_open();

	cmd(OP_CREATE, 0);
	ok(poll_until(RD(eps[0].ctrl->on_cpu) == 0, 2000), "the owner went to sleep");
	/* Forged while it sleeps: it claims to run, boosted and dead. */
	WR(eps[0].ctrl->on_cpu, 1);
	WR(eps[0].ctrl->state, COSCHED_STATE_BOOSTED | COSCHED_STATE_DEAD);
	WR(rings[0]->on_cpu, 1);
	expect_neg(doorbell(fd, JOB, 0, 1), 0, "doorbell to the sleeping owner");
	expect_eq(boosts_of(&eps[0]), 1,
		  "dcs: really off its CPU, forged on_cpu=1/state: boosted anyway");
	ok(!(RD(eps[0].ctrl->state) & COSCHED_STATE_DEAD),
	   "the kernel rewrote the forged state");
	WR(eps[0].ctrl->consumed, RD(eps[0].ctrl->arrivals));
	cmd(OP_DESTROY, 0);
	close(fd);
}

static void test_forged_arrivals(void)
{
	struct ep e;
	u64 t0, dt;
	int r;

	ep_must_open(&e, JOB + 2, 0);
	WR(e.ctrl->arrivals, 1000);
	t0 = now_ns();
	r = ep_wait(e.fd, 0, 200000000);
	dt = now_ns() - t0;
	okf(r == -ETIMEDOUT && dt >= 150000000,
	    "forged arrivals=1000: WAIT(seen=0) waits its timeout",
	    "returned %d (%s) after %.1f ms", r, r ? strerror(-r) : "0", dt / 1e6);
	WR(e.ctrl->peers_lost, 5);
	r = ep_wait(e.fd, 0, 50000000);
	expect_neg(r, ETIMEDOUT, "forged peers_lost=5: WAIT times out, no ECONNRESET");
	ep_close(&e);
}

static void test_forged_cpu_pb(void)
{
	u64 b0;

	policy_set("pb");
	cmd(OP_CREATE, 0);
	/* Pending: a message it never consumes. */
	cmd(OP_SELF_RING, 0);
	ok(poll_until(RD(eps[0].ctrl->on_cpu) == 0, 2000), "the owner went to sleep");
	b0 = boosts_of(&eps[0]);
	WR(eps[0].ctrl->cpu, 100000);
	okf(poll_until(boosts_of(&eps[0]) > b0, 3000),
	    "pb: forged cpu=100000: the pending endpoint is still boosted",
	    "boosts %llu", (unsigned long long)boosts_of(&eps[0]));
	WR(eps[0].ctrl->cpu, 100000);
	sleep_ns(50000000);
	cmd(OP_DESTROY, 0);
	policy_set("dcs");
}

struct late_ring {
	int fd;
	u64 delay_ns;
};

static void *ring_later(void *arg)
{
	struct late_ring *l = arg;

	sleep_ns(l->delay_ns);
	doorbell(l->fd, JOB + 3, 0, 1);
	return NULL;
}

/* ---- 8: a timeout beyond INT64_MAX --------------------------------- */

static void test_huge_timeout(void)
{
	struct late_ring l;
	pthread_t th;
	struct ep e;
	u64 t0, dt;
	int r;

	ep_must_open(&e, JOB + 3, 0);
	l.fd = e.fd;
	l.delay_ns = 200000000;
	t0 = now_ns();
	if (pthread_create(&th, NULL, ring_later, &l))
		bail("pthread_create");
	r = ep_wait(e.fd, 0, UINT64_MAX);
	dt = now_ns() - t0;
	okf(r == 0 && dt >= 150000000,
	    "WAIT(timeout_ns=UINT64_MAX) waits for the arrival",
	    "returned %d (%s) after %.1f ms", r, r ? strerror(-r) : "0", dt / 1e6);
	pthread_join(th, NULL);
	ep_close(&e);
}

/* ---- 9: the on-CPU mirror ------------------------------------------ */

/*
 * The owner reads its pages on its CPU: @mirrored endpoints must say 1,
 * every other live one 0; once it sleeps again, all say 0.
 */
static void check_mirror(const char *when, unsigned int mirrored)
{
	bool good = true, asleep;
	char seen[128];
	int r, n = 0;

	cmd(OP_CHECK, 0);
	for (r = 0; r < NEP; r++) {
		int want = (mirrored >> r) & 1;

		if (!eps[r].ctrl)
			continue;
		n += snprintf(seen + n, sizeof(seen) - n, " %d:%d/%d", r,
			      own.ctrl_on[r], own.ring_on[r]);
		if (own.ctrl_on[r] != want || own.ring_on[r] != want)
			good = false;
	}
	okf(good, when, "running: rank:ctrl/ring on_cpu%s, mirrored 0x%x", seen,
	    mirrored);
	asleep = poll_until(({
		bool all0 = true;

		for (r = 0; r < NEP; r++)
			if (eps[r].ctrl && (RD(eps[r].ctrl->on_cpu) ||
					    RD(rings[r]->on_cpu)))
				all0 = false;
		all0;
	}), 2000);
	okf(asleep, "... and all 0 while it sleeps", "%s", when);
}

static void destroy_from_process(int r)
{
	pid_t pid = fork();

	if (!pid)
		_exit(ep_destroy(eps[r].fd) ? 1 : 0);
	expect_eq(wait_child(pid), 0, "DESTROY from another process");
	ep_drop(r);
}

static void test_mirror(void)
{
	int r;

	for (r = 0; r < 6; r++)
		cmd(OP_CREATE, r);
	check_mirror("6 endpoints: the first 4 mirror, 4 and 5 read 0", 0x0f);
	cmd(OP_DESTROY, 0);
	cmd(OP_DESTROY, 2);
	check_mirror("owner destroyed 0 and 2: 1, 3, 4, 5 mirror", 0x3a);
	ep_drop(1);	/* by the main thread */
	check_mirror("another thread destroyed 1: 3, 4, 5 mirror", 0x38);
	destroy_from_process(3);
	check_mirror("another process destroyed 3: 4, 5 mirror", 0x30);
	cmd(OP_CREATE, 6);
	cmd(OP_CREATE, 7);
	cmd(OP_CREATE, 0);
	check_mirror("created 6, 7, 0 after: 4, 5, 6, 7 mirror, 0 reads 0", 0xf0);
	for (r = 4; r < 8; r++)
		ep_drop(r);	/* the owner keeps only 0, the fifth it made */
	check_mirror("the others destroyed elsewhere: 0 mirrors", 0x01);
	ep_drop(0);
	/* Its record retired while it slept; it makes a new one. */
	cmd(OP_CREATE, 1);
	check_mirror("a new endpoint after all were destroyed elsewhere", 0x02);
	cmd(OP_DESTROY, 1);
	expect_eq(sysfs_u64("stats/endpoints"), 0, "no endpoint left");
}

/* An endpoint outliving the thread that made it. */
static void test_thread_exit(void)
{
	owner_start();
	cmd(OP_CREATE, 2);
	cmd(OP_CREATE, 3);
	owner_exit();
	ok(poll_until(!RD(eps[2].ctrl->on_cpu) && !RD(rings[2]->on_cpu), 1000),
	   "its creator exited: on_cpu 0");
	expect_eq(sysfs_u64("stats/endpoints"), 2, "the exited thread's endpoints live on");
	expect_neg(doorbell(eps[2].fd, JOB, 2, 1), 0, "a doorbell to them works");
	destroy_from_process(3);
	ep_drop(2);
	expect_eq(sysfs_u64("stats/endpoints"), 0, "... and they are destroyed");
}

static void test_unload(void)
{
	u64 t0 = now_ns(), dt;
	int r;

	ok(poll_until(sysfs_u64("stats/endpoints") == 0 &&
		      sysfs_u64("stats/jobs") == 0, 2000), "no endpoint or job left");
	do {
		r = module_unload();
		if (r)
			sleep_ns(10000000);
	} while (r && now_ns() - t0 < 10000000000ull);
	dt = now_ns() - t0;
	okf(!r, "rmmod cosched succeeds afterwards", "%s after %.0f ms",
	    strerror(-r), dt / 1e6);
	t_diag("rmmod succeeded %.0f ms after the last endpoint went", dt / 1e6);
	module_reload("");
}

int main(void)
{
	int r;

	for (r = 0; r < NEP; r++)
		eps[r].fd = -1;
	policy_set("dcs");
	owner_start();
	test_forged_on_cpu();
	test_off_cpu_boosts();
	test_forged_arrivals();
	test_forged_cpu_pb();
	test_huge_timeout();
	test_mirror();
	owner_exit();
	test_thread_exit();
	policy_set("local");
	test_unload();
	return t_done();
}
