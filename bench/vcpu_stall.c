// SPDX-License-Identifier: GPL-2.0
/*
 * vcpu_stall: the floor under every latency measured in a guest.  A
 * thread on CPU 1 stores its clock every -g ms; a thread on CPU 0 spins
 * reading it and takes now - stamp when it changes.  No scheduler, no
 * module, no system call is involved, so whatever this shows is the
 * emulator's (under TCG, a vCPU whose host thread is not running), and
 * bounds what any policy can achieve.  Also prints the longest time
 * between two iterations of the spinning loop (a stalled vCPU), and how
 * many stores the reader missed, stalled past the next one.
 *
 * usage: vcpu_stall [-n samples] [-g gap_ms]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

static uint64_t stamp, seq;
static int samples = 400, gap_ms = 5;

static void *writer(void *arg)
{
	struct timespec gap = { gap_ms / 1000, (gap_ms % 1000) * 1000000L };
	int i;

	(void)arg;
	pin_cpu(1);
	for (i = 1; i <= samples; i++) {
		nanosleep(&gap, NULL);
		__atomic_store_n(&stamp, now_ns(), __ATOMIC_RELAXED);
		__atomic_store_n(&seq, (uint64_t)i, __ATOMIC_RELEASE);
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	uint64_t *lat, seen = 0, last, stall = 0, missed = 0, t, s;
	pthread_t tid;
	int opt, n = 0;

	while ((opt = getopt(argc, argv, "n:g:")) != -1) {
		switch (opt) {
		case 'n': samples = atoi(optarg); break;
		case 'g': gap_ms = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: vcpu_stall [-n samples] [-g gap_ms]\n");
			return 2;
		}
	}
	if (samples < 10 || gap_ms < 1)
		return 2;
	lat = calloc((size_t)samples, sizeof(*lat));
	if (!lat || pin_cpu(0)) {
		perror("vcpu_stall");
		return 1;
	}
	if (pthread_create(&tid, NULL, writer, NULL))
		return 1;
	last = now_ns();
	/*
	 * Until the writer's last store: a reader stalled longer than the
	 * gap sees two stores as one, and counting what it saw would wait
	 * for a store that never comes.
	 */
	while (seen < (uint64_t)samples) {
		s = __atomic_load_n(&seq, __ATOMIC_ACQUIRE);
		t = now_ns();
		if (t - last > stall)
			stall = t - last;
		last = t;
		if (s != seen) {
			lat[n++] = t - __atomic_load_n(&stamp, __ATOMIC_RELAXED);
			missed += s - seen - 1;
			seen = s;
		}
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
	pthread_join(tid, NULL);
	qsort(lat, (size_t)n, sizeof(*lat), cmp_u64);
	printf("samples=%d p50_us=%.1f p90_us=%.1f max_us=%.1f stall_us=%.1f missed=%llu\n",
	       n, lat[n / 2] / 1e3, lat[n * 9 / 10] / 1e3, lat[n - 1] / 1e3,
	       stall / 1e3, (unsigned long long)missed);
	free(lat);
	return 0;
}
