/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rank.h - what the launcher told a process about its place in the job,
 * read from the environment before or at MPI_Init (rank.c).  No MPI in
 * it: the host test drives it with made-up environments.
 */
#ifndef COSCHED_MPI_RANK_H
#define COSCHED_MPI_RANK_H

#include <stdint.h>

/* Inside the glue: not exported (only MPI_* are). */
#pragma GCC visibility push(hidden)

struct glue_launch {
	const char *source;	/* "ompi", "pmi", "pmix", "slurm" or NULL */
	long rank;		/* -1: unknown */
	long size;		/* -1: unknown */
	long local_rank;	/* rank among the job's ranks on this node */
	uint64_t job;		/* 0: none */
};

/*
 * Fill *l from the environment.  rank and size are MPI_COMM_WORLD's when
 * the caller knows them (-1 if not): a source whose variables say
 * otherwise was inherited from an outer job and is skipped.
 */
void glue_launch_env(struct glue_launch *l, long rank, long size);

#pragma GCC visibility pop

#endif /* COSCHED_MPI_RANK_H */
