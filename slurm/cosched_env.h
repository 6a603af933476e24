/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cosched_env.h - what the SPANK plugin puts in a task's environment,
 * without Slurm: parsed and composed here so that a host test can check
 * it (test_env.c).
 */
#ifndef COSCHED_ENV_H
#define COSCHED_ENV_H

#include <stddef.h>
#include <stdint.h>

/*
 * cosched_mode_parse - the receive mode of --cosched[=MODE].
 * NULL or "" is "policy"; "off" sets *mode to NULL (plain job).
 * Returns 0, or -1 for a word libcosched does not know.
 */
int cosched_mode_parse(const char *arg, const char **mode);

/* cosched_mpi_parse - "openmpi" or "mpich": 0, else -1. */
int cosched_mpi_parse(const char *mpi);

/* What the task gets (cosched_libs). */
#define COSCHED_GLUE	1	/* libcosched-mpi-MPI.so */
#define COSCHED_FIX	2	/* libcosched-ucx-finalize.so */

/*
 * cosched_libs - which libraries a task is preloaded with, as
 * cosched-run decides: the glue when @mode is set (--cosched[=MODE], or
 * plugstack.conf's default=); the UCX finalize fix into MPICH tasks
 * (@mpi "mpich") with the glue and also with an explicit --cosched=off
 * (@off_asked: cosched-run -N), unless @ucx_finalize (the job's
 * COSCHED_UCX_FINALIZE, NULL if unset) is "0".  A job that does not ask
 * while the default is off gets nothing.  Returns a COSCHED_* mask.
 */
int cosched_libs(const char *mode, int off_asked, const char *mpi,
		 const char *ucx_finalize);

/*
 * cosched_preload - the task's LD_PRELOAD: @old's entries (colon or
 * space separated; NULL for none), then @fix, then @glue last, next to
 * the MPI library, as cosched-run does.  An earlier cosched glue in @old
 * is dropped when @glue is given, an earlier finalize fix when @fix is
 * (no double interposition).  @fix or @glue may be NULL: left out.
 * Returns 0, or -1 if it does not fit in @len bytes.
 */
int cosched_preload(char *buf, size_t len, const char *old, const char *fix,
		    const char *glue);

/* cosched_job_id - the job id of one srun step (mpi-glue/rank.c's). */
uint64_t cosched_job_id(uint32_t job, uint32_t step);

#endif
