// SPDX-License-Identifier: GPL-2.0
/*
 * chase-rows BYTES STEPS ROWS GAP_US: a dependent pointer chase over BYTES,
 * ROWS rows of STEPS steps, GAP_US apart; prints "<realtime % 60> <ns per
 * step>".  Ad hoc: behind qemu-vs-chase.txt.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc, char **argv)
{
	long words = atol(argv[1]) / 64, n = atol(argv[2]), rows = atol(argv[3]), gap_us = atol(argv[4]);
	uint64_t (*a)[8] = aligned_alloc(64, words * 64), r = 88172645463325252ull;
	long *perm = malloc(words * sizeof(long));
	for (long i = 0; i < words; i++) perm[i] = i;
	for (long i = words - 1; i > 0; i--) { r ^= r << 13; r ^= r >> 7; r ^= r << 17; long j = r % (i + 1), t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
	for (long i = 0; i < words; i++) a[perm[i]][0] = perm[(i + 1) % words];
	uint64_t p = perm[0];
	for (long k = 0; k < rows; k++) {
		struct timespec ts; clock_gettime(CLOCK_REALTIME, &ts);
		double t = now();
		for (long i = 0; i < n; i++) p = a[p][0];
		printf("%05.2f %.2f\n", ts.tv_sec % 60 + ts.tv_nsec * 1e-9, (now() - t) / n * 1e9); fflush(stdout);
		usleep(gap_us);
	}
	return (int)(p & 1);
}
