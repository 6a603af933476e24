// SPDX-License-Identifier: GPL-2.0
/*
 * newcalls - the calls the glue intercepts since its table (calls.def):
 * MPI_Bsend, MPI_Rsend, MPI_Alltoallw, the neighbourhood collectives on
 * a periodic ring, MPI_Win_wait, and calls left to MPI but counted
 * (non-blocking collectives, MPI_Improbe/Imrecv, MPI_Request_get_status,
 * fences, passive-target locks),
 * and the large-count _c forms where the MPI has them (MPI 4), with
 * integer checks.  Run on 3 ranks or more (with 2, a ring's left and
 * right neighbour are one rank, and MPICH 4.0.2's Neighbor_alltoallv
 * pairs the two messages the other way round); rank 0 prints one line; exit
 * 1 on a wrong result.  Under the glue with COSCHED_MPI_VERBOSE=1 each
 * rank's "calls" line shows what was intercepted.
 *   mpiexec -n N newcalls
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXRANKS 64

static int fails;

static void expect(int cond, const char *what)
{
	if (!cond && fails++ < 10)
		fprintf(stderr, "FAIL newcalls: %s\n", what);
}

static void p2p(int r, int n)
{
	int v, got = -1, size = 0;
	char *bsend;
	MPI_Status st;

	MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &size);
	size += MPI_BSEND_OVERHEAD;
	bsend = malloc((size_t)size);
	MPI_Buffer_attach(bsend, size);
	v = 300 + r;
	MPI_Bsend(&v, 1, MPI_INT, (r + 1) % n, 1, MPI_COMM_WORLD);
	MPI_Recv(&got, 1, MPI_INT, (r + n - 1) % n, 1, MPI_COMM_WORLD, &st);
	expect(got == 300 + (r + n - 1) % n, "bsend");
	MPI_Buffer_detach(&bsend, &size);
	free(bsend);

	/* Rsend: the receive is posted before the barrier that lets it go. */
	{
		MPI_Request req;

		got = -1;
		MPI_Irecv(&got, 1, MPI_INT, (r + n - 1) % n, 2, MPI_COMM_WORLD,
			  &req);
		MPI_Barrier(MPI_COMM_WORLD);
		v = 400 + r;
		MPI_Rsend(&v, 1, MPI_INT, (r + 1) % n, 2, MPI_COMM_WORLD);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
		expect(got == 400 + (r + n - 1) % n, "rsend");
	}
}

static void coll(int r, int n)
{
	int s[MAXRANKS] = { 0 }, g[MAXRANKS], cnt[MAXRANKS] = { 0 };
	int dsp[MAXRANKS] = { 0 }, k;
	int nb[2], nbv[2], c2[2] = { 1, 1 }, d2[2] = { 0, 1 };
	int dims[1] = { 0 }, periods[1] = { 1 };
	MPI_Aint adsp[2] = { 0, sizeof(int) };
	MPI_Datatype types[MAXRANKS] = { MPI_INT, MPI_INT };
	MPI_Comm ring;

	for (k = 0; k < n; k++) {
		s[k] = 100 * r + k;
		cnt[k] = 1;
		dsp[k] = k * (int)sizeof(int);
		types[k] = MPI_INT;
		g[k] = -1;
	}
	MPI_Alltoallw(s, cnt, dsp, types, g, cnt, dsp, types, MPI_COMM_WORLD);
	for (k = 0; k < n; k++)
		expect(g[k] == 100 * k + r, "alltoallw");

	/* A periodic ring: neighbours are left then right. */
	dims[0] = n;
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
	int left = (r + n - 1) % n, right = (r + 1) % n;

	k = 500 + r;
	MPI_Neighbor_allgather(&k, 1, MPI_INT, nb, 1, MPI_INT, ring);
	expect(nb[0] == 500 + left && nb[1] == 500 + right,
	       "neighbor_allgather");
	MPI_Neighbor_allgatherv(&k, 1, MPI_INT, nbv, c2, d2, MPI_INT, ring);
	expect(nbv[0] == 500 + left && nbv[1] == 500 + right,
	       "neighbor_allgatherv");
	s[0] = 600 + r;		/* to the left */
	s[1] = 700 + r;		/* to the right */
	MPI_Neighbor_alltoall(s, 1, MPI_INT, nb, 1, MPI_INT, ring);
	expect(nb[0] == 700 + left && nb[1] == 600 + right,
	       "neighbor_alltoall");
	MPI_Neighbor_alltoallv(s, c2, d2, MPI_INT, nbv, c2, d2, MPI_INT, ring);
	expect(nbv[0] == 700 + left && nbv[1] == 600 + right,
	       "neighbor_alltoallv");
	nb[0] = nb[1] = -1;
	MPI_Neighbor_alltoallw(s, c2, adsp, types, nb, c2, adsp, types, ring);
	expect(nb[0] == 700 + left && nb[1] == 600 + right,
	       "neighbor_alltoallw");
	MPI_Comm_free(&ring);
}

/*
 * Calls the glue leaves to MPI (prog): non-blocking collectives, a
 * matched probe and receive, and a request's status read without
 * freeing it.
 */
static void nonblocking(int r, int n)
{
	int v = r + 1, sum = 0, got = -1, flag = 0, left = (r + n - 1) % n;
	MPI_Request req, sreq;
	MPI_Message msg;
	MPI_Status st;

	MPI_Ibarrier(MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	expect(sum == n * (n + 1) / 2, "iallreduce");

	v = 800 + r;
	MPI_Isend(&v, 1, MPI_INT, (r + 1) % n, 4, MPI_COMM_WORLD, &sreq);
	while (!flag)
		MPI_Improbe(left, 4, MPI_COMM_WORLD, &flag, &msg, &st);
	MPI_Imrecv(&got, 1, MPI_INT, &msg, &req);
	for (flag = 0; !flag;)
		MPI_Request_get_status(req, &flag, &st);
	expect(req != MPI_REQUEST_NULL && st.MPI_SOURCE == left,
	       "request_get_status");
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Wait(&sreq, MPI_STATUS_IGNORE);
	expect(got == 800 + left, "improbe/imrecv");
}

/*
 * Rank 0 exposes its window to the others, which each put their rank.
 * Open MPI 4.1 over the tcp BTL alone has no one-sided component: no
 * window, and 0 returned.
 */
static int rma(int r, int n)
{
	int mem[MAXRANKS + 1] = { 0 }, k, ok = 1, rc;	/* [MAXRANKS]: locks' */
	MPI_Group world, peers;
	MPI_Win win;
	int zero = 0;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rc = MPI_Win_create(mem, sizeof(mem), sizeof(int), MPI_INFO_NULL,
			    MPI_COMM_WORLD, &win);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (rc != MPI_SUCCESS)
		return 0;
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	if (r == 0) {
		int others[MAXRANKS];

		for (k = 1; k < n; k++)
			others[k - 1] = k;
		MPI_Group_incl(world, n - 1, others, &peers);
		MPI_Win_post(peers, 0, win);
		MPI_Win_wait(win);
		for (k = 1; k < n; k++)
			ok &= mem[k] == 1000 + k;
		expect(ok, "win_wait");
	} else {
		MPI_Group_incl(world, 1, &zero, &peers);
		MPI_Win_start(peers, 0, win);
		k = 1000 + r;
		MPI_Put(&k, 1, MPI_INT, 0, r, 1, MPI_INT, win);
		MPI_Win_complete(win);
	}
	MPI_Group_free(&peers);
	MPI_Group_free(&world);

	MPI_Win_fence(0, win);
	k = 2000 + r;
	MPI_Put(&k, 1, MPI_INT, (r + 1) % n, 0, 1, MPI_INT, win);
	MPI_Win_fence(0, win);
	expect(mem[0] == 2000 + (r + n - 1) % n, "win_fence");

	/* Passive target: each rank adds its rank to rank 0's last slot. */
	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
	k = r;
	MPI_Accumulate(&k, 1, MPI_INT, 0, MAXRANKS, 1, MPI_INT, MPI_SUM, win);
	MPI_Win_flush(0, win);
	MPI_Win_unlock(0, win);
	MPI_Win_lock_all(0, win);
	MPI_Win_sync(win);
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	if (r == 0) {
		MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
		expect(mem[MAXRANKS] == n * (n - 1) / 2, "win_lock");
		MPI_Win_unlock(0, win);
	}
	MPI_Win_free(&win);
	return 1;
}

static void large(int r, int n)
{
#if MPI_VERSION >= 4
	int v = r + 1, sum = 0, got = -1;
	MPI_Request q[3];

	MPI_Allreduce_c(&v, &sum, (MPI_Count)1, MPI_INT, MPI_SUM,
			MPI_COMM_WORLD);
	expect(sum == n * (n + 1) / 2, "allreduce_c");
	MPI_Send_c(&v, (MPI_Count)1, MPI_INT, (r + 1) % n, 3, MPI_COMM_WORLD);
	MPI_Recv_c(&got, (MPI_Count)1, MPI_INT, (r + n - 1) % n, 3,
		   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	expect(got == (r + n - 1) % n + 1, "send_c/recv_c");

	/* The prog lines' large-count forms: started, then waited for. */
	got = -1;
	sum = 0;
	MPI_Irecv_c(&got, (MPI_Count)1, MPI_INT, (r + n - 1) % n, 4,
		    MPI_COMM_WORLD, &q[0]);
	MPI_Isend_c(&v, (MPI_Count)1, MPI_INT, (r + 1) % n, 4,
		    MPI_COMM_WORLD, &q[1]);
	MPI_Iallreduce_c(&v, &sum, (MPI_Count)1, MPI_INT, MPI_MAX,
			 MPI_COMM_WORLD, &q[2]);
	MPI_Waitall(3, q, MPI_STATUSES_IGNORE);
	expect(got == (r + n - 1) % n + 1, "isend_c/irecv_c");
	expect(sum == n, "iallreduce_c");
#else
	(void)r;
	(void)n;
#endif
}

int main(int argc, char **argv)
{
	int r, n, total = 0, win;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (n < 3 || n > MAXRANKS) {
		if (!r)
			fprintf(stderr, "newcalls: 3 to %d ranks\n", MAXRANKS);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	p2p(r, n);
	coll(r, n);
	nonblocking(r, n);
	win = rma(r, n);
	large(r, n);
	MPI_Reduce(&fails, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (!r)
		printf("newcalls: %d ranks, windows %s, large-count %s, %d failed checks\n",
		       n, win ? "yes" : "no", MPI_VERSION >= 4 ? "yes" : "no",
		       total);
	MPI_Finalize();
	return total ? 1 : 0;
}
