// SPDX-License-Identifier: GPL-2.0
/*
 * counter.c - a second PMPI tool for the glue's tests, as small as a
 * tool can be: it counts the program's MPI_Init, MPI_Allreduce,
 * MPI_Send, MPI_Recv, MPI_Barrier and MPI_Wait calls and prints the
 * counts at MPI_Finalize ("pmpi-counter: rank R init I allreduce A send
 * S recv R barrier B wait W").  Like mpiP and Darshan it calls down
 * through the PMPI_ names.  Built by chain.sh and launcher.sh: mpicc.MPI
 * -shared (preloaded, or linked to the program).
 */
#include <mpi.h>
#include <stdio.h>

static long n_init, n_allreduce, n_send, n_recv, n_barrier, n_wait;

int MPI_Init(int *argc, char ***argv)
{
	n_init++;
	return PMPI_Init(argc, argv);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	n_init++;
	return PMPI_Init_thread(argc, argv, required, provided);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
		  MPI_Op op, MPI_Comm comm)
{
	n_allreduce++;
	return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest,
	     int tag, MPI_Comm comm)
{
	n_send++;
	return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag,
	     MPI_Comm comm, MPI_Status *status)
{
	n_recv++;
	return PMPI_Recv(buf, count, type, source, tag, comm, status);
}

int MPI_Barrier(MPI_Comm comm)
{
	n_barrier++;
	return PMPI_Barrier(comm);
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
	n_wait++;
	return PMPI_Wait(req, status);
}

int MPI_Finalize(void)
{
	int rank = -1;

	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	fprintf(stderr,
		"pmpi-counter: rank %d init %ld allreduce %ld send %ld recv %ld barrier %ld wait %ld\n",
		rank, n_init, n_allreduce, n_send, n_recv, n_barrier, n_wait);
	return PMPI_Finalize();
}
