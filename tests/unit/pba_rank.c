// SPDX-License-Identifier: GPL-2.0
/*
 * pba_rank: the turns cosched_pba_rank() (UAPI header) hands out, over
 * 100,000 periods: users take turns first, so a user with five jobs on a
 * CPU wins no more turns than a user with one; a user's jobs share its
 * turns evenly; the same arguments give the same rank (every node agrees);
 * and the turns of two jobs are not a fixed alternation.
 */
#include <stdio.h>
#include <stdlib.h>

#include <linux/cosched.h>

#define PERIODS	100000
#define TOL	0.02	/* of a share: 4.5 standard deviations at 100,000 */

static int failed;

static void check(int cond, const char *what, double got, double want)
{
	printf("%s - %s: %.4f (want %.4f)\n", cond ? "ok" : "not ok", what, got, want);
	failed += !cond;
}

int main(void)
{
	/* User 1000 has jobs 1-5, user 2000 has job 6, all on one CPU. */
	static const struct { unsigned long long job; unsigned int uid; } jobs[] = {
		{ 1, 1000 }, { 2, 1000 }, { 3, 1000 }, { 4, 1000 }, { 5, 1000 },
		{ 6, 2000 },
	};
	const int n = sizeof(jobs) / sizeof(jobs[0]);
	unsigned int wins[6] = { 0 }, flips = 0, last = 0;

	for (unsigned long long p = 0; p < PERIODS; p++) {
		int best = 0;

		for (int j = 1; j < n; j++)
			if (cosched_pba_rank(jobs[j].job, jobs[j].uid, p) <
			    cosched_pba_rank(jobs[best].job, jobs[best].uid, p))
				best = j;
		wins[best]++;
		if (cosched_pba_rank(1, 1000, p) != cosched_pba_rank(1, 1000, p))
			failed++;
		/* Two jobs of one user: does the winner change every period? */
		unsigned int w = cosched_pba_rank(2, 1000, p) < cosched_pba_rank(1, 1000, p);

		flips += p && w != last;
		last = w;
	}
	check(wins[5] / (double)PERIODS > 0.5 - TOL &&
	      wins[5] / (double)PERIODS < 0.5 + TOL,
	      "the user with one job wins half the turns", wins[5] / (double)PERIODS, 0.5);
	for (int j = 0; j < 5; j++) {
		char what[64];

		snprintf(what, sizeof(what), "job %d of the user with five", j + 1);
		check(wins[j] / (double)PERIODS > 0.1 - TOL / 2 &&
		      wins[j] / (double)PERIODS < 0.1 + TOL / 2, what,
		      wins[j] / (double)PERIODS, 0.1);
	}
	check(flips / (double)PERIODS > 0.5 - TOL && flips / (double)PERIODS < 0.5 + TOL,
	      "two jobs: the turn changes hands at random, not every period",
	      flips / (double)PERIODS, 0.5);
	check(cosched_pba_rank(1, 1000, 7) != cosched_pba_rank(1, 1001, 7),
	      "the uid is part of the rank", 1, 1);
	return failed ? 1 : 0;
}
