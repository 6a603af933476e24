// SPDX-License-Identifier: GPL-2.0
/*
 * launcher_chain.c [-i N] [-f DIR]: N rounds (default 40) of an
 * MPI_Allreduce, a ring of MPI_Send/MPI_Recv, a ring of MPI_Irecv,
 * MPI_Send and MPI_Wait, and an MPI_Barrier, each result checked; with
 * -f, then a file in DIR written by all ranks with MPI-IO's collective
 * MPI_File_write_at_all and read back (the MPI calls PMPI_ names inside:
 * ROMIO).  Every rank prints its own call counts, to be compared with
 * what the glue and the PMPI tools beside it counted ("chain: rank R
 * allreduce A send S recv R barrier B wait W io I failed F").
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Every rank writes its int at its offset; each reads them all back. */
static int file_io(const char *dir, int rank, int size)
{
	char path[4096];
	MPI_File fh;
	int v = 1000 + rank, i, got, bad = 0;

	snprintf(path, sizeof(path), "%s/chain.io", dir);
	if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
			  MPI_INFO_NULL, &fh) != MPI_SUCCESS)
		return 1;
	bad |= MPI_File_write_at_all(fh, rank * (MPI_Offset)sizeof(int), &v, 1,
				     MPI_INT, MPI_STATUS_IGNORE) != MPI_SUCCESS;
	bad |= MPI_File_sync(fh) != MPI_SUCCESS;
	MPI_Barrier(MPI_COMM_WORLD);
	bad |= MPI_File_sync(fh) != MPI_SUCCESS;
	for (i = 0; i < size; i++) {
		got = -1;
		MPI_File_read_at(fh, i * (MPI_Offset)sizeof(int), &got, 1,
				 MPI_INT, MPI_STATUS_IGNORE);
		bad |= got != 1000 + i;
	}
	bad |= MPI_File_close(&fh) != MPI_SUCCESS;
	return bad;
}

int main(int argc, char **argv)
{
	int rank, size, i, n = 40, failed = 0, opt;
	long calls[6] = { 0 };	/* allreduce send recv barrier wait io */
	const char *dir = NULL;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "i:f:")) != -1) {
		if (opt == 'i')
			n = atoi(optarg);
		else if (opt == 'f')
			dir = optarg;
	}
	for (i = 0; i < n; i++) {
		int v = rank + i, sum = 0, got = -1;
		int next = (rank + 1) % size, prev = (rank + size - 1) % size;
		MPI_Request req;

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
		/* The receive posted first: every rank may send at once. */
		got = -1;
		MPI_Irecv(&got, 1, MPI_INT, prev, n + i, MPI_COMM_WORLD, &req);
		MPI_Send(&v, 1, MPI_INT, next, n + i, MPI_COMM_WORLD);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		calls[1]++;
		calls[4]++;
		failed += got != prev + i;
		MPI_Barrier(MPI_COMM_WORLD);
		calls[3]++;
	}
	if (dir) {
		failed += file_io(dir, rank, size);
		calls[3]++;
		calls[5]++;
	}
	printf("chain: rank %d allreduce %ld send %ld recv %ld barrier %ld wait %ld io %ld failed %d\n",
	       rank, calls[0], calls[1], calls[2], calls[3], calls[4],
	       calls[5], failed);
	MPI_Finalize();
	return failed != 0;
}
