// SPDX-License-Identifier: GPL-2.0
/*
 * test_env.c - host test of the SPANK plugin's option parsing and
 * environment (cosched_env.c); TAP, last line "N passed, N failed".
 */
#include "cosched_env.h"

#include <stdio.h>
#include <string.h>

static int pass, fail;

static void check(int ok, const char *what)
{
	if (ok)
		pass++;
	else
		fail++;
	printf("%s %d - %s\n", ok ? "ok" : "not ok", pass + fail, what);
}

static int mode_is(const char *arg, const char *want)
{
	const char *m = "unset";

	if (cosched_mode_parse(arg, &m))
		return 0;
	return want ? m && !strcmp(m, want) : !m;
}

static int preload_is(const char *old, const char *glue, const char *want)
{
	char buf[256];

	return !cosched_preload(buf, sizeof(buf), old, glue) && !strcmp(buf, want);
}

int main(void)
{
	const char *m = "unset";
	char small[8];

	check(mode_is(NULL, "policy"), "--cosched alone is policy");
	check(mode_is("", "policy"), "--cosched= is policy");
	check(mode_is("poll", "poll") && mode_is("block", "block") &&
	      mode_is("yield", "yield") && mode_is("policy", "policy"),
	      "policy, poll, block, yield accepted");
	check(mode_is("off", NULL), "off: no glue");
	check(cosched_mode_parse("bogus", &m) == -1 && !strcmp(m, "unset"),
	      "bogus refused, mode untouched");
	check(cosched_mode_parse("Poll", &m) == -1 &&
	      cosched_mode_parse("poll ", &m) == -1, "no case folding, no trailing blank");
	check(!cosched_mpi_parse("openmpi") && !cosched_mpi_parse("mpich") &&
	      cosched_mpi_parse("mvapich") && cosched_mpi_parse(NULL), "mpi names");
	check(preload_is(NULL, "/g/libcosched-mpi-openmpi.so", "/g/libcosched-mpi-openmpi.so"),
	      "no LD_PRELOAD: the glue alone");
	check(preload_is("/a.so:/b.so", "/g/libcosched-mpi-mpich.so",
			 "/a.so:/b.so:/g/libcosched-mpi-mpich.so"),
	      "the user's preloads first, the glue last");
	check(preload_is("/a.so /b.so::", "/g/x.so", "/a.so:/b.so:/g/x.so"),
	      "spaces and empty entries");
	check(preload_is("/old/libcosched-mpi-openmpi.so:/a.so", "/g/libcosched-mpi-openmpi.so",
			 "/a.so:/g/libcosched-mpi-openmpi.so"),
	      "an earlier glue is dropped (no double interposition)");
	check(preload_is("libcosched-mpi-mpich.so", "/g/x.so", "/g/x.so"),
	      "a bare glue name is dropped too");
	check(preload_is("/libcosched-mpi-.so", "/g/x.so", "/libcosched-mpi-.so:/g/x.so"),
	      "not a glue name: kept");
	check(cosched_preload(small, sizeof(small), "/a.so", "/g/x.so") == -1,
	      "too long: refused");
	check(cosched_job_id(17, 0) == (17ull << 32) &&
	      cosched_job_id(4294967295u, 3) == (0xffffffffull << 32 | 3),
	      "job id = job << 32 | step");
	printf("%d passed, %d failed\n", pass, fail);
	return fail != 0;
}
