// SPDX-License-Identifier: GPL-2.0
/*
 * threads - MPI_THREAD_MULTIPLE: the main thread and a second one each
 * run a ping-pong with the other rank on a communicator of their own, at
 * the same time.  Under the glue only the thread that initialised MPI
 * waits the cosched way; the other one must work all the same (MPI's
 * own waiting).  Prints the sums; exit 1 on a wrong one.
 *   mpiexec -n 2 threads [-i iterations]
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int rank, iters = 200;

struct pp {
	MPI_Comm comm;
	long sum;
};

static void *pingpong(void *p)
{
	struct pp *pp = p;
	int i, v;

	for (i = 0; i < iters; i++) {
		if (rank == 0) {
			v = i;
			MPI_Send(&v, 1, MPI_INT, 1, 1, pp->comm);
			MPI_Recv(&v, 1, MPI_INT, 1, 2, pp->comm,
				 MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&v, 1, MPI_INT, 0, 1, pp->comm,
				 MPI_STATUS_IGNORE);
			v *= 2;
			MPI_Send(&v, 1, MPI_INT, 0, 2, pp->comm);
		}
		pp->sum += v;
		if (i % 16 == 0)
			MPI_Barrier(pp->comm);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct pp a = { 0 }, b = { 0 };
	int provided, size, opt, bad = 0;
	long want;
	pthread_t t;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "i:")) != -1)
		if (opt == 'i')
			iters = atoi(optarg);
	if (provided < MPI_THREAD_MULTIPLE || size != 2) {
		if (rank == 0)
			printf("threads: provided %d size %d: not applicable\n",
			       provided, size);
		MPI_Finalize();
		return provided < MPI_THREAD_MULTIPLE ? 0 : 2;
	}
	MPI_Comm_dup(MPI_COMM_WORLD, &a.comm);
	MPI_Comm_dup(MPI_COMM_WORLD, &b.comm);
	if (pthread_create(&t, NULL, pingpong, &b)) {
		perror("pthread_create");
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
	pingpong(&a);
	pthread_join(t, NULL);
	want = (long)iters * (iters - 1);	/* sum of 2i */
	if (rank == 0) {
		want = (long)iters * (iters - 1);
		bad = a.sum != want || b.sum != want;
		printf("threads: main %ld second %ld expected %ld%s\n", a.sum,
		       b.sum, want, bad ? " FAIL" : "");
	}
	MPI_Comm_free(&a.comm);
	MPI_Comm_free(&b.comm);
	MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return bad;
}
