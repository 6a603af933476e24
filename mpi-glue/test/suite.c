// SPDX-License-Identifier: GPL-2.0
/*
 * suite - every call the cosched MPI glue intercepts, on 2 or more ranks,
 * with integer data so that the results cannot depend on the algorithm
 * MPI picks.  Each rank checks its results ("FAIL ..." lines, exit 1)
 * and logs them; rank 0 prints every rank's log in rank order, so the
 * output of a run with the glue must equal the output without it.
 * Partners sleep before some sends, so that the waiting side really
 * waits (spins, then blocks or yields under cosched).
 *   mpiexec -n N suite [-d delay_us]
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rank, size, fails, no_errors;
static long delay_us = 20000;
static char logbuf[1 << 16];
static size_t loglen;

static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	loglen += (size_t)vsnprintf(logbuf + loglen, sizeof(logbuf) - loglen,
				    fmt, ap);
	va_end(ap);
	if (loglen >= sizeof(logbuf))
		loglen = sizeof(logbuf) - 1;
}

static void __attribute__((format(printf, 2, 3)))
expect(int cond, const char *fmt, ...)
{
	va_list ap;

	if (cond)
		return;
	fails++;
	fprintf(stderr, "FAIL rank %d: ", rank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Let the other side reach its wait first. */
static void nap(void)
{
	if (delay_us)
		usleep((useconds_t)delay_us);
}

static int errclass(int rc)
{
	int c;

	MPI_Error_class(rc, &c);
	return c;
}

static void status_line(const char *what, MPI_Status *st, MPI_Datatype t)
{
	int n;

	MPI_Get_count(st, t, &n);
	say("%s: source %d tag %d count %d\n", what, st->MPI_SOURCE,
	    st->MPI_TAG, n);
}

static void test_send_recv(void)
{
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	int out[64], in[64], i, rc;
	MPI_Status st;

	for (i = 0; i < 64; i++)
		out[i] = rank * 1000 + i;
	/* Even ranks send first after a nap, odd ones receive first. */
	if (rank % 2 == 0) {
		nap();
		MPI_Send(out, 64, MPI_INT, next, 7, MPI_COMM_WORLD);
		rc = MPI_Recv(in, 64, MPI_INT, prev, 7, MPI_COMM_WORLD, &st);
	} else {
		rc = MPI_Recv(in, 64, MPI_INT, prev, 7, MPI_COMM_WORLD, &st);
		MPI_Send(out, 64, MPI_INT, next, 7, MPI_COMM_WORLD);
	}
	expect(rc == MPI_SUCCESS && in[5] == prev * 1000 + 5, "send/recv");
	status_line("recv", &st, MPI_INT);

	/* Ssend: completes only once matched, after the receiver's nap. */
	if (rank == 0) {
		MPI_Ssend(out, 3, MPI_INT, 1, 8, MPI_COMM_WORLD);
		MPI_Recv(in, 64, MPI_INT, MPI_ANY_SOURCE, 9,
			 MPI_COMM_WORLD, &st);
		status_line("ssend reply", &st, MPI_INT);
	} else if (rank == 1) {
		nap();
		MPI_Recv(in, 3, MPI_INT, 0, 8, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		expect(in[2] == 2, "ssend data %d", in[2]);
		MPI_Ssend(in, 2, MPI_INT, 0, 9, MPI_COMM_WORLD);
	}

	/* Zero counts and MPI_PROC_NULL. */
	if (rank < 2) {
		if (rank == 0)
			nap();
		MPI_Send(out, 0, MPI_INT, 1 - rank, 10, MPI_COMM_WORLD);
		MPI_Recv(in, 64, MPI_INT, 1 - rank, 10, MPI_COMM_WORLD, &st);
		status_line("zero count", &st, MPI_INT);
	}
	MPI_Send(out, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
	rc = MPI_Recv(in, 4, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
	expect(rc == MPI_SUCCESS && st.MPI_SOURCE == MPI_PROC_NULL &&
	       st.MPI_TAG == MPI_ANY_TAG, "proc_null recv status");
	status_line("proc_null", &st, MPI_INT);
}

static void test_large(void)
{
	int n = 1 << 19, i, bad = 0;	/* 2 MiB: rendezvous, write space */
	int *buf = malloc(sizeof(int) * (size_t)n);

	if (!buf || size < 2)
		goto out;
	if (rank == 0) {
		for (i = 0; i < n; i++)
			buf[i] = i ^ 0x5a5a;
		MPI_Send(buf, n, MPI_INT, 1, 11, MPI_COMM_WORLD);
	} else if (rank == 1) {
		nap();
		MPI_Recv(buf, n, MPI_INT, 0, 11, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		for (i = 0; i < n; i++)
			bad += buf[i] != (i ^ 0x5a5a);
		expect(!bad, "large message: %d ints wrong", bad);
		say("large: %d ints, %d wrong\n", n, bad);
	}
out:
	free(buf);
}

static void test_sendrecv(void)
{
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	int v[6] = { rank, rank, rank, rank, rank, rank }, in = -1;
	MPI_Datatype every_other;
	MPI_Status st;
	int rc;

	if (rank == 0)
		nap();
	rc = MPI_Sendrecv(&rank, 1, MPI_INT, next, 20, &in, 1, MPI_INT, prev,
			  20, MPI_COMM_WORLD, &st);
	expect(rc == MPI_SUCCESS && in == prev, "sendrecv %d", in);
	status_line("sendrecv", &st, MPI_INT);
	/* A strided type: elements 0, 2, 4 replaced, 1, 3, 5 untouched. */
	MPI_Type_vector(3, 1, 2, MPI_INT, &every_other);
	MPI_Type_commit(&every_other);
	rc = MPI_Sendrecv_replace(v, 1, every_other, next, 21, prev, 21,
				  MPI_COMM_WORLD, &st);
	expect(rc == MPI_SUCCESS && v[0] == prev && v[1] == rank &&
	       v[4] == prev && v[5] == rank, "sendrecv_replace");
	say("sendrecv_replace: %d %d %d %d %d %d\n", v[0], v[1], v[2], v[3],
	    v[4], v[5]);
	status_line("sendrecv_replace", &st, every_other);
	MPI_Type_free(&every_other);
	rc = MPI_Sendrecv(&rank, 0, MPI_INT, MPI_PROC_NULL, 22, &in, 1,
			  MPI_INT, MPI_PROC_NULL, 22, MPI_COMM_WORLD, &st);
	status_line("sendrecv proc_null", &st, MPI_INT);
}

static void test_waits(void)
{
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	int out[4], in[4] = { -1, -1, -1, -1 }, i, idx, n, got = 0;
	int indices[4];
	MPI_Request r[4];
	MPI_Status st[4];

	for (i = 0; i < 4; i++)
		out[i] = rank * 10 + i;
	/* Wait: one receive, the sender late. */
	MPI_Irecv(&in[0], 1, MPI_INT, prev, 30, MPI_COMM_WORLD, &r[0]);
	nap();
	MPI_Isend(&out[0], 1, MPI_INT, next, 30, MPI_COMM_WORLD, &r[1]);
	MPI_Wait(&r[0], &st[0]);
	MPI_Wait(&r[1], MPI_STATUS_IGNORE);
	expect(in[0] == prev * 10 && r[0] == MPI_REQUEST_NULL, "wait");
	status_line("wait", &st[0], MPI_INT);
	/* Wait on MPI_REQUEST_NULL: an empty status at once. */
	MPI_Wait(&r[0], &st[0]);
	say("wait null: source %d tag %d\n", st[0].MPI_SOURCE, st[0].MPI_TAG);

	/* Waitall with a null request among them. */
	MPI_Irecv(&in[1], 1, MPI_INT, prev, 31, MPI_COMM_WORLD, &r[0]);
	MPI_Irecv(&in[2], 1, MPI_INT, prev, 32, MPI_COMM_WORLD, &r[1]);
	r[2] = MPI_REQUEST_NULL;
	if (rank == 0)
		nap();
	MPI_Isend(&out[1], 1, MPI_INT, next, 32, MPI_COMM_WORLD, &r[3]);
	MPI_Send(&out[2], 1, MPI_INT, next, 31, MPI_COMM_WORLD);
	MPI_Waitall(4, r, st);
	expect(in[1] == prev * 10 + 2 && in[2] == prev * 10 + 1, "waitall");
	status_line("waitall 0", &st[0], MPI_INT);
	status_line("waitall 1", &st[1], MPI_INT);
	MPI_Waitall(4, r, MPI_STATUSES_IGNORE);

	/* Waitany until MPI_UNDEFINED; the order may differ: sum it up. */
	for (i = 0; i < 3; i++)
		MPI_Irecv(&in[i], 1, MPI_INT, prev, 40 + i, MPI_COMM_WORLD,
			  &r[i]);
	nap();
	for (i = 2; i >= 0; i--)
		MPI_Send(&out[i], 1, MPI_INT, next, 40 + i, MPI_COMM_WORLD);
	for (;;) {
		MPI_Waitany(3, r, &idx, &st[0]);
		if (idx == MPI_UNDEFINED)
			break;
		got += st[0].MPI_TAG - 40 + 1;
		expect(in[idx] == prev * 10 + idx, "waitany %d", idx);
	}
	say("waitany: tags sum %d, then MPI_UNDEFINED\n", got);

	/* Waitsome until MPI_UNDEFINED. */
	for (i = 0; i < 4; i++)
		MPI_Irecv(&in[i], 1, MPI_INT, prev, 50 + i, MPI_COMM_WORLD,
			  &r[i]);
	nap();
	for (i = 0; i < 4; i++)
		MPI_Send(&out[i], 1, MPI_INT, next, 50 + i, MPI_COMM_WORLD);
	got = 0;
	for (;;) {
		MPI_Waitsome(4, r, &n, indices, st);
		if (n == MPI_UNDEFINED)
			break;
		expect(n >= 1, "waitsome outcount %d", n);
		for (i = 0; i < n; i++)
			got += in[indices[i]] - prev * 10 + 1;
	}
	expect(got == 10, "waitsome sum %d", got);
	say("waitsome: sum %d, then MPI_UNDEFINED\n", got);
}

static void test_probe(void)
{
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;
	int out[5] = { 1, 2, 3, 4, 5 }, in[5], n;
	MPI_Message msg;
	MPI_Status st;

	if (rank == 0)
		nap();
	MPI_Send(out, 5, MPI_INT, next, 60, MPI_COMM_WORLD);
	MPI_Probe(MPI_ANY_SOURCE, 60, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, MPI_INT, &n);
	expect(st.MPI_SOURCE == prev && n == 5, "probe");
	status_line("probe", &st, MPI_INT);
	MPI_Recv(in, n, MPI_INT, st.MPI_SOURCE, 60, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);

	if (rank == 0)
		nap();
	MPI_Send(out, 4, MPI_INT, next, 61, MPI_COMM_WORLD);
	MPI_Mprobe(prev, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st);
	status_line("mprobe", &st, MPI_INT);
	MPI_Mrecv(in, 5, MPI_INT, &msg, &st);
	expect(msg == MPI_MESSAGE_NULL && in[3] == 4, "mrecv");
	status_line("mrecv", &st, MPI_INT);

	MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
	status_line("probe proc_null", &st, MPI_INT);
	MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st);
	expect(msg == MPI_MESSAGE_NO_PROC, "mprobe proc_null");
	MPI_Mrecv(in, 5, MPI_INT, &msg, &st);
	status_line("mrecv no_proc", &st, MPI_INT);
}

/* With MPI_ERRORS_RETURN the codes come back, not an abort. */
static void test_errors(void)
{
	int big[8] = { 0 }, small[2], rc, c;
	MPI_Status st;

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	rc = MPI_Send(big, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
	c = errclass(rc);
	expect(c == MPI_ERR_RANK, "send to a bad rank: class %d", c);
	say("send bad rank: class is MPI_ERR_RANK %d\n", c == MPI_ERR_RANK);
	rc = MPI_Recv(small, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &st);
	say("recv on MPI_COMM_NULL: error %d\n", rc != MPI_SUCCESS);
	expect(rc != MPI_SUCCESS, "recv on MPI_COMM_NULL");
	if (rank < 2) {
		if (rank == 0) {
			nap();
			MPI_Send(big, 8, MPI_INT, 1, 70, MPI_COMM_WORLD);
		} else {
			rc = MPI_Recv(small, 2, MPI_INT, 0, 70,
				      MPI_COMM_WORLD, &st);
			c = errclass(rc);
			expect(c == MPI_ERR_TRUNCATE, "truncate: class %d", c);
			say("recv truncated: class is MPI_ERR_TRUNCATE %d\n",
			    c == MPI_ERR_TRUNCATE);
		}
	}
	rc = MPI_Bcast(big, 1, MPI_INT, size + 3, MPI_COMM_WORLD);
	expect(rc != MPI_SUCCESS, "bcast from a bad root");
	say("bcast bad root: error %d\n", rc != MPI_SUCCESS);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_collectives(void)
{
	int *a = calloc((size_t)size * 4, sizeof(int));
	int *b = calloc((size_t)size * 4, sizeof(int));
	int *cnt = calloc((size_t)size, sizeof(int));
	int *dis = calloc((size_t)size, sizeof(int));
	int v, i, sum, x[4];

	if (!a || !b || !cnt || !dis)
		MPI_Abort(MPI_COMM_WORLD, 3);
	if (rank == size - 1)
		nap();
	MPI_Barrier(MPI_COMM_WORLD);

	v = rank == 0 ? 4242 : 0;
	if (rank == 0)
		nap();
	MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
	expect(v == 4242, "bcast %d", v);
	say("bcast: %d\n", v);
	MPI_Bcast(&v, 0, MPI_INT, 0, MPI_COMM_WORLD);

	v = rank + 1;
	if (rank == size - 1)
		nap();
	MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, size - 1, MPI_COMM_WORLD);
	if (rank == size - 1) {
		expect(sum == size * (size + 1) / 2, "reduce %d", sum);
		say("reduce: %d\n", sum);
	}
	MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	expect(sum == size, "allreduce max %d", sum);
	x[0] = rank;
	x[1] = -rank;
	MPI_Allreduce(MPI_IN_PLACE, x, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	say("allreduce: max %d in-place sums %d %d\n", sum, x[0], x[1]);

	x[0] = rank * 3;
	MPI_Gather(x, 1, MPI_INT, a, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		for (i = 0, sum = 0; i < size; i++)
			sum += a[i];
		say("gather: sum %d last %d\n", sum, a[size - 1]);
	}
	for (i = 0; i < size; i++) {
		cnt[i] = i % 3;
		dis[i] = i * 3;
	}
	x[0] = x[1] = rank + 100;
	MPI_Gatherv(x, rank % 3, MPI_INT, a, cnt, dis, MPI_INT, 0,
		    MPI_COMM_WORLD);
	if (rank == 0 && size > 2)
		say("gatherv: %d %d %d\n", a[3], a[6], a[7]);

	for (i = 0; i < size * 4; i++)
		a[i] = i * 7;
	MPI_Scatter(a, 2, MPI_INT, x, 2, MPI_INT, 0, MPI_COMM_WORLD);
	expect(x[1] == (rank * 2 + 1) * 7, "scatter");
	say("scatter: %d %d\n", x[0], x[1]);
	x[0] = x[1] = -1;
	MPI_Scatterv(a, cnt, dis, MPI_INT, x, rank % 3, MPI_INT, 0,
		     MPI_COMM_WORLD);
	say("scatterv: %d %d\n", x[0], x[1]);

	v = rank * rank;
	MPI_Allgather(&v, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
	expect(b[size - 1] == (size - 1) * (size - 1), "allgather");
	say("allgather: last %d\n", b[size - 1]);
	x[0] = x[1] = rank;
	MPI_Allgatherv(x, rank % 3, MPI_INT, b, cnt, dis, MPI_INT,
		       MPI_COMM_WORLD);
	if (size > 2)
		say("allgatherv: %d %d %d\n", b[3], b[6], b[7]);

	for (i = 0; i < size; i++)
		a[i] = rank * 100 + i;
	MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
	for (i = 0, sum = 0; i < size; i++) {
		expect(b[i] == i * 100 + rank, "alltoall");
		sum += b[i];
	}
	say("alltoall: sum %d\n", sum);
	for (i = 0; i < size; i++) {
		cnt[i] = 1;
		dis[i] = size - 1 - i;
	}
	MPI_Alltoallv(a, cnt, dis, MPI_INT, b, cnt, dis, MPI_INT,
		      MPI_COMM_WORLD);
	say("alltoallv: %d\n", b[0]);

	for (i = 0; i < size; i++) {
		a[i] = rank + i;
		cnt[i] = 1;
	}
	MPI_Reduce_scatter(a, &v, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	say("reduce_scatter: %d\n", v);
	MPI_Reduce_scatter_block(a, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	say("reduce_scatter_block: %d\n", v);

	v = rank + 1;
	MPI_Scan(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	expect(sum == (rank + 1) * (rank + 2) / 2, "scan %d", sum);
	say("scan: %d\n", sum);
	sum = -7;
	MPI_Exscan(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank)
		say("exscan: %d\n", sum);
	/* Zero counts. */
	MPI_Allreduce(&v, &sum, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	MPI_Alltoall(a, 0, MPI_INT, b, 0, MPI_INT, MPI_COMM_WORLD);
	free(a);
	free(b);
	free(cnt);
	free(dis);
}

/* Rank 0 prints every rank's log, in rank order. */
static void print_logs(void)
{
	int i, n;
	char *buf;

	if (rank) {
		MPI_Send(logbuf, (int)loglen, MPI_CHAR, 0, 99, MPI_COMM_WORLD);
		return;
	}
	printf("== rank 0\n%s", logbuf);
	buf = malloc(sizeof(logbuf));
	for (i = 1; buf && i < size; i++) {
		MPI_Status st;

		MPI_Recv(buf, sizeof(logbuf), MPI_CHAR, i, 99, MPI_COMM_WORLD,
			 &st);
		MPI_Get_count(&st, MPI_CHAR, &n);
		printf("== rank %d\n%.*s", i, n, buf);
	}
	free(buf);
}

int main(int argc, char **argv)
{
	int opt, all;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "d:E")) != -1)
		if (opt == 'd')
			delay_us = atol(optarg);
		else if (opt == 'E')
			no_errors = 1;
	if (size < 2) {
		fprintf(stderr, "suite: needs 2 or more ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	test_send_recv();
	test_large();
	test_sendrecv();
	test_waits();
	test_probe();
	if (!no_errors)
		test_errors();
	test_collectives();
	print_logs();
	MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("suite: %d ranks, %d failed checks\n", size, all);
	MPI_Finalize();
	return all ? 1 : 0;
}
