// SPDX-License-Identifier: GPL-2.0
/*
 * env.c RANK SIZE: print what the glue's rank.c derives from this
 * process's environment ("source rank size local_rank job"), given
 * MPI_COMM_WORLD's rank and size (-1: unknown, as before MPI_Init).
 * Built by launcher.sh with the host's cc: no MPI in it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../rank.c"

int main(int argc, char **argv)
{
	struct glue_launch l;

	if (argc != 3) {
		fprintf(stderr, "usage: env RANK SIZE\n");
		return 2;
	}
	glue_launch_env(&l, atol(argv[1]), atol(argv[2]));
	printf("%s %ld %ld %ld %llu\n", l.source ? l.source : "-", l.rank,
	       l.size, l.local_rank, (unsigned long long)l.job);
	return 0;
}
