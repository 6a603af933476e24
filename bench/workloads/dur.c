// SPDX-License-Identifier: GPL-2.0
/*
 * dur.c - durations for the plain-C tools; see dur.h.
 */
#define _GNU_SOURCE
#include "dur.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int dur_parse(const char *s, uint64_t def_unit_ns, uint64_t *ns)
{
	static const struct {
		const char *name;
		double ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "min", 60e9 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0) || v > 1e7) {
		errno = EINVAL;
		return -1;
	}
	if (!*end) {
		*ns = (uint64_t)(v * def_unit_ns + 0.5);
		return 0;
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].name)) {
			*ns = (uint64_t)(v * units[i].ns + 0.5);
			return *ns ? 0 : (errno = EINVAL, -1);
		}
	errno = EINVAL;
	return -1;
}

uint64_t dur_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void dur_sleep(uint64_t ns, volatile int *stop)
{
	uint64_t end = dur_now() + ns;
	struct timespec ts;

	/* Absolute deadline: a signal in between does not stretch it. */
	ts.tv_sec = end / 1000000000ull;
	ts.tv_nsec = end % 1000000000ull;
	while (!(stop && *stop) &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}
