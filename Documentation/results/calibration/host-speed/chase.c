// SPDX-License-Identifier: GPL-2.0
/*
 * chase: a dependent pointer chase over a buffer (one cache line a step,
 * in a random order), row after row, for a while: how long a load that
 * misses L1 and L2 takes on this CPU, from second to second.  Prints
 * "<seconds since start> <ns per step>" per row of 1M steps.
 *
 *   chase SECONDS BYTES
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define STEPS 1000000

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Line i's first word holds the next line's index: one cycle through all. */
static uint64_t (*ring_setup(long lines, uint64_t *start))[8]
{
	uint64_t (*line)[8] = aligned_alloc(64, lines * 64), r = 88172645463325252ull;
	long *order = malloc(lines * sizeof(*order));

	if (!line || !order)
		exit(2);
	for (long i = 0; i < lines; i++)
		order[i] = i;
	for (long i = lines - 1; i > 0; i--) {	/* Fisher-Yates */
		long j, t;

		r ^= r << 13;
		r ^= r >> 7;
		r ^= r << 17;
		j = r % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (long i = 0; i < lines; i++)
		line[order[i]][0] = order[(i + 1) % lines];
	*start = order[0];
	free(order);
	return line;
}

int main(int argc, char **argv)
{
	uint64_t (*line)[8], p;
	double secs, t0, t;
	long lines;

	if (argc != 3 || (secs = atof(argv[1])) <= 0 || (lines = atol(argv[2]) / 64) < 2) {
		fprintf(stderr, "usage: chase SECONDS BYTES\n");
		return 2;
	}
	line = ring_setup(lines, &p);
	t0 = now();
	do {
		t = now();
		for (long i = 0; i < STEPS; i++)
			p = line[p][0];
		printf("%.3f %.2f\n", t - t0, (now() - t) / STEPS * 1e9);
		fflush(stdout);
	} while (now() - t0 < secs);
	return p == (uint64_t)-1;	/* keeps the chase */
}
