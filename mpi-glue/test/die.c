// SPDX-License-Identifier: GPL-2.0
/*
 * die - rank 0 waits in MPI_Recv for a message that never comes while
 * the last rank, after a nap (so that rank 0 is blocked by then), ends
 * the job: "abort" calls MPI_Abort(MPI_COMM_WORLD, 7), "kill" raises
 * SIGKILL.  The launcher must end the whole job either way.
 *   mpiexec -n 2 die abort|kill [nap_ms]
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size, v;
	long nap_ms = argc > 2 ? atol(argv[2]) : 500;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2 || size < 2) {
		fprintf(stderr, "usage: die abort|kill [nap_ms]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == size - 1) {
		usleep((useconds_t)nap_ms * 1000);
		fprintf(stderr, "die: rank %d: %s now\n", rank, argv[1]);
		if (!strcmp(argv[1], "kill"))
			raise(SIGKILL);
		MPI_Abort(MPI_COMM_WORLD, 7);
	}
	MPI_Recv(&v, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	printf("die: rank %d got a message that was never sent\n", rank);
	MPI_Finalize();
	return 1;
}
