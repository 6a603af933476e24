// SPDX-License-Identifier: GPL-2.0
/*
 * ep: embarrassingly parallel Monte-Carlo (NAS EP's role): each rank
 * draws random points in the unit square and counts those inside the
 * quarter circle, with no communication until one reduction at the end
 * (under 1%).  In a mix it is a competitor for CPU cycles that still
 * counts as a parallel job.
 *
 * Work comes in blocks of BLOCK points, each drawn from its own stream
 * seeded by the block's global index; block b goes to rank b % ranks.
 * -n is the number of blocks per rank (-t calibrates it): -n 40 on one
 * rank draws the same points as -n 20 on two (the checksum test).
 *
 * Checksum: hits= the points inside, exactly the same for any number of
 * ranks given the same total; pi= 4 hits / points, within a few standard
 * deviations of pi.
 */
#include "wl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define BLOCK	(1L << 16)

/* xorshift64*: small, fast and good enough for counting. */
static inline uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static long block(uint64_t b)
{
	uint64_t s = wl_hash(b + 1) | 1;
	long i, hits = 0;

	for (i = 0; i < BLOCK; i++) {
		double x = (double)(next(&s) >> 11) / (1ULL << 53);
		double y = (double)(next(&s) >> 11) / (1ULL << 53);

		hits += x * x + y * y < 1;
	}
	return hits;
}

static void step(void *arg)
{
	volatile long sink = block(*(uint64_t *)arg);

	(void)sink;
}

int main(int argc, char **argv)
{
	static const struct wl_spec spec = {
		.name = "ep",
		.usage = "  -n  blocks of 65536 points per rank\n",
	};
	long hits = 0, all = 0, b, total;
	uint64_t probe = 0;
	double pi, sd;
	struct wl w;

	wl_init(&w, &argc, &argv, &spec);
	if (w.grid || w.size_arg)
		wl_die(&w, "ep has no grid: -n or -t only");
	wl_calibrate(&w, step, &probe, 0.0);
	total = w.iters * w.size;
	wl_note(&w, "%ld blocks of %ld points", total, BLOCK);

	wl_start(&w);
	for (b = w.rank; b < total; b += w.size)
		hits += block((uint64_t)b);
	WL_MPI_CALL(&w, MPI_Reduce(&hits, &all, 1, MPI_LONG, MPI_SUM, 0,
				   MPI_COMM_WORLD));
	wl_stop(&w);

	/* A binomial count: p = pi / 4, sd of the estimate 4 sqrt(p q / n). */
	pi = 4.0 * all / ((double)total * BLOCK);
	sd = 4 * sqrt(M_PI / 4 * (1 - M_PI / 4) / ((double)total * BLOCK));
	wl_report(&w, "blocks=%ld hits=%ld pi=%.8f pi_sd=%.2e", total, all, pi,
		  sd);
	MPI_Finalize();
	return 0;
}
