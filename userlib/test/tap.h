/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tap.h - TAP output for the libcosched tests: check() prints one
 * "ok N - ..." or "not ok N - ..." line and counts failures.
 */
#ifndef COSCHED_TEST_TAP_H
#define COSCHED_TEST_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int n_test, n_fail;

static inline bool __attribute__((format(printf, 2, 3)))
check(bool cond, const char *fmt, ...)
{
	va_list ap;

	n_test++;
	if (!cond)
		n_fail++;
	printf("%s %d - ", cond ? "ok" : "not ok", n_test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return cond;
}

#endif
