// SPDX-License-Identifier: GPL-2.0
/*
 * hammer: the lost-wakeup hammer of spin-then-block.
 *
 * A receiver thread (CPU 0) owns the endpoint: it consumes every arrival
 * it sees and otherwise blocks in WAIT(seen, 5 s).  A sender thread
 * (CPU 1) rings one arrival at a time as soon as the receiver consumed
 * the previous ones (a window of outstanding arrivals), so most arrivals
 * land while the receiver is on its way into WAIT.  A WAIT that times out
 * while an arrival is outstanding is a lost wakeup.
 *
 * usage: hammer [-n arrivals] [-p policy] [-w window] [-t max_seconds]
 */
#define _GNU_SOURCE
#include "check.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define JOB		0x4a3300ull
#define WAIT_NS		5000000000ull

static u64 target;		/* arrivals to deliver; lowered by -t */
static u64 window = 1;
static u64 max_ns;
static struct ep ep;
static volatile int ready;
static u64 t_start, t_end;

/* Receiver findings. */
static u64 lost, stalled, spurious, interrupted, other_err;
static u64 first_lost_seen = ~0ull;
static int other_errno;

static void *receiver(void *arg)
{
	u64 seen, consumed = 0;
	int r;

	(void)arg;
	pin_cpu(0);
	ep_must_open(&ep, JOB, 0);	/* this thread owns the endpoint */
	WR(ready, 1);
	while (consumed < RD(target)) {
		seen = RD(ep.ctrl->arrivals);
		if (seen != consumed) {
			consumed = seen;
			WR(ep.ctrl->consumed, consumed);
			continue;
		}
		WR(ep.ctrl->armed, COSCHED_ARMED_BLOCK);
		r = ep_wait(ep.fd, seen, WAIT_NS);
		WR(ep.ctrl->armed, COSCHED_ARMED_NONE);
		if (r == 0) {
			if (RD(ep.ctrl->arrivals) == seen)
				spurious++;
		} else if (r == -ETIMEDOUT) {
			/* The sender rings whenever nothing is outstanding,
			 * so 5 s of silence is a failure either way. */
			if (RD(ep.ctrl->arrivals) != seen) {
				lost++;
				if (first_lost_seen == ~0ull)
					first_lost_seen = seen;
			} else {
				stalled++;
			}
		} else if (r == -EINTR) {
			interrupted++;
		} else {
			other_err++;
			other_errno = -r;
			break;
		}
	}
	t_end = now_ns();
	return NULL;
}

static u64 sent, ring_err;
static int ring_errno;

static void *sender(void *arg)
{
	int fd = dev_open();	/* doorbells from a file without endpoint */
	int r;

	(void)arg;
	pin_cpu(1);
	while (!RD(ready))
		cpu_relax();
	t_start = now_ns();
	while (sent < RD(target)) {
		while (sent - RD(ep.ctrl->consumed) >= window) {
			if (other_err)
				goto out;
			cpu_relax();
		}
		/* A little jitter moves the ring across the WAIT entry path. */
		for (u32 i = rnd(48); i; i--)
			cpu_relax();
		if (max_ns && sent + 1 < RD(target) && now_ns() - t_start > max_ns)
			WR(target, sent + 1);	/* this ring is the last one */
		r = doorbell(fd, JOB, 0, 1);
		if (r) {
			ring_err++;
			ring_errno = -r;
			WR(target, sent);
			break;
		}
		sent++;
	}
out:
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *policy = NULL;
	struct cosched_stats st;
	pthread_t rt, stt;
	double secs;
	int opt;

	target = 1000000;
	while ((opt = getopt(argc, argv, "n:p:w:t:")) != -1) {
		switch (opt) {
		case 'n': target = strtoull(optarg, NULL, 0); break;
		case 'p': policy = optarg; break;
		case 'w': window = strtoull(optarg, NULL, 0); break;
		case 't': max_ns = strtoull(optarg, NULL, 0) * 1000000000ull; break;
		default:
			fprintf(stderr, "usage: %s [-n arrivals] [-p policy] "
				"[-w window] [-t max_seconds]\n", argv[0]);
			return 2;
		}
	}
	if (nr_cpus() < 2)
		bail("needs 2 CPUs");
	if (policy)
		policy_set(policy);
	if (!window)
		window = 1;
	t_diag("policy %s, %llu arrivals, window %llu", policy ? policy : "(current)",
	       (unsigned long long)target, (unsigned long long)window);

	pthread_create(&rt, NULL, receiver, NULL);
	pthread_create(&stt, NULL, sender, NULL);
	pthread_join(stt, NULL);
	pthread_join(rt, NULL);

	secs = (double)(t_end - t_start) / 1e9;
	ep_stats(ep.fd, &st);
	t_diag("%llu arrivals in %.2f s = %.0f/s; blocks %llu, wakeups %llu, "
	       "boosts %llu", (unsigned long long)sent, secs, (double)sent / secs,
	       (unsigned long long)st.blocks, (unsigned long long)st.wakeups,
	       (unsigned long long)st.boosts);
	printf("hammer: policy=%s arrivals=%llu seconds=%.2f rate=%.0f blocks=%llu "
	       "wakeups=%llu lost=%llu\n", policy ? policy : "-",
	       (unsigned long long)sent, secs, (double)sent / secs,
	       (unsigned long long)st.blocks, (unsigned long long)st.wakeups,
	       (unsigned long long)lost);

	okf(!lost, "no lost wakeup (WAIT timed out with arrivals != seen)",
	    "%llu lost wakeups, first at seen=%llu", (unsigned long long)lost,
	    (unsigned long long)first_lost_seen);
	okf(!stalled, "no 5 s WAIT timeout with nothing arrived",
	    "%llu times: a doorbell returned but arrivals did not move, or the "
	    "sender stalled", (unsigned long long)stalled);
	expect_eq(spurious, 0, "WAIT never returned 0 with arrivals == seen");
	expect_eq(interrupted, 0, "no EINTR");
	okf(!other_err, "WAIT returned only 0 or ETIMEDOUT", "errno %d (%s)",
	    other_errno, strerror(other_errno));
	okf(!ring_err, "every DOORBELL succeeded", "errno %d (%s)", ring_errno,
	    strerror(ring_errno));
	expect_eq(RD(ep.ctrl->arrivals), sent, "ctrl arrivals = doorbells rung");
	expect_eq(RD(ep.ctrl->consumed), sent, "receiver consumed every arrival");
	expect_eq(st.arrivals, sent, "STATS arrivals = doorbells rung");
	expect_eq(st.doorbells, sent, "STATS doorbells = doorbells rung");
	ok(st.blocks > 0, "the receiver did block (the race was exercised)");
	if (!lost && !stalled && !interrupted)
		expect_eq(st.wakeups, st.blocks,
			  "STATS wakeups = blocks (every sleep ended by an arrival)");
	ep_close(&ep);
	return t_done();
}
