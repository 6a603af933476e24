/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal TAP for the simulator's tests: "ok N - what" / "not ok N - what". */
#ifndef SIM_TAP_H
#define SIM_TAP_H

#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

static int tap_n, tap_failed;

#define ok(cond, ...) do {						\
	int c_ = !!(cond);						\
	printf("%s %d - ", c_ ? "ok" : "not ok", ++tap_n);		\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	tap_failed += !c_;						\
} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

/*
 * The calibration file of the tree, on a quiet machine: without the
 * emulator's stalls and the guest's background tasks, whose randomness
 * the mechanism tests do not want.  A test changes other fields it needs.
 */
static inline void tap_params(struct params *p, const char *kernel)
{
	if (params_load(p, SIM_ROOT "/bench/sim/params.conf", kernel)) {
		printf("Bail out! params.conf\n");
		exit(1);
	}
	p->stall_per_s = 0;
	p->background_pct = 0;
}

static inline void tap_mix(struct mix *m, const char *name, int njobs,
			   const char *job)
{
	int i;

	snprintf(m->name, sizeof(m->name), "%s", name);
	m->njobs = njobs;
	m->rpn = 1;
	for (i = 0; i < njobs; i++)
		if (jobspec_parse(&m->jobs[i], job)) {
			printf("Bail out! job '%s'\n", job);
			exit(1);
		}
}

#endif
