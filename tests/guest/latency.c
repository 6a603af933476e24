// SPDX-License-Identifier: GPL-2.0
/*
 * latency: arrival-to-on-CPU latency under one policy.
 *
 * A receiver process busy-polls its control page on CPU 0, which it
 * shares with a CPU hog; on each new arrival it records CLOCK_MONOTONIC
 * now - last_arrival_ns and consumes.  The sender (this process, CPU 1)
 * sleeps a random 2-8 ms, rings, and waits for the receiver to consume.
 * Prints one "latency: key=value ..." line for latency.sh, with how long
 * the host stalled the guest's CPUs meanwhile (stall_*, lib/stall.h);
 * checks that every arrival was seen, that last_arrival_ns was fresh and
 * that no boost of the receiver outlived boost_us (+ 250 ms of TCG slack
 * and the longest stall).
 *
 * usage: latency [-p policy] [-m fifo|nice] [-n samples]
 *                [-P pb_period_us] [-b budget_pct] [-o raw_file]
 * -o appends "latency_ns off_cpu" per arrival, off_cpu being 1 if the
 * receiver was not on its CPU just before the ring (read from on_cpu),
 * so that latency.sh can pool several short runs.
 */
#define _GNU_SOURCE
#include "check.h"
#include "stall.h"

#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#define JOB		0x1a7e00ull
#define MAX_SAMPLES	10000

struct shared {
	u64 consumed;			/* receiver -> sender */
	u64 ready;
	u64 t_ring[MAX_SAMPLES];	/* sender: just before DOORBELL */
	u64 lat[MAX_SAMPLES];		/* receiver: now - last_arrival_ns */
	u32 off_cpu[MAX_SAMPLES];	/* sender: on_cpu was 0 before the ring */
	u64 stale;			/* last_arrival_ns older than the ring */
	u64 missed;			/* arrivals that came in pairs */
	int create_err;
};

static struct shared *sh;

static void receiver(int fd, int n)
{
	struct cosched_ctrl *ctrl;
	u64 seen = 0, a, last, now;
	int r;

	pin_cpu(0);
	r = ep_create_fd(fd, JOB, 0, NULL);
	ctrl = r ? NULL : ctrl_map(fd);
	if (!ctrl) {
		WR(sh->create_err, r ? -r : errno);
		WR(sh->ready, 1);
		_exit(1);
	}
	WR(sh->ready, 1);
	while (seen < (u64)n) {
		a = RD(ctrl->arrivals);
		if (a == seen) {
			cpu_relax();
			continue;
		}
		now = now_ns();
		last = RD(ctrl->last_arrival_ns);
		if (a - seen > 1)
			sh->missed++;
		if (last < sh->t_ring[a - 1])
			sh->stale++;
		sh->lat[a - 1] = now - last;
		seen = a;
		WR(ctrl->consumed, seen);
		WR(sh->consumed, seen);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *policy = NULL, *mech = NULL, *raw = NULL;
	long pb_period = 0, budget = -1;
	int n = 300, opt, fd, stuck = 0, ring_err = 0;
	struct cosched_stats st;
	struct boost_watch bw;
	struct stall_watch *sw;
	u64 t0, t1, h0, h1, lat[MAX_SAMPLES], boost_us;
	pid_t hog, rcv;
	char pol[32];

	while ((opt = getopt(argc, argv, "p:m:n:P:b:o:")) != -1) {
		switch (opt) {
		case 'p': policy = optarg; break;
		case 'm': mech = optarg; break;
		case 'n': n = atoi(optarg); break;
		case 'P': pb_period = atol(optarg); break;
		case 'b': budget = atol(optarg); break;
		case 'o': raw = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-p policy] [-m fifo|nice] "
				"[-n samples] [-P pb_period_us] [-b budget_pct] "
				"[-o raw_file]\n",
				argv[0]);
			return 2;
		}
	}
	if (n < 1 || n > MAX_SAMPLES || nr_cpus() < 2)
		bail("bad sample count or fewer than 2 CPUs");
	if (policy)
		policy_set(policy);
	if (mech)
		sysfs_set("boost_mech", mech);
	if (pb_period)
		sysfs_set_u64("pb_period_us", (u64)pb_period);
	if (budget >= 0)
		sysfs_set_u64("budget_pct", (u64)budget);
	policy_get(pol, sizeof(pol));

	sh = shared_alloc(sizeof(*sh));
	fd = dev_open();	/* shared with the receiver, which creates on it */
	pin_cpu(1);
	hog = hog_start(0);
	rcv = fork();
	if (rcv == 0)
		receiver(fd, n);
	while (!RD(sh->ready))
		sleep_ns(1000000);
	if (sh->create_err)
		bail("receiver endpoint: %s", strerror(sh->create_err));
	boost_us = sysfs_u64("boost_us");
	boost_watch_start(&bw, rcv, 0, 1);
	/* The sender sees the receiver's control page through the shared file. */
	struct cosched_ctrl *rc = ctrl_map(fd);

	if (!rc)
		bail("mmap of the receiver's control page: %s", strerror(errno));

	sw = stall_watch_start();
	stall_watch_judge(sw, 0);	/* the measured CPU */
	t0 = now_ns();
	h0 = task_cpu_ns(hog);
	for (int i = 0; i < n && !stuck && !ring_err; i++) {
		u64 deadline;

		sleep_ns(2000000 + rnd(6000001));
		sh->off_cpu[i] = !RD(rc->on_cpu);
		sh->t_ring[i] = now_ns();
		if (doorbell(fd, JOB, 0, 1)) {
			ring_err = errno;
			break;
		}
		deadline = now_ns() + 2000000000ull;
		while (RD(sh->consumed) < (u64)i + 1) {
			if (now_ns() > deadline) {
				stuck = 1;
				break;
			}
			cpu_relax();
		}
	}
	t1 = now_ns();
	h1 = task_cpu_ns(hog);
	stall_watch_stop(sw);
	boost_watch_stop(&bw);
	ep_stats(fd, &st);
	hog_stop(hog);
	if (stuck || ring_err)
		kill(rcv, SIGKILL);
	wait_child(rcv);

	ok(!ring_err, "every DOORBELL succeeded");
	ok(!stuck, "the receiver saw every arrival within 2 s");
	expect_eq(sh->missed, 0, "the receiver saw each arrival on its own");
	expect_eq(sh->stale, 0, "last_arrival_ns was never older than the ring");
	/*
	 * 250 ms of slack, plus the longest time the host stopped a guest
	 * CPU (lib/stall.h): a busy host delays the expiry and the watcher's
	 * samples; a boost nothing ends lasts until the receiver is killed.
	 */
	okf(bw.longest_ns <= boost_us * 1000 + 250000000 + stall_longest_ns(sw),
	    "no boost of the receiver outlived boost_us + 250 ms (+ the longest stall)",
	    "boosted for %.1f ms in one stretch (boost_us %llu, longest stall "
	    "%.1f ms); the hog kept %.1f%% of the CPU", bw.longest_ns / 1e6,
	    (unsigned long long)boost_us, stall_longest_ns(sw) / 1e6,
	    100.0 * (h1 - h0) / (double)(t1 - t0));
	if (stuck || ring_err)
		return t_done();

	if (raw) {
		FILE *f = fopen(raw, "a");

		if (!f)
			bail("%s: %s", raw, strerror(errno));
		for (int i = 0; i < n; i++)
			fprintf(f, "%llu %u\n", (unsigned long long)sh->lat[i],
				sh->off_cpu[i]);
		fclose(f);
	}
	memcpy(lat, sh->lat, n * sizeof(u64));
	u64 med = percentile(lat, n, 50), p90 = percentile(lat, n, 90);
	u64 max = percentile(lat, n, 100);
	double share = (double)(h1 - h0) / (double)(t1 - t0);

	printf("latency: policy=%s mech=%s budget=%llu pb_period_us=%llu n=%d "
	       "median_us=%.1f p90_us=%.1f max_us=%.1f hog_share=%.3f "
	       "boosts=%llu boosted_ms=%.1f budget_exhausted=%llu "
	       "longest_boost_ms=%.1f stall_pct=%.1f stall_ms=%.0f "
	       "stall_secs=%.2f longest_stall_ms=%.1f\n",
	       pol, mech ? mech : "-", (unsigned long long)sysfs_u64("budget_pct"),
	       (unsigned long long)sysfs_u64("pb_period_us"), n,
	       med / 1e3, p90 / 1e3, max / 1e3, share,
	       (unsigned long long)st.boosts, st.boosted_ns / 1e6,
	       (unsigned long long)st.budget_exhausted, bw.longest_ns / 1e6,
	       stall_pct(sw, NULL), stall_ms(sw), stall_secs(sw),
	       stall_longest_ns(sw) / 1e6);
	stall_watch_free(sw);
	return t_done();
}
