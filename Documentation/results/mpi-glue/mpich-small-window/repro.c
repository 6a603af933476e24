// SPDX-License-Identifier: GPL-2.0
/*
 * repro N: rank 0 puts 77 at displacement 1 of rank 1's window of N ints
 * (between two fences); rank 1 prints where it landed.  The window is the
 * middle of a zeroed array, with N ints of guard on either side.
 *   mpicc.mpich -o repro repro.c && mpiexec.mpich -n 2 ./repro 2
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int n, go = 77, rank, i, *buf, *win_mem;
	MPI_Win win;

	MPI_Init(&argc, &argv);
	n = argc > 1 ? atoi(argv[1]) : 2;
	buf = calloc(3 * n, sizeof(int));
	win_mem = buf + n;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Win_create(win_mem, n * sizeof(int), sizeof(int), MPI_INFO_NULL,
		       MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	if (rank == 0)
		MPI_Put(&go, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	if (rank == 1) {
		for (i = 0; i < 3 * n; i++)
			if (buf[i] == 77)
				printf("window of %d ints: the put landed at displacement %d (want 1)\n",
				       n, i - n);
	}
	MPI_Win_free(&win);
	MPI_Finalize();
	return 0;
}
