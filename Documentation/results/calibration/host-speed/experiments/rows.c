// SPDX-License-Identifier: GPL-2.0
/*
 * rows: bench/calibrate's compute loop over five 16 KiB arrays (one static,
 * four fresh mmaps), four rows; each cell is ns per step by the wall clock
 * and by the thread's CPU time (fp:), then the loop without its
 * floating-point step (nofp:).  Row start = CLOCK_REALTIME seconds % 60.
 * Ad hoc: the probe behind clocksource.txt, pinned.txt and perf-bins.txt.
 *   gcc -O2 -o build/speedprobe rows.c; rows [STEPS per cell, default 2M]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
static volatile uint64_t sink;
static uint64_t sarr[2048];
static double clk(int c){struct timespec t;clock_gettime(c,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static double now(void){return clk(CLOCK_MONOTONIC);}
static double cpu_s;
static double run(uint64_t *arr, long n, int fp)
{
	uint64_t x = 0x9e3779b97f4a7c15ull, i = 0; double f = 0.5, t = now(), c = clk(CLOCK_THREAD_CPUTIME_ID);
	while (n--) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		if (fp) f = f * 0.999999 + (double)(x >> 40) * 1e-18;
		arr[i] += x;
		i = (i + arr[(i + 1) & 2047]) & 2047;
	}
	sink = x + i + (uint64_t)(f * 1e6);
	cpu_s = clk(CLOCK_THREAD_CPUTIME_ID) - c;
	return now() - t;
}
int main(int argc, char **argv)
{
	uint64_t *a[5]; a[0] = sarr;
	for (int k = 1; k < 5; k++) { a[k] = mmap(NULL, 16384, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_POPULATE, -1, 0); }
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	for (int r = 0; r < 4; r++) {
		{ double rt = clk(CLOCK_REALTIME); printf("%05.2f r%d fp:", rt - 60 * (long)(rt / 60), r); }
		for (int k = 0; k < 5; k++) { double w = run(a[k], n, 1); printf(" %5.1f/%4.1f", w / n * 1e9, cpu_s / n * 1e9); }
		printf("  nofp:");
		for (int k = 0; k < 5; k++) printf(" %5.1f", run(a[k], n, 0) / n * 1e9);
		printf("\n");
	}
	return 0;
}
