// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rank.c - rank, size, node-local rank and job id from the launcher's
 * environment.  Sources, first found first taken (Documentation/
 * cosched-run.rst says why this order):
 *
 *   ompi   Open MPI's launcher: OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK,
 *          job OMPI_MCA_ess_base_jobid
 *   pmi    MPICH's Hydra (or any PMI-1/2 launcher): PMI_RANK, PMI_SIZE,
 *          MPI_LOCALRANKID; no job id
 *   pmix   any PMIx launcher (srun --mpi=pmix, prterun): PMIX_RANK, job
 *          a hash of PMIX_NAMESPACE
 *   slurm  srun: SLURM_PROCID, SLURM_NTASKS (or SLURM_NPROCS),
 *          SLURM_LOCALID, job SLURM_JOB_ID and SLURM_STEP_ID
 *
 * The launchers closest to the process come first: an mpirun inside a
 * Slurm allocation leaves the allocation's SLURM_* in every rank, and
 * Hydra started by srun leaves srun's.  A field a source lacks comes
 * from the next one that names the same rank.  When the caller knows
 * MPI_COMM_WORLD's rank and size, a source that disagrees is skipped.
 * COSCHED_JOB, when set, is the job id whatever the sources say.
 */
#include "rank.h"

#include <errno.h>
#include <stdlib.h>

struct source {
	const char *name;
	const char *rank, *size, *size2, *local;
	uint64_t (*job)(void);
};

/* A non-negative decimal number, or -1. */
static long num(const char *name)
{
	const char *s = name ? getenv(name) : NULL;
	char *end;
	long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	return errno || *end ? -1 : v;
}

/* FNV-1a: a job id from a launcher's string name. */
static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
	return h;
}

static uint64_t ompi_job(void)
{
	long v = num("OMPI_MCA_ess_base_jobid");

	return v > 0 ? (uint64_t)v : 0;
}

static uint64_t pmix_job(void)
{
	const char *s = getenv("PMIX_NAMESPACE");

	return s && *s ? hash(s) : 0;
}

/* Job and step: one srun step is one MPI job. */
static uint64_t slurm_job(void)
{
	long job = num("SLURM_JOB_ID"), step = num("SLURM_STEP_ID");

	if (job <= 0)
		return 0;
	return (uint64_t)job << 32 | (uint32_t)(step < 0 ? 0 : step);
}

static const struct source sources[] = {
	{ "ompi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", NULL,
	  "OMPI_COMM_WORLD_LOCAL_RANK", ompi_job },
	{ "pmi", "PMI_RANK", "PMI_SIZE", NULL, "MPI_LOCALRANKID", NULL },
	{ "pmix", "PMIX_RANK", NULL, NULL, NULL, pmix_job },
	{ "slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_NPROCS",
	  "SLURM_LOCALID", slurm_job },
};

#define NSOURCES (sizeof(sources) / sizeof(sources[0]))

static long source_size(const struct source *s)
{
	long v = num(s->size);

	return v > 0 ? v : num(s->size2);
}

/* Does source s name this rank (and size, if both know one)? */
static int agrees(const struct source *s, long rank, long size)
{
	long r = num(s->rank), n = source_size(s);

	if (r < 0 || (rank >= 0 && r != rank))
		return 0;
	return size < 0 || n <= 0 || n == size;
}

void glue_launch_env(struct glue_launch *l, long rank, long size)
{
	const struct source *s;
	char *end;
	const char *cj;
	size_t i;

	l->source = NULL;
	l->rank = rank;
	l->size = size;
	l->local_rank = -1;
	l->job = 0;
	for (i = 0; i < NSOURCES; i++) {
		s = &sources[i];
		if (!agrees(s, l->rank, l->size))
			continue;
		if (!l->source) {
			l->source = s->name;
			l->rank = num(s->rank);
		}
		if (l->size < 0 && source_size(s) > 0)
			l->size = source_size(s);
		if (l->local_rank < 0)
			l->local_rank = num(s->local);
		if (!l->job && s->job)
			l->job = s->job();
	}
	cj = getenv("COSCHED_JOB");
	if (cj && *cj) {
		uint64_t v;

		errno = 0;
		v = strtoull(cj, &end, 0);
		if (!errno && !*end && v)
			l->job = v;
	}
}
