// SPDX-License-Identifier: GPL-2.0
/*
 * replace - MPI_Sendrecv_replace as the standard has it, between ranks 0
 * and 1: from MPI_PROC_NULL the buffer stays, a short message writes
 * only what arrived (the status says how much), and derived types with
 * a negative lower bound, a negative stride or a negative extent write
 * exactly their elements: guard values fill the rest of the array and
 * must not change.  Rank 0 prints one line per case; exit 1 on a failure.
 *   mpiexec -n 2 replace
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define LEN 24
#define GUARD(i) (-1000 - (i))

static int rank, peer, fails;

static void expect(int cond, const char *what)
{
	if (cond)
		return;
	fails++;
	fprintf(stderr, "FAIL rank %d: replace: %s\n", rank, what);
}

/* a[] is guards, then the values v[0..n-1] at positions pos[]. */
static void fill(int *a, const int *pos, int n, int base)
{
	int i;

	for (i = 0; i < LEN; i++)
		a[i] = GUARD(i);
	for (i = 0; i < n; i++)
		a[pos[i]] = base + i;
}

/* Positions pos[0..got-1] hold base + i, every other one its guard. */
static int only(const int *a, const int *pos, int n, int got, int base)
{
	int want[LEN], i;

	for (i = 0; i < LEN; i++)
		want[i] = GUARD(i);
	for (i = 0; i < n && i < got; i++)
		want[pos[i]] = base + i;
	return !memcmp(a, want, sizeof(want));
}

static void proc_null(void)
{
	int buf[4] = { 11, 22, 33, 44 }, want[4] = { 11, 22, 33, 44 }, n;
	MPI_Status st;

	MPI_Sendrecv_replace(buf, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_PROC_NULL,
			     1, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, MPI_INT, &n);
	expect(!memcmp(buf, want, sizeof(buf)), "from MPI_PROC_NULL: buffer changed");
	expect(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG &&
	       n == 0, "from MPI_PROC_NULL: status");

	/* Rank 0 sends only, rank 1 receives only. */
	if (rank == 1)
		buf[0] = buf[1] = buf[2] = buf[3] = 0;
	MPI_Sendrecv_replace(buf, 4, MPI_INT, rank ? MPI_PROC_NULL : 1, 2,
			     rank ? 0 : MPI_PROC_NULL, 2, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
	expect(!memcmp(buf, want, sizeof(buf)), "one way: buffer");
	if (rank == 0)
		printf("replace: MPI_PROC_NULL: %d %d %d %d, source %s\n",
		       buf[0], buf[1], buf[2], buf[3],
		       st.MPI_SOURCE == MPI_PROC_NULL ? "MPI_PROC_NULL" : "?");
}

/* Two ints arrive for a receive of count: the rest stays. */
static void short_msg(MPI_Datatype type, int count, const int *pos,
		      const char *what)
{
	int a[LEN], two[2] = { 5, 6 }, n, ok = 1;
	MPI_Status st;

	if (rank == 0) {
		MPI_Send(two, 2, MPI_INT, 1, 3, MPI_COMM_WORLD);
	} else {
		fill(a, pos, count, 100);
		MPI_Sendrecv_replace(a + 8, count, type, MPI_PROC_NULL, 3, 0, 3,
				     MPI_COMM_WORLD, &st);
		MPI_Get_count(&st, MPI_INT, &n);
		/* a[pos] = 5, 6, then 100 + i: fill's values as received. */
		ok = a[pos[0]] == 5 && a[pos[1]] == 6 && n == 2 &&
		     st.MPI_SOURCE == 0 && st.MPI_TAG == 3;
		a[pos[0]] = 100;
		a[pos[1]] = 101;
		ok = ok && only(a, pos, count, count, 100);
		expect(ok, what);
	}
	MPI_Bcast(&ok, 1, MPI_INT, 1, MPI_COMM_WORLD);
	if (rank == 0)
		printf("replace: short message, %s: %s\n", what,
		       ok ? "ok" : "wrong");
}

/* Both ranks swap count of type: the ints at pos[0..npos-1] (a + 8 on). */
static void swap(MPI_Datatype type, int count, const int *pos, int npos,
		 const char *what, int ignore)
{
	int a[LEN], n = -1, ok;
	MPI_Status st;

	fill(a, pos, npos, 10 * (rank + 1));
	MPI_Sendrecv_replace(a + 8, count, type, peer, 4, peer, 4,
			     MPI_COMM_WORLD, ignore ? MPI_STATUS_IGNORE : &st);
	if (!ignore)
		MPI_Get_count(&st, type, &n);
	ok = only(a, pos, npos, npos, 10 * (peer + 1)) &&
	     (ignore || (n == count && st.MPI_SOURCE == peer &&
			 st.MPI_TAG == 4));
	expect(ok, what);
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (rank == 0)
		printf("replace: exchange, %s: %s\n", what, ok ? "ok" : "wrong");
}

int main(int argc, char **argv)
{
	static const int plain[] = { 8, 9, 10, 11 };
	static const int spaced[] = { 8, 11, 14 };	/* lb -8, extent 12 */
	static const int back[] = { 8, 5, 2 };		/* stride -12 bytes */
	MPI_Datatype neg_lb, neg_stride, neg_extent;
	int size, bad;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2) {
		if (rank == 0)
			printf("replace: needs 2 ranks\n");
		MPI_Finalize();
		return 2;
	}
	peer = 1 - rank;
	MPI_Type_create_resized(MPI_INT, -8, 12, &neg_lb);
	MPI_Type_commit(&neg_lb);
	MPI_Type_create_hvector(3, 1, -12, MPI_INT, &neg_stride);
	MPI_Type_commit(&neg_stride);
	MPI_Type_create_resized(MPI_INT, 0, -12, &neg_extent);
	MPI_Type_commit(&neg_extent);

	proc_null();
	short_msg(MPI_INT, 4, plain, "MPI_INT");
	short_msg(neg_lb, 3, spaced, "negative lower bound");
	swap(MPI_INT, 4, plain, 4, "MPI_INT", 0);
	swap(neg_lb, 3, spaced, 3, "negative lower bound", 0);
	swap(neg_lb, 3, spaced, 3, "negative lower bound, MPI_STATUS_IGNORE",
	     1);
	swap(neg_stride, 1, back, 3, "negative stride", 0);
	swap(neg_extent, 3, back, 3, "negative extent", 0);

	MPI_Type_free(&neg_lb);
	MPI_Type_free(&neg_stride);
	MPI_Type_free(&neg_extent);
	MPI_Allreduce(&fails, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("replace: %d failed checks\n", bad);
	MPI_Finalize();
	return bad != 0;
}
