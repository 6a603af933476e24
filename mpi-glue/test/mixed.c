// SPDX-License-Identifier: GPL-2.0
/*
 * mixed - blocking collectives in a loop (Allreduce, in place too, Bcast,
 * Barrier, Reduce, Allgather, Alltoall) and a ring MPI_Sendrecv on
 * MPI_COMM_WORLD and on a split communicator of reversed rank order, with
 * integer checks; -s S: as many iterations as fit in S seconds of rank
 * 0's clock, and -r FILE: rank 0 creates FILE once MPI_Init has returned
 * (a policy changed meanwhile, test/guest.sh); -c: the collectives
 * only, no MPI_Sendrecv; -w: RMA only, each iteration a put to the
 * ring's next rank between two MPI_Win_fence calls (rank 0's decision to
 * go on is put too: no other MPI call in the loop).  With -t R,
 * rank R issues them from a second thread while the thread that
 * initialised MPI waits in pthread_join.  Run it with one rank unlike
 * the others (test/onerank.sh, or -t): under the glue every rank must
 * still use the same form of each collective, or the job hangs (the
 * caller's timeout then fails it).  Rank 0 prints one line; exit 1 on a
 * wrong result.
 *   mpiexec -n N mixed [-i iterations | -s seconds] [-r file] [-t rank] [-c | -w]
 */
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAXRANKS 64

static int iters = 100, seconds, fails, coll_only, rma_only;

static void expect(int cond, const char *what, int i)
{
	if (!cond && fails++ < 10)
		fprintf(stderr, "FAIL mixed: %s, iteration %d\n", what, i);
}

static void round_on(MPI_Comm comm, int i)
{
	int r, n, k, v, sum, out[MAXRANKS], in[MAXRANKS];

	MPI_Comm_rank(comm, &r);
	MPI_Comm_size(comm, &n);
	v = r + i;
	MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comm);
	expect(sum == n * (n - 1) / 2 + n * i, "allreduce", i);
	sum = r;
	MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_MAX, comm);
	expect(sum == n - 1, "allreduce in place", i);
	v = r == i % n ? 1000 * r + i : -1;
	MPI_Bcast(&v, 1, MPI_INT, i % n, comm);
	expect(v == 1000 * (i % n) + i, "bcast", i);
	MPI_Barrier(comm);
	v = r * i;
	sum = -1;
	MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, i % n, comm);
	expect(r != i % n || sum == i * n * (n - 1) / 2, "reduce", i);
	v = r + i;
	MPI_Allgather(&v, 1, MPI_INT, in, 1, MPI_INT, comm);
	for (k = 0; k < n; k++)
		expect(in[k] == k + i, "allgather", i);
	for (k = 0; k < n; k++)
		out[k] = 100 * r + k + i;
	MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, comm);
	for (k = 0; k < n; k++)
		expect(in[k] == 100 * k + r + i, "alltoall", i);
	if (coll_only)
		return;
	v = 10 * r + i;
	k = -1;
	MPI_Sendrecv(&v, 1, MPI_INT, (r + 1) % n, 7, &k, 1, MPI_INT,
		     (r + n - 1) % n, 7, comm, MPI_STATUS_IGNORE);
	expect(k == 10 * ((r + n - 1) % n) + i, "sendrecv", i);
}

/* -s: does rank 0's clock allow another iteration?  Collective. */
static int more(int i, time_t end)
{
	int go = seconds ? time(NULL) < end : i < iters;

	MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return go;
}

/* -w: the ring of round_on() by MPI_Put and MPI_Win_fence alone. */
static void rma_loop(time_t end, int rank, int size)
{
	/*
	 * [0]: from the left; [1]: go on.  Four, not two: MPICH 4.0.2 over
	 * UCX puts into an 8-byte window 8 bytes low (16 bytes are right).
	 */
	int slot[4] = { -1, 1 };
	int v, go, k, i, again = 1;
	MPI_Win win;

	MPI_Win_create(slot, sizeof(slot), sizeof(int), MPI_INFO_NULL,
		       MPI_COMM_WORLD, &win);
	MPI_Win_fence(0, win);
	for (i = 0; again; i++) {
		v = 10 * rank + i;
		MPI_Put(&v, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, win);
		go = seconds ? time(NULL) < end : i + 1 < iters;
		/* Rank 0's own slot by a store: no put to itself. */
		if (rank == 0) {
			slot[1] = go;
			for (k = 1; k < size; k++)
				MPI_Put(&go, 1, MPI_INT, k, 1, 1, MPI_INT, win);
		}
		MPI_Win_fence(0, win);
		expect(slot[0] == 10 * ((rank + size - 1) % size) + i, "put", i);
		/*
		 * Read within this epoch: after the next fence the next
		 * epoch's puts may already have landed.  Nobody puts again
		 * before everyone has read its slots.
		 */
		again = slot[1];
		MPI_Win_fence(0, win);
	}
	iters = i;
	MPI_Win_free(&win);
}

static void *loop(void *arg)
{
	time_t end = time(NULL) + seconds;
	MPI_Comm split;
	int i, rank, size;

	(void)arg;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (rma_only) {
		rma_loop(end, rank, size);
		return NULL;
	}
	MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &split);
	for (i = 0; more(i, end); i++) {
		round_on(MPI_COMM_WORLD, i);
		round_on(split, i);
	}
	iters = i;
	MPI_Comm_free(&split);
	return NULL;
}

int main(int argc, char **argv)
{
	int provided, rank, size, opt, threaded = -1, bad;
	pthread_t t;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "ci:s:r:t:w")) != -1) {
		if (opt == 'i')
			iters = atoi(optarg);
		else if (opt == 's')
			seconds = atoi(optarg);
		else if (opt == 'r' && rank == 0)
			close(open(optarg, O_WRONLY | O_CREAT, 0644));
		else if (opt == 't')
			threaded = atoi(optarg);
		else if (opt == 'c')
			coll_only = 1;
		else if (opt == 'w')
			rma_only = 1;
	}
	if (size > MAXRANKS || (threaded >= 0 &&
				provided < MPI_THREAD_SERIALIZED)) {
		if (rank == 0)
			printf("mixed: size %d, thread level %d: not applicable\n",
			       size, provided);
		MPI_Finalize();
		return 2;
	}
	if (rank == threaded) {
		/* The thread that initialised MPI stays out of it. */
		if (pthread_create(&t, NULL, loop, NULL)) {
			perror("pthread_create");
			MPI_Abort(MPI_COMM_WORLD, 3);
		}
		pthread_join(t, NULL);
	} else {
		loop(NULL);
	}
	MPI_Allreduce(&fails, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("mixed: %d ranks, %d iterations%s, %d failed checks\n",
		       size, iters, threaded >= 0 ? ", one rank threaded" : "",
		       bad);
	MPI_Finalize();
	return bad != 0;
}
