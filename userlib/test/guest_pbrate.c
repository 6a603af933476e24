// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * guest_pbrate - the periodic examiner's boosts per second on a pair that
 * consumes every message at once (run as root in a guest with cosched.ko):
 * ranks 0 and 1 of one job, on "nodes" 127.0.0.1 and 127.0.0.2 (TCP
 * through libcosched's transport, the module's hooks counting arrivals),
 * ping-pong one message every INTERVAL us for SECONDS s in the policy's
 * receive mode.  With true arrival accounting nothing stays pending, so
 * pb boosts about 0 times a second.
 *
 * usage: guest_pbrate [-p policy] [-t seconds] [-i interval_us] [-r]
 *   -r: both ranks on one node (the module's rings) instead of TCP.
 * Prints one line: policy, messages, arrivals, boosts and boosts/s.
 */
#define _GNU_SOURCE
#include <cosched.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

static uint64_t read_boosts(void)
{
	unsigned long long v = 0;
	FILE *f = fopen(COSCHED_SYSFS_DIR "/stats/boosts", "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Rank r: exchange until rank 0 says stop (a negative value). */
static long run(struct cosched_ep *ep, uint32_t r, uint64_t end_ns,
		long interval_us)
{
	struct timespec gap = { 0, interval_us * 1000 };
	long n = 0, v;

	for (;;) {
		if (r == 0) {
			v = now_ns() < end_ns ? n : -1;
			if (send_retry(ep, 1, &v, sizeof(v)) ||
			    cosched_recv(ep, NULL, &v, sizeof(v),
					 COSCHED_MODE_DEFAULT) != sizeof(v))
				return -1;
		} else {
			if (cosched_recv(ep, NULL, &v, sizeof(v),
					 COSCHED_MODE_DEFAULT) != sizeof(v) ||
			    send_retry(ep, 0, &v, sizeof(v)))
				return -1;
		}
		if (v < 0)
			return n;
		n++;
		nanosleep(&gap, NULL);
	}
}

int main(int argc, char **argv)
{
	const char *policy = "pb";
	long secs = 5, interval = 100, n;
	struct cosched_ep_stats st;
	uint64_t job = (uint64_t)getpid() << 20, b0, b1, t0, t1;
	struct cosched_ep *ep;
	bool rings = false;
	char peers[96];
	int opt, status;
	pid_t pid;

	while ((opt = getopt(argc, argv, "p:t:i:r")) != -1) {
		switch (opt) {
		case 'p': policy = optarg; break;
		case 't': secs = atol(optarg); break;
		case 'i': interval = atol(optarg); break;
		case 'r': rings = true; break;
		default: return 2;
		}
	}
	if (sysfs_write("policy", policy))
		return 2;
	snprintf(peers, sizeof(peers), "127.0.0.1:%u,127.0.0.2:%u",
		 41000 + (unsigned int)(getpid() % 9000),
		 41001 + (unsigned int)(getpid() % 9000));
	if (!rings)
		setenv("COSCHED_PEERS", peers, 1);
	pid = fork();
	if (!pid) {
		if (cosched_open(&ep, job, 1, 2, 0))
			_exit(2);
		n = run(ep, 1, 0, interval);
		cosched_close(ep);
		_exit(n < 0);
	}
	if (cosched_open(&ep, job, 0, 2, 0))
		return 2;
	b0 = read_boosts();
	t0 = now_ns();
	n = run(ep, 0, t0 + (uint64_t)secs * 1000000000ull, interval);
	t1 = now_ns();
	b1 = read_boosts();
	cosched_stats(ep, &st);
	cosched_close(ep);
	waitpid(pid, &status, 0);
	printf("pbrate %s %s: %ld round trips in %.2f s, rank 0 arrivals %llu, boosts %llu, %.1f boosts/s\n",
	       policy, rings ? "rings" : "tcp", n, (t1 - t0) / 1e9,
	       (unsigned long long)st.module.arrivals,
	       (unsigned long long)(b1 - b0), (b1 - b0) / ((t1 - t0) / 1e9));
	return n < 0 || !WIFEXITED(status) || WEXITSTATUS(status);
}
