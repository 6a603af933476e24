// SPDX-License-Identifier: GPL-2.0
/*
 * cosched_env.c - the SPANK plugin's environment arithmetic
 * (cosched_env.h).
 */
#include "cosched_env.h"

#include <stdio.h>
#include <string.h>

/* libcosched's words for COSCHED_RECV_MODE (userlib/src/wait.c). */
static const char *const modes[] = { "policy", "poll", "block", "yield" };

int cosched_mode_parse(const char *arg, const char **mode)
{
	size_t i;

	if (!arg || !*arg) {
		*mode = modes[0];
		return 0;
	}
	if (!strcmp(arg, "off")) {
		*mode = NULL;
		return 0;
	}
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (!strcmp(arg, modes[i])) {
			*mode = modes[i];
			return 0;
		}
	}
	return -1;
}

int cosched_mpi_parse(const char *mpi)
{
	return mpi && (!strcmp(mpi, "openmpi") || !strcmp(mpi, "mpich")) ? 0 : -1;
}

int cosched_libs(const char *mode, int off_asked, const char *mpi,
		 const char *ucx_finalize)
{
	int libs = mode ? COSCHED_GLUE : 0;

	if ((mode || off_asked) && mpi && !strcmp(mpi, "mpich") &&
	    !(ucx_finalize && !strcmp(ucx_finalize, "0")))
		libs |= COSCHED_FIX;
	return libs;
}

/* The file name of the entry s[0..*n), its length in *n. */
static const char *base_name(const char *s, size_t *n)
{
	const char *base = s, *p;

	for (p = s; p < s + *n; p++)
		if (*p == '/')
			base = p + 1;
	*n -= base - s;
	return base;
}

/* Is the entry s[0..n) one of our glue libraries (any directory)? */
static int is_glue(const char *s, size_t n)
{
	static const char pre[] = "libcosched-mpi-", suf[] = ".so";
	const char *base = base_name(s, &n);

	return n > strlen(pre) + strlen(suf) &&
	       !strncmp(base, pre, strlen(pre)) &&
	       !strncmp(base + n - strlen(suf), suf, strlen(suf));
}

/* Is the entry s[0..n) the finalize fix (any directory)? */
static int is_fix(const char *s, size_t n)
{
	static const char fix[] = "libcosched-ucx-finalize.so";
	const char *base = base_name(s, &n);

	return n == strlen(fix) && !strncmp(base, fix, n);
}

/* Append s[0..n) to buf (used bytes *at), colon-separated. */
static int append(char *buf, size_t len, size_t *at, const char *s, size_t n)
{
	size_t sep = *at ? 1 : 0;

	if (*at + sep + n + 1 > len)
		return -1;
	if (sep)
		buf[(*at)++] = ':';
	memcpy(buf + *at, s, n);
	*at += n;
	buf[*at] = '\0';
	return 0;
}

int cosched_preload(char *buf, size_t len, const char *old, const char *fix,
		    const char *glue)
{
	size_t at = 0, n;

	if (!len)
		return -1;
	buf[0] = '\0';
	while (old && *old) {
		n = strcspn(old, ": ");
		if (n && !(glue && is_glue(old, n)) && !(fix && is_fix(old, n)) &&
		    append(buf, len, &at, old, n))
			return -1;
		old += n;
		old += strspn(old, ": ");
	}
	if (fix && append(buf, len, &at, fix, strlen(fix)))
		return -1;
	if (glue && append(buf, len, &at, glue, strlen(glue)))
		return -1;
	return 0;
}

uint64_t cosched_job_id(uint32_t job, uint32_t step)
{
	return (uint64_t)job << 32 | step;
}
