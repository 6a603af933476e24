// SPDX-License-Identifier: GPL-2.0
/*
 * pertask: a task's scheduling attributes are saved once per task, and
 * whatever the task itself sets during a boost is what it ends with.
 *  - boost_mech=nice, one thread with two endpoints at nice 5: a yield
 *    on ep1 (nice 19), a boost through ep0, a doorbell that ends ep1's
 *    yield, the boost's end: back at nice 5, not 19.
 *  - A setpriority() the task makes while FIFO-boosted is kept.
 *  - A sched_setattr() to SCHED_BATCH made while boosted is kept.
 *  - 6.12: a custom EEVDF slice (SCHED_OTHER with sched_runtime) set
 *    before a boost is still there after it, for both mechanisms.
 * The subject is a child that sleeps in read() on a pipe, so a doorbell
 * finds it off its CPU and dcs boosts it.
 */
#define _GNU_SOURCE
#include "check.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define JOB		0x9e27a5ull
#define BOOST_US	100000		/* long enough to act during it */
#define SLICE_NS	5000000ull	/* not a default slice */

/* The kernel's struct sched_attr (sched_setattr(2)); glibc has none. */
struct sched_attr {
	u32 size;
	u32 sched_policy;
	u64 sched_flags;
	int32_t sched_nice;
	u32 sched_priority;
	u64 sched_runtime;
	u64 sched_deadline;
	u64 sched_period;
};

struct shared {
	int step;		/* the subject's progress */
	int nice_lowered;	/* its nice after its yield */
	int policy_during;	/* its policy when it changed its own */
};

static struct shared *sh;
static int cmd[2];		/* parent -> subject: wake up */

static int getattr(pid_t pid, struct sched_attr *a)
{
	memset(a, 0, sizeof(*a));
	return syscall(SYS_sched_getattr, pid, a, sizeof(*a), 0);
}

static int setattr(pid_t pid, struct sched_attr *a)
{
	a->size = sizeof(*a);
	return syscall(SYS_sched_setattr, pid, a, 0);
}

/* Its policy, without the SCHED_RESET_ON_FORK flag a FIFO boost sets. */
static int policy_of(pid_t pid)
{
	return sched_getscheduler(pid) & ~SCHED_RESET_ON_FORK;
}

static int nice_of(pid_t pid)
{
	errno = 0;
	return getpriority(PRIO_PROCESS, pid);
}

/* Sleep off the CPU until the parent writes a byte. */
static void sleep_for_cmd(void)
{
	char c;

	if (read(cmd[0], &c, 1) != 1)
		_exit(3);
}

static void wake_subject(void)
{
	if (write(cmd[1], "x", 1) != 1)
		bail("write: %s", strerror(errno));
}

static bool wait_step(int step)
{
	return poll_until(RD(sh->step) >= step, 5000);
}

/* Wait for the subject's boost (whatever it is) to end. */
static bool wait_unboosted(pid_t pid, int boosted_nice)
{
	return poll_until(policy_of(pid) != SCHED_FIFO &&
			  nice_of(pid) != boosted_nice, 3000);
}

static pid_t subject(void (*fn)(void))
{
	pid_t pid;

	WR(sh->step, 0);
	if (pipe(cmd))
		bail("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		bail("fork: %s", strerror(errno));
	if (!pid) {
		pin_cpu(0);
		fn();
		_exit(0);
	}
	return pid;
}

static void end_subject(pid_t pid)
{
	wake_subject();
	wait_child(pid);
	close(cmd[0]);
	close(cmd[1]);
}

/* ---- two endpoints, one saved nice -------------------------------- */

static void two_eps_subject(void)
{
	struct cosched_yield y;
	struct ep ep0, ep1;

	setpriority(PRIO_PROCESS, 0, 5);
	ep_must_open(&ep0, JOB, 0);
	ep_must_open(&ep1, JOB, 1);
	if (ep_yield(ep1.fd, 0, &y) || !y.lowered)
		_exit(2);
	WR(sh->nice_lowered, nice_of(0));
	WR(sh->step, 1);
	sleep_for_cmd();
	ep_close(&ep1);
	ep_close(&ep0);
}

static void test_two_eps(void)
{
	int fd = dev_open();
	pid_t pid;

	sysfs_set("boost_mech", "nice");
	pid = subject(two_eps_subject);
	if (!wait_step(1))
		bail("the subject did not yield");
	expect_eq(RD(sh->nice_lowered), 19, "two eps: ep1's yield lowered to nice 19");
	ok(poll_until(RD(sh->step) == 1 && nice_of(pid) == 19, 1000),
	   "two eps: the subject sleeps at nice 19");
	sleep_ns(20000000);
	expect_neg(doorbell(fd, JOB, 0, 1), 0, "two eps: doorbell to ep0");
	okf(poll_until(nice_of(pid) == -20, 1000), "two eps: ep0 boosted to nice -20",
	    "nice %d", nice_of(pid));
	expect_neg(doorbell(fd, JOB, 1, 1), 0,
		   "two eps: doorbell to ep1 (its yield's message)");
	okf(wait_unboosted(pid, -20), "two eps: the boost ended", "nice %d",
	    nice_of(pid));
	expect_eq(nice_of(pid), 5, "two eps: back at its own nice 5, not 19");
	end_subject(pid);
	close(fd);
}

/* ---- changes the task makes while boosted ------------------------- */

static int change;		/* which change the subject makes */

static void changing_subject(void)
{
	struct sched_attr a;
	struct ep ep;

	ep_must_open(&ep, JOB, 0);
	WR(sh->step, 1);
	sleep_for_cmd();	/* the doorbell boosts it meanwhile */
	WR(sh->policy_during, policy_of(0));
	if (change == 0) {
		setpriority(PRIO_PROCESS, 0, 7);
	} else {
		memset(&a, 0, sizeof(a));
		a.sched_policy = SCHED_BATCH;
		a.sched_nice = 3;
		if (setattr(0, &a))
			_exit(4);
	}
	WR(sh->step, 2);
	sleep_for_cmd();
	ep_close(&ep);
}

static void test_change_kept(int which)
{
	const char *what = which ? "sched_setattr(SCHED_BATCH, 3)" : "setpriority(7)";
	int fd = dev_open();
	pid_t pid;

	sysfs_set("boost_mech", "fifo");
	change = which;
	pid = subject(changing_subject);
	if (!wait_step(1))
		bail("the subject did not start");
	/* Asleep in read(): the doorbell finds it off its CPU. */
	sleep_ns(20000000);
	expect_neg(doorbell(fd, JOB, 0, 1), 0, "doorbell");
	okf(poll_until(policy_of(pid) == SCHED_FIFO, 1000),
	    "FIFO boost applied", "policy %d", policy_of(pid));
	wake_subject();
	if (!wait_step(2))
		bail("the subject did not make its change");
	okf(RD(sh->policy_during) == SCHED_FIFO, "the change was made while boosted",
	    "%s: policy then %d", what, RD(sh->policy_during));
	ok(poll_until(policy_of(pid) != SCHED_FIFO, 3000), "the boost ended");
	sleep_ns(10000000);
	if (which == 0) {
		okf(nice_of(pid) == 7 && policy_of(pid) == SCHED_OTHER,
		    "setpriority() made during a FIFO boost is kept",
		    "nice %d policy %d", nice_of(pid), policy_of(pid));
	} else {
		okf(nice_of(pid) == 3 && policy_of(pid) == SCHED_BATCH,
		    "sched_setattr(SCHED_BATCH) made during a boost is kept",
		    "nice %d policy %d", nice_of(pid), policy_of(pid));
	}
	end_subject(pid);
	close(fd);
}

/* ---- a custom EEVDF slice ----------------------------------------- */

static void slice_subject(void)
{
	struct sched_attr a;
	struct ep ep;

	memset(&a, 0, sizeof(a));
	a.sched_policy = SCHED_OTHER;
	a.sched_runtime = SLICE_NS;
	if (setattr(0, &a))
		_exit(4);
	ep_must_open(&ep, JOB, 0);
	WR(sh->step, 1);
	sleep_for_cmd();
	ep_close(&ep);
}

static void test_slice(const char *mech)
{
	struct sched_attr a;
	int fd = dev_open();
	bool boosted;
	pid_t pid;

	sysfs_set("boost_mech", mech);
	pid = subject(slice_subject);
	if (!wait_step(1))
		bail("the subject did not start");
	getattr(pid, &a);
	if (a.sched_runtime != SLICE_NS) {
		t_diag("no custom slice on this kernel (sched_runtime %llu): skipped",
		       (unsigned long long)a.sched_runtime);
		end_subject(pid);
		close(fd);
		return;
	}
	sleep_ns(20000000);
	expect_neg(doorbell(fd, JOB, 0, 1), 0, "slice: doorbell");
	boosted = poll_until(policy_of(pid) == SCHED_FIFO ||
			     nice_of(pid) == -20, 1000);
	okf(boosted, "slice: boosted", "boost_mech %s", mech);
	ok(wait_unboosted(pid, -20), "slice: the boost ended");
	getattr(pid, &a);
	okf(a.sched_policy == SCHED_OTHER && a.sched_runtime == SLICE_NS &&
	    a.sched_nice == 0, "slice: the custom slice survives the boost",
	    "boost_mech %s: policy %u nice %d sched_runtime %llu", mech,
	    a.sched_policy, a.sched_nice, (unsigned long long)a.sched_runtime);
	end_subject(pid);
	close(fd);
}

int main(void)
{
	sh = shared_alloc(sizeof(*sh));
	policy_set("dcs");
	sysfs_set_u64("boost_us", BOOST_US);
	/* Room for whole 100 ms boosts in every budget. */
	sysfs_set_u64("budget_window_ms", 1000);
	test_two_eps();
	test_change_kept(0);
	test_change_kept(1);
	test_slice("fifo");
	test_slice("nice");
	policy_set("local");
	ok(poll_until(sysfs_u64("stats/endpoints") == 0, 2000), "no endpoint left");
	return t_done();
}
