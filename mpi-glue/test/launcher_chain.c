// SPDX-License-Identifier: GPL-2.0
/*
 * launcher_chain.c [-i N]: N rounds (default 40) of an MPI_Allreduce,
 * a ring of MPI_Send/MPI_Recv and an MPI_Barrier, each result checked;
 * every rank prints its own call counts, to be compared with what the
 * PMPI tools preloaded beside the glue counted ("chain: rank R
 * allreduce A send S recv R barrier B failed F").
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size, i, n = 40, failed = 0, opt;
	long calls[4] = { 0 };	/* allreduce send recv barrier */

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "i:")) != -1)
		if (opt == 'i')
			n = atoi(optarg);
	for (i = 0; i < n; i++) {
		int v = rank + i, sum = 0, got = -1;
		int next = (rank + 1) % size, prev = (rank + size - 1) % size;

		MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		calls[0]++;
		failed += sum != size * (size - 1) / 2 + size * i;
		/* Even ranks send first: no two ranks both in MPI_Send. */
		if (rank % 2 == 0) {
			MPI_Send(&v, 1, MPI_INT, next, i, MPI_COMM_WORLD);
			MPI_Recv(&got, 1, MPI_INT, prev, i, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&got, 1, MPI_INT, prev, i, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(&v, 1, MPI_INT, next, i, MPI_COMM_WORLD);
		}
		calls[1]++;
		calls[2]++;
		failed += got != prev + i;
		MPI_Barrier(MPI_COMM_WORLD);
		calls[3]++;
	}
	printf("chain: rank %d allreduce %ld send %ld recv %ld barrier %ld failed %d\n",
	       rank, calls[0], calls[1], calls[2], calls[3], failed);
	MPI_Finalize();
	return failed != 0;
}
