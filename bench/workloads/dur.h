/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dur.h - durations on the command line of the plain-C tools (gang,
 * noise, hog): a number with a unit, "100ms", "2s", "500us", "1.5s".
 */
#ifndef DUR_H
#define DUR_H

#include <stdint.h>

/*
 * Parse @s into nanoseconds.  A bare number is in @def_unit_ns.  Returns
 * 0, or -1 (errno EINVAL) when @s is not a positive duration.
 */
int dur_parse(const char *s, uint64_t def_unit_ns, uint64_t *ns);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t dur_now(void);

/* Sleep @ns, resuming after signals; returns early only if *@stop is set. */
void dur_sleep(uint64_t ns, volatile int *stop);

#endif
