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

/*
 * cosched_preload - the task's LD_PRELOAD: @old's entries (colon or
 * space separated; NULL for none) minus any cosched glue, then @glue
 * last, next to the MPI library, as cosched-run does.  Returns 0, or
 * -1 if it does not fit in @len bytes.
 */
int cosched_preload(char *buf, size_t len, const char *old, const char *glue);

/* cosched_job_id - the job id of one srun step (mpi-glue/rank.c's). */
uint64_t cosched_job_id(uint32_t job, uint32_t step);

#endif
