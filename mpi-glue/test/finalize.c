// SPDX-License-Identifier: GPL-2.0
/*
 * finalize.c: MPI_Init, one MPI_Allreduce, MPI_Finalize: the smallest
 * program that hangs in MPICH 4.0.2/UCX's MPI_Finalize now and then
 * (test/finalize.sh, Documentation/results/mpi-glue/finalize).  The
 * line is printed before MPI_Finalize, so a hang after it is told apart.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int rank, size, one = 1, sum = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("allreduce %d of %d\n", sum, size);
	fflush(stdout);
	MPI_Finalize();
	return sum == size ? 0 : 1;
}
