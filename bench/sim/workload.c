// SPDX-License-Identifier: GPL-2.0
/*
 * The bench's workloads (bench/workloads/, Documentation/workloads.rst) as
 * streams of operations per rank: compute for a grain, send, receive.
 * An iteration is a template with symbolic peers (north, up, the k-th
 * round of a collective...) that job_op() resolves for one rank, so a
 * job of 1,024 ranks costs one template, not 1,024 copies.
 *
 * Grains come from the standalone measurements in params.conf: the
 * compute of one iteration is the measured time per iteration times
 * (1 - measured communication share), spread over the iteration's
 * compute steps in proportion to the cells each step touches.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

enum peer {
	P_NONE = -1,
	P_NORTH, P_SOUTH, P_EAST, P_WEST,	/* life: periodic 2-D grid */
	P_UP, P_DOWN,				/* mg: ring of slabs */
	P_XM, P_XP, P_YM, P_YP,			/* lu: non-periodic 2-D grid */
	P_LATE,					/* barrier: compute on the late rank */
	P_FWD = 100,				/* + k: dissemination send */
	P_BACK = 200,				/* + k: dissemination receive */
};

struct tbuf {
	struct tmpl_op *v;
	int n, cap;
};

static void put(struct tbuf *b, int kind, int peer, int bytes, sim_ns ns)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->v = realloc(b->v, b->cap * sizeof(*b->v));
		if (!b->v)
			abort();
	}
	b->v[b->n++] = (struct tmpl_op){ .kind = kind, .peer = peer,
					 .bytes = bytes, .ns = ns };
}

static void sendrecv(struct tbuf *b, int to, int from, int bytes)
{
	put(b, OP_SEND, to, bytes, 0);
	put(b, OP_RECV, from, 0, 0);
}

/*
 * Barrier and allreduce as dissemination: ceil(log2 n) rounds, round k
 * sends to rank + 2^k and receives from rank - 2^k.  Open MPI's tuned
 * collectives pick other algorithms by size; the round count (what makes
 * a collective sensitive to one late rank) is the same order.
 */
static void collective(struct tbuf *b, int ranks, int bytes)
{
	int k;

	for (k = 0; (1 << k) < ranks; k++)
		sendrecv(b, P_FWD + k, P_BACK + k, bytes);
}

/* MPI_Dims_create for two dimensions: the most square split, big first. */
static void dims2(int n, int d[2])
{
	int a = (int)sqrt((double)n);

	while (a > 1 && n % a)
		a--;
	d[0] = n / a;
	d[1] = a;
}

/*
 * The measured time of a compute step includes the vCPU stalls and the
 * background load of the run that measured it; the model adds both
 * itself, so the grain is what is left without them.
 */
static double stall_free;

static sim_ns iter_compute(double s, double iters, double comm)
{
	return (sim_ns)(s * (1 - comm) / iters * 1e9 * stall_free);
}

static void build_life(struct job *j, struct tbuf *it, const struct params *p)
{
	double side = j->spec.hi ? p->life_hi_side : p->life_lo_side;
	/* lo's generations cost its cells over hi's (same code, bigger block) */
	double scale = side * side / (p->life_hi_side * p->life_hi_side);
	sim_ns c = (sim_ns)(iter_compute(p->life_hi_s, p->life_hi_iters,
					 p->life_hi_comm) * scale);

	dims2(j->ranks, j->dims);
	if (j->dims[0] > 1) {
		sendrecv(it, P_SOUTH, P_NORTH, (int)side);
		sendrecv(it, P_NORTH, P_SOUTH, (int)side);
	}
	if (j->dims[1] > 1) {
		sendrecv(it, P_EAST, P_WEST, (int)side + 2);
		sendrecv(it, P_WEST, P_EAST, (int)side + 2);
	}
	put(it, OP_COMPUTE, P_NONE, 0, c);
	collective(it, j->ranks, 0);
}

/* One V-cycle: NU=2 sweeps, residual, down; 4 sweeps coarse; up, 2 sweeps. */
static void build_mg(struct job *j, struct tbuf *it, const struct params *p)
{
	int n[8], nlev = 0, k, s;
	double cells = 0, unit;

	for (n[0] = (int)p->mg_side; nlev < 8; nlev++) {
		if (nlev && (n[nlev - 1] % 2 || n[nlev - 1] < 8))
			break;
		if (nlev)
			n[nlev] = n[nlev - 1] / 2;
	}
	for (k = 0; k < nlev; k++)
		cells += (k == nlev - 1 ? 4.0 : 5.0) * n[k] * n[k] * n[k];
	unit = iter_compute(p->mg_s, p->mg_iters, p->mg_comm) / cells;
	j->dims[0] = j->ranks;
	for (k = 0; k < nlev; k++) {
		int face = n[k] * n[k] * 8, sweeps = k == nlev - 1 ? 4 : 3;
		sim_ns c = (sim_ns)(unit * n[k] * n[k] * n[k]);

		for (s = 0; s < sweeps; s++) {
			if (j->ranks > 1) {
				sendrecv(it, P_UP, P_DOWN, face);
				sendrecv(it, P_DOWN, P_UP, face);
			}
			put(it, OP_COMPUTE, P_NONE, 0, c);
		}
	}
	for (k = nlev - 2; k >= 0; k--) {
		int face = n[k] * n[k] * 8;
		sim_ns c = (sim_ns)(unit * n[k] * n[k] * n[k]);

		for (s = 0; s < 2; s++) {
			if (j->ranks > 1) {
				sendrecv(it, P_UP, P_DOWN, face);
				sendrecv(it, P_DOWN, P_UP, face);
			}
			put(it, OP_COMPUTE, P_NONE, 0, c);
		}
	}
	collective(it, j->ranks, 8);
}

/* SSOR wavefront: per plane receive west/north, compute, send east/south. */
static void build_lu(struct job *j, struct tbuf *it, const struct params *p)
{
	int planes = (int)p->lu_side, k, bytes = (int)p->lu_side * 8;
	sim_ns c = iter_compute(p->lu_s, p->lu_iters, p->lu_comm) / (2 * planes);

	dims2(j->ranks, j->dims);
	for (k = 0; k < planes; k++) {
		put(it, OP_RECV, P_XM, 0, 0);
		put(it, OP_RECV, P_YM, 0, 0);
		put(it, OP_COMPUTE, P_NONE, 0, c);
		put(it, OP_SEND, P_XP, bytes, 0);
		put(it, OP_SEND, P_YP, bytes, 0);
	}
	for (k = 0; k < planes; k++) {
		put(it, OP_RECV, P_XP, 0, 0);
		put(it, OP_RECV, P_YP, 0, 0);
		put(it, OP_COMPUTE, P_NONE, 0, c);
		put(it, OP_SEND, P_XM, bytes, 0);
		put(it, OP_SEND, P_YM, bytes, 0);
	}
	collective(it, j->ranks, 8);
}

int job_build(struct job *j, const struct jobspec *s, int ranks,
	      double seconds, long iters, const struct params *p)
{
	struct tbuf it = { 0 }, tail = { 0 };
	double per_iter = 1;

	memset(j, 0, sizeof(*j));
	stall_free = (1 - p->stall_per_s * p->stall_us * 1e-6) *
		     (1 - p->background_pct / 100);
	j->spec = *s;
	j->ranks = ranks;
	j->finish = -1;
	switch (s->kind) {
	case WL_LIFE:
		build_life(j, &it, p);
		per_iter = p->life_hi_s / p->life_hi_iters;
		if (!s->hi)	/* -t sizes lo to the same time as hi */
			per_iter *= p->life_lo_side * p->life_lo_side /
				    (p->life_hi_side * p->life_hi_side);
		break;
	case WL_MG:
		build_mg(j, &it, p);
		per_iter = p->mg_s / p->mg_iters;
		break;
	case WL_LU:
		build_lu(j, &it, p);
		per_iter = p->lu_s / p->lu_iters;
		break;
	case WL_EP:
		put(&it, OP_COMPUTE, P_NONE, 0,
		    iter_compute(p->ep_s, p->ep_iters, p->ep_comm));
		collective(&tail, ranks, 8);
		per_iter = p->ep_s / p->ep_iters;
		break;
	case WL_BARRIER:
		put(&it, OP_COMPUTE, P_LATE, 0, US(s->delay_us));
		collective(&it, ranks, 0);
		j->iters = 2L * s->nbar;
		break;
	case WL_GRAIN:	/* -c is pure computation, timed alone: no stalls */
		put(&it, OP_COMPUTE, P_NONE, 0, US(s->grain_us));
		if (ranks > 1)
			sendrecv(&it, P_UP, P_DOWN, 8);
		per_iter = s->grain_us * 1e-6;
		break;
	case WL_HOG:
		put(&it, OP_COMPUTE, P_NONE, 0, MS(1000));
		j->iters = 1L << 40;
		j->competitor = 1;
		break;
	case WL_BG:	/* bursts, then sleeps of mean burst (1 - f) / f */
		put(&it, OP_COMPUTE, P_NONE, 0, US(p->background_burst_us));
		put(&it, OP_SLEEP, P_NONE, 0,
		    US(p->background_burst_us * (100 - p->background_pct) /
		       p->background_pct));
		j->iters = 1L << 40;
		j->competitor = 1;
		break;
	}
	if (!j->iters && iters > 0)
		j->iters = iters;
	if (!j->iters) {
		j->iters = lround(seconds / per_iter);
		if (j->iters < 1)
			j->iters = 1;
	}
	j->iter_ops = it.v;
	j->n_iter_ops = it.n;
	j->tail_ops = tail.v;
	j->n_tail_ops = tail.n;
	return 0;
}

void job_free(struct job *j)
{
	free(j->iter_ops);
	free(j->tail_ops);
	j->iter_ops = j->tail_ops = NULL;
}

long job_len(const struct job *j)
{
	return j->iters * j->n_iter_ops + j->n_tail_ops;
}

static int grid(const struct job *j, int rank, int d0, int d1, int periodic)
{
	int r0 = rank / j->dims[1] + d0, r1 = rank % j->dims[1] + d1;

	if (periodic) {
		r0 = (r0 + j->dims[0]) % j->dims[0];
		r1 = (r1 + j->dims[1]) % j->dims[1];
	} else if (r0 < 0 || r0 >= j->dims[0] || r1 < 0 || r1 >= j->dims[1]) {
		return -1;
	}
	return r0 * j->dims[1] + r1;
}

static int resolve(const struct job *j, int rank, int peer)
{
	int n = j->ranks;

	if (peer >= P_BACK)
		return ((rank - (1 << (peer - P_BACK))) % n + n) % n;
	if (peer >= P_FWD)
		return (rank + (1 << (peer - P_FWD))) % n;
	switch (peer) {
	case P_NORTH:
		return grid(j, rank, -1, 0, 1);
	case P_SOUTH:
		return grid(j, rank, 1, 0, 1);
	case P_WEST:
		return grid(j, rank, 0, -1, 1);
	case P_EAST:
		return grid(j, rank, 0, 1, 1);
	case P_UP:
		return (rank + 1) % n;
	case P_DOWN:
		return (rank + n - 1) % n;
	case P_XM:
		return grid(j, rank, -1, 0, 0);
	case P_XP:
		return grid(j, rank, 1, 0, 0);
	case P_YM:
		return grid(j, rank, 0, -1, 0);
	case P_YP:
		return grid(j, rank, 0, 1, 0);
	}
	return -1;
}

void job_op(const struct job *j, int rank, long pc, struct op *op)
{
	const struct tmpl_op *t;
	long it_len = j->iters * j->n_iter_ops;

	memset(op, 0, sizeof(*op));
	if (pc < it_len) {
		long i = pc / j->n_iter_ops;

		t = &j->iter_ops[pc % j->n_iter_ops];
		if (t->peer == P_LATE) {	/* barrier: second half, last rank */
			op->kind = (i >= j->iters / 2 && rank == j->ranks - 1) ?
				   OP_COMPUTE : OP_NOP;
			op->ns = t->ns;
			return;
		}
	} else if (pc - it_len < j->n_tail_ops) {
		t = &j->tail_ops[pc - it_len];
	} else {
		op->kind = OP_END;
		return;
	}
	op->kind = t->kind;
	op->ns = t->ns;
	op->bytes = t->bytes;
	if (t->peer != P_NONE) {
		op->peer = resolve(j, rank, t->peer);
		if (op->peer < 0 || op->peer == rank)
			op->kind = OP_NOP;
	}
}
