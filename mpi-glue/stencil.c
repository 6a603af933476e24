// SPDX-License-Identifier: GPL-2.0
/*
 * stencil - the effect table's workload: a 1-D Jacobi sweep over each
 * rank's slice, halo exchange with both neighbours (MPI_Irecv, MPI_Isend,
 * MPI_Waitall) every iteration and a residual MPI_Allreduce every 10th:
 * the fine-grained compute/communicate rhythm of a stencil code.  A
 * plain MPI program.  With -g DIR, rank 0 writes DIR/ready.<pid> after
 * MPI_Init and waits for DIR/go, so that several jobs start their timed
 * part together.  Prints the timed part's length (rank 0).
 *   mpiexec -n N stencil [-i iterations] [-c cells per rank] [-g dir]
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void wait_for_go(const char *dir)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/ready.%d", dir, (int)getpid());
	f = fopen(path, "w");
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "%s/go", dir);
	while (access(path, F_OK))
		usleep(2000);
}

int main(int argc, char **argv)
{
	int rank, size, opt, iters = 200, cells = 20000, i, j, l, r;
	const char *go = NULL;
	double *u, *v, *t, res = 0, all = 0, t0, t1;
	MPI_Request req[4];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "i:c:g:")) != -1) {
		if (opt == 'i')
			iters = atoi(optarg);
		else if (opt == 'c')
			cells = atoi(optarg);
		else if (opt == 'g')
			go = optarg;
	}
	u = calloc((size_t)cells + 2, sizeof(*u));
	v = calloc((size_t)cells + 2, sizeof(*v));
	if (!u || !v)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (j = 1; j <= cells; j++)
		u[j] = (double)((rank * cells + j) % 97);
	l = rank ? rank - 1 : MPI_PROC_NULL;
	r = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
	if (go && rank == 0)
		wait_for_go(go);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; i < iters; i++) {
		MPI_Irecv(&u[0], 1, MPI_DOUBLE, l, 0, MPI_COMM_WORLD, &req[0]);
		MPI_Irecv(&u[cells + 1], 1, MPI_DOUBLE, r, 1, MPI_COMM_WORLD,
			  &req[1]);
		MPI_Isend(&u[1], 1, MPI_DOUBLE, l, 1, MPI_COMM_WORLD, &req[2]);
		MPI_Isend(&u[cells], 1, MPI_DOUBLE, r, 0, MPI_COMM_WORLD,
			  &req[3]);
		MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
		res = 0;
		for (j = 1; j <= cells; j++) {
			v[j] = 0.5 * u[j] + 0.25 * (u[j - 1] + u[j + 1]);
			res += (v[j] - u[j]) * (v[j] - u[j]);
		}
		t = u;
		u = v;
		v = t;
		if (i % 10 == 9)
			MPI_Allreduce(&res, &all, 1, MPI_DOUBLE, MPI_SUM,
				      MPI_COMM_WORLD);
	}
	t1 = MPI_Wtime();
	if (rank == 0)
		printf("stencil: ranks %d iters %d cells %d time_ms %.1f residual %.6g\n",
		       size, iters, cells, (t1 - t0) * 1e3, all);
	free(u);
	free(v);
	MPI_Finalize();
	return 0;
}
