// SPDX-License-Identifier: GPL-2.0
/*
 * preempted: under dcs an arrival gets no boost while its receiver is on
 * a CPU, but a receiver that is preempted before it has consumed the
 * arrival is boosted then, once per arrival count (cosched_preempted()).
 *
 * The receiver runs on CPU 0 beside a hog.  It rings its own doorbell,
 * so the arrival finds it on its CPU, then spins for a while without
 * consuming, and the hog preempts it many times: under dcs exactly one
 * boost follows; an arrival it consumes at once gets none; under local
 * nothing is ever boosted.
 */
#define _GNU_SOURCE
#include "check.h"

#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define JOB		0x9011c1e6ull
#define SPIN_NS		300000000ull	/* many ticks: many preemptions */
#define TRIES		3

struct result {
	u64 at_arrival;		/* boosts right after the doorbell */
	u64 unread;		/* ... after spinning with it unread */
	u64 read;		/* ... after a second one, read at once */
	u64 cpu_ns;		/* CPU time of the two spins */
	int err;
};

static struct result *res;

static u64 own_boosts(int fd)
{
	struct cosched_stats st;

	return ep_stats(fd, &st) ? ~0ull : st.boosts;
}

static u64 self_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

static void receiver(void)
{
	struct ep ep;
	u64 cpu0;

	pin_cpu(0);
	if (ep_open(&ep, JOB, 0)) {
		res->err = errno;
		_exit(1);
	}
	cpu0 = self_cpu_ns();
	/* On this CPU while it rings: the arrival itself boosts nothing. */
	if (doorbell(ep.fd, JOB, 0, 1))
		res->err = errno;
	res->at_arrival = own_boosts(ep.fd);
	spin_ns(SPIN_NS);
	res->unread = own_boosts(ep.fd);

	if (doorbell(ep.fd, JOB, 0, 1))
		res->err = errno;
	WR(ep.ctrl->consumed, RD(ep.ctrl->arrivals));
	spin_ns(SPIN_NS);
	res->read = own_boosts(ep.fd);
	res->cpu_ns = self_cpu_ns() - cpu0;
	ep_close(&ep);
	_exit(0);
}

/* One run; false if the arrival itself found the receiver preempted. */
static bool run(const char *policy)
{
	pid_t hog, pid;

	policy_set(policy);
	memset(res, 0, sizeof(*res));
	hog = hog_start(0);
	pid = fork();
	if (pid < 0)
		bail("fork");
	if (!pid)
		receiver();
	expect_eq(wait_child(pid), 0, "receiver exits cleanly");
	hog_stop(hog);
	expect_eq(res->err, 0, "receiver's doorbells and stats");
	if (res->at_arrival) {
		t_diag("%s: preempted while ringing its own doorbell; again",
		       policy);
		return false;
	}
	return true;
}

int main(void)
{
	int i;

	pin_cpu(1);
	res = shared_alloc(sizeof(*res));
	sysfs_set_u64("budget_pct", 100);

	for (i = 0; i < TRIES && !run("dcs"); i++)
		;
	okf(i < TRIES, "dcs: an arrival on a running receiver boosts nothing",
	    "%d tries", TRIES);
	okf(res->cpu_ns < 2 * SPIN_NS * 9 / 10,
	    "dcs: the hog preempted the receiver",
	    "%.0f ms of CPU in %.0f ms of spinning", res->cpu_ns / 1e6,
	    2 * SPIN_NS / 1e6);
	okf(res->unread == 1,
	    "dcs: preempted with the arrival unread: boosted once",
	    "%llu boosts", (unsigned long long)res->unread);
	okf(res->read == res->unread,
	    "dcs: an arrival read at once: no boost at preemption",
	    "%llu boosts after, %llu before", (unsigned long long)res->read,
	    (unsigned long long)res->unread);

	for (i = 0; i < TRIES && !run("local"); i++)
		;
	okf(res->read == 0, "local: never boosted", "%llu boosts",
	    (unsigned long long)res->read);

	policy_set("local");
	return t_done();
}
