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

static int preload_is(const char *old, const char *fix, const char *glue,
		      const char *want)
{
	char buf[256];

	return !cosched_preload(buf, sizeof(buf), old, fix, glue) && !strcmp(buf, want);
}

#define FIX "/g/libcosched-ucx-finalize.so"
#define GLUE_MPICH "/g/libcosched-mpi-mpich.so"

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
	check(preload_is(NULL, NULL, "/g/libcosched-mpi-openmpi.so", "/g/libcosched-mpi-openmpi.so"),
	      "no LD_PRELOAD: the glue alone");
	check(preload_is("/a.so:/b.so", NULL, "/g/libcosched-mpi-mpich.so",
			 "/a.so:/b.so:/g/libcosched-mpi-mpich.so"),
	      "the user's preloads first, the glue last");
	check(preload_is("/a.so /b.so::", NULL, "/g/x.so", "/a.so:/b.so:/g/x.so"),
	      "spaces and empty entries");
	check(preload_is("/old/libcosched-mpi-openmpi.so:/a.so", NULL, "/g/libcosched-mpi-openmpi.so",
			 "/a.so:/g/libcosched-mpi-openmpi.so"),
	      "an earlier glue is dropped (no double interposition)");
	check(preload_is("libcosched-mpi-mpich.so", NULL, "/g/x.so", "/g/x.so"),
	      "a bare glue name is dropped too");
	check(preload_is("/libcosched-mpi-.so", NULL, "/g/x.so", "/libcosched-mpi-.so:/g/x.so"),
	      "not a glue name: kept");
	check(cosched_preload(small, sizeof(small), "/a.so", NULL, "/g/x.so") == -1,
	      "too long: refused");
	check(cosched_libs("policy", 0, "mpich", NULL) == (COSCHED_GLUE | COSCHED_FIX) &&
	      cosched_libs("yield", 0, "mpich", "1") == (COSCHED_GLUE | COSCHED_FIX) &&
	      cosched_libs("poll", 0, "mpich", "") == (COSCHED_GLUE | COSCHED_FIX),
	      "MPICH under --cosched: the glue and the finalize fix");
	check(cosched_libs("policy", 0, "openmpi", NULL) == COSCHED_GLUE,
	      "Open MPI under --cosched: the glue alone");
	check(cosched_libs("policy", 0, "mpich", "0") == COSCHED_GLUE,
	      "COSCHED_UCX_FINALIZE=0: MPICH without the fix");
	check(cosched_libs(NULL, 1, "mpich", NULL) == COSCHED_FIX &&
	      cosched_libs(NULL, 1, "mpich", "0") == 0 &&
	      cosched_libs(NULL, 1, "openmpi", NULL) == 0,
	      "--cosched=off: MPICH gets the fix alone (cosched-run -N), Open MPI nothing");
	check(cosched_libs(NULL, 0, "mpich", NULL) == 0,
	      "no --cosched, default off: nothing, MPICH included");
	check(preload_is("/a.so", FIX, GLUE_MPICH, "/a.so:" FIX ":" GLUE_MPICH),
	      "MPICH: the user's, the fix, the glue last");
	check(preload_is(NULL, FIX, NULL, FIX) &&
	      preload_is("/a.so:/old/libcosched-mpi-mpich.so", FIX, NULL,
			 "/a.so:/old/libcosched-mpi-mpich.so:" FIX),
	      "the fix alone; a user's glue then stays (cosched-run -N)");
	check(preload_is("/old/libcosched-ucx-finalize.so:/a.so:libcosched-ucx-finalize.so",
			 FIX, GLUE_MPICH, "/a.so:" FIX ":" GLUE_MPICH),
	      "an earlier finalize fix is dropped (one helper thread)");
	check(preload_is("/old/libcosched-ucx-finalize.so:/a.so", NULL, GLUE_MPICH,
			 "/old/libcosched-ucx-finalize.so:/a.so:" GLUE_MPICH) &&
	      preload_is("/libcosched-ucx-finalize.so.1", FIX, NULL,
			 "/libcosched-ucx-finalize.so.1:" FIX),
	      "without our fix the user's stays; not the fix's name: kept");
	check(cosched_job_id(17, 0) == (17ull << 32) &&
	      cosched_job_id(4294967295u, 3) == (0xffffffffull << 32 | 3),
	      "job id = job << 32 | step");
	printf("%d passed, %d failed\n", pass, fail);
	return fail != 0;
}
