// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_wake: how soon a receiver that shares its CPU with a CPU hog sees a
 * message that came over libcosched's TCP transport (io_uring): rank 1
 * (on CPU 1) sends its CLOCK_MONOTONIC time every -g ms; rank 0 busy-polls
 * on CPU 0 next to a hog and takes now - stamp at receipt.  Under dcs the
 * module's arrival hook on the registered socket boosts rank 0 when data
 * arrives; under local nothing does.  Prints p50, p90 and max in us.
 *
 * usage: tcp_wake [-n samples] [-g gap_ms] [-p port]
 */
#define _GNU_SOURCE
#include <cosched.h>

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static pid_t spawn_hog(void)
{
	pid_t pid = fork();

	if (!pid) {
		pin_cpu(0);
		for (;;)
			;
	}
	return pid;
}

static int sender(uint64_t job, int n, int gap_ms)
{
	struct timespec gap = { gap_ms / 1000, (gap_ms % 1000) * 1000000L };
	struct cosched_ep *ep;
	uint64_t t;
	int i;

	pin_cpu(1);
	if (cosched_open(&ep, job, 1, 2, 0))
		return 1;
	for (i = 0; i < n + 5; i++) {	/* 5 extra: the receiver warms up */
		nanosleep(&gap, NULL);
		t = now_ns();
		if (cosched_send(ep, 0, &t, sizeof(t)))
			break;
	}
	cosched_recv(ep, NULL, &t, sizeof(t), COSCHED_MODE_POLL);
	cosched_close(ep);
	return 0;
}

int main(int argc, char **argv)
{
	int n = 100, gap_ms = 20, port = 24000, opt, i, status;
	char peers[96];
	struct cosched_ep *ep;
	uint64_t *lat, t;
	pid_t snd, hog;
	uint64_t job;

	while ((opt = getopt(argc, argv, "n:g:p:")) != -1) {
		switch (opt) {
		case 'n': n = atoi(optarg); break;
		case 'g': gap_ms = atoi(optarg); break;
		case 'p': port = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: tcp_wake [-n samples] [-g gap_ms] [-p port]\n");
			return 2;
		}
	}
	if (n < 1 || gap_ms < 1 || port < 1024 || port > 65534)
		return 2;
	lat = calloc((size_t)n, sizeof(*lat));
	if (!lat)
		return 1;
	snprintf(peers, sizeof(peers), "127.0.0.1:%d,127.0.0.2:%d", port,
		 port + 1);
	setenv("COSCHED_PEERS", peers, 1);
	job = 0x7c9000000000ull | (uint64_t)getpid();
	snd = fork();
	if (!snd)
		_exit(sender(job, n, gap_ms));
	pin_cpu(0);
	if (cosched_open(&ep, job, 0, 2, 0)) {
		kill(snd, SIGKILL);
		return 1;
	}
	hog = spawn_hog();
	for (i = -5; i < n; i++) {
		if (cosched_recv(ep, NULL, &t, sizeof(t), COSCHED_MODE_POLL) !=
		    sizeof(t))
			break;
		if (i >= 0)
			lat[i] = now_ns() - t;
	}
	kill(hog, SIGKILL);
	waitpid(hog, &status, 0);
	cosched_send(ep, 1, &t, sizeof(t));
	waitpid(snd, &status, 0);
	cosched_close(ep);
	if (i < n) {
		fprintf(stderr, "tcp_wake: only %d samples\n", i);
		return 1;
	}
	qsort(lat, (size_t)n, sizeof(*lat), cmp_u64);
	printf("samples=%d p50_us=%.1f p90_us=%.1f max_us=%.1f\n", n,
	       lat[n / 2] / 1e3, lat[n * 9 / 10] / 1e3, lat[n - 1] / 1e3);
	free(lat);
	return 0;
}
