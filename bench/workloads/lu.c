// SPDX-License-Identifier: GPL-2.0
/*
 * lu: the communication pattern of NAS LU's SSOR sweeps, a pipelined
 * wavefront of many small messages.  A 3-D grid is cut into columns over
 * a 2-D grid of ranks (x and y; every rank holds all z planes).  A lower
 * Gauss-Seidel sweep walks the planes upward: for each plane a rank waits
 * for the edge of that plane from its west and north neighbours, updates
 * its block, and passes its own east and south edges on; an upper sweep
 * walks back the other way.  One reduction of the update norm ends each
 * iteration.  Every plane costs a few messages of one edge each, and
 * ranks downstream idle while the wavefront fills: about 16%.
 *
 * -s: the block side per rank in x and y (s x s, weak scaling) and the
 * number of planes.  -g XxYxZ: a global grid instead (the checksum test).
 *
 * Checksum: sum= the sum of the solution after the last iteration; each
 * value is computed in the same order for any decomposition, so sum
 * differs only by the rounding of the final reduction.
 */
#include "wl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* u = A (west + north + below) + B u + f: contracting, A * 3 + B < 1. */
#define A	0.25
#define B	0.15

struct lu {
	struct wl *w;
	int west, east, north, south;	/* MPI_PROC_NULL at the edges */
	long nx, ny, nz;		/* the block, without ghosts */
	long x0, y0;			/* its first global cell */
	long gx, gy;
	double *u, *f;
	double *edge;			/* a packed row in y */
	int comm;			/* 0 during calibration */
};

/* j (y) fastest; ghost cells at 0 and n + 1 in every direction. */
#define U(l, k, i, j)	((l)->u[((k) * ((l)->nx + 2) + (i)) * ((l)->ny + 2) + (j)])
#define F(l, k, i, j)	((l)->f[((k) * ((l)->nx + 2) + (i)) * ((l)->ny + 2) + (j)])

static void recv_edges(struct lu *l, long k, int from_x, int from_y,
		       long gi, long gj)
{
	struct wl *w = l->w;
	long i;

	if (!l->comm)
		return;
	/* A whole ghost row in x is contiguous; one in y is packed. */
	if (from_x != MPI_PROC_NULL)
		WL_MPI_CALL(w, MPI_Recv(&U(l, k, gi, 1), l->ny, MPI_DOUBLE, from_x,
					(int)k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	if (from_y != MPI_PROC_NULL) {
		WL_MPI_CALL(w, MPI_Recv(l->edge, l->nx, MPI_DOUBLE, from_y, (int)k,
					MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		for (i = 1; i <= l->nx; i++)
			U(l, k, i, gj) = l->edge[i - 1];
	}
}

static void send_edges(struct lu *l, long k, int to_x, int to_y, long ei,
		       long ej)
{
	struct wl *w = l->w;
	long i;

	if (!l->comm)
		return;
	if (to_x != MPI_PROC_NULL)
		WL_MPI_CALL(w, MPI_Send(&U(l, k, ei, 1), l->ny, MPI_DOUBLE, to_x,
					(int)k, MPI_COMM_WORLD));
	if (to_y != MPI_PROC_NULL) {
		for (i = 1; i <= l->nx; i++)
			l->edge[i - 1] = U(l, k, i, ej);
		WL_MPI_CALL(w, MPI_Send(l->edge, l->nx, MPI_DOUBLE, to_y, (int)k,
					MPI_COMM_WORLD));
	}
}

/* One SSOR-like iteration; returns the local sum of squared updates. */
static double iterate(struct lu *l)
{
	double d = 0, v;
	long i, j, k;

	for (k = 1; k <= l->nz; k++) {
		recv_edges(l, k, l->west, l->north, 0, 0);
		for (i = 1; i <= l->nx; i++)
			for (j = 1; j <= l->ny; j++) {
				v = A * (U(l, k, i - 1, j) + U(l, k, i, j - 1) +
					 U(l, k - 1, i, j)) + B * U(l, k, i, j) +
				    F(l, k, i, j);
				d += (v - U(l, k, i, j)) * (v - U(l, k, i, j));
				U(l, k, i, j) = v;
			}
		send_edges(l, k, l->east, l->south, l->nx, l->ny);
	}
	for (k = l->nz; k >= 1; k--) {
		recv_edges(l, k, l->east, l->south, l->nx + 1, l->ny + 1);
		for (i = l->nx; i >= 1; i--)
			for (j = l->ny; j >= 1; j--) {
				v = A * (U(l, k, i + 1, j) + U(l, k, i, j + 1) +
					 U(l, k + 1, i, j)) + B * U(l, k, i, j) +
				    F(l, k, i, j);
				d += (v - U(l, k, i, j)) * (v - U(l, k, i, j));
				U(l, k, i, j) = v;
			}
		send_edges(l, k, l->west, l->north, 1, 1);
	}
	return d;
}

static void step(void *arg)
{
	iterate(arg);
}

static size_t cells(struct lu *l)
{
	return (size_t)(l->nz + 2) * (l->nx + 2) * (l->ny + 2);
}

static void seed(struct lu *l)
{
	long i, j, k;

	memset(l->u, 0, cells(l) * sizeof(double));
	for (k = 1; k <= l->nz; k++)
		for (i = 1; i <= l->nx; i++)
			for (j = 1; j <= l->ny; j++) {
				uint64_t g = ((uint64_t)k * l->gx + l->x0 + i - 1) *
					     l->gy + l->y0 + j - 1;

				F(l, k, i, j) = (double)(wl_hash(g) >> 11) /
						(1ULL << 53) - 0.5;
			}
}

int main(int argc, char **argv)
{
	static const struct wl_spec spec = {
		.name = "lu",
		.usage = "  -s  block side per rank and planes (default 160): s x s x s\n"
			 "  -g  XxYxZ global grid instead\n",
	};
	int dims[2] = { 0, 0 }, periods[2] = { 0, 0 }, coords[2], me;
	double d = 0, sum = 0, total = 0;
	struct lu l = { 0 };
	long g[3], it, i, j, k;
	MPI_Comm cart;
	struct wl w;

	wl_init(&w, &argc, &argv, &spec);
	l.w = &w;
	WL_MPI_CHECK(&w, MPI_Dims_create(w.size, 2, dims));
	/* Keep the world's rank order: edges address MPI_COMM_WORLD. */
	WL_MPI_CHECK(&w, MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0,
					  &cart));
	WL_MPI_CHECK(&w, MPI_Comm_rank(cart, &me));
	if (me != w.rank)
		wl_die(&w, "cartesian rank %d differs from world rank", me);
	WL_MPI_CHECK(&w, MPI_Cart_coords(cart, me, 2, coords));
	WL_MPI_CHECK(&w, MPI_Cart_shift(cart, 0, 1, &l.west, &l.east));
	WL_MPI_CHECK(&w, MPI_Cart_shift(cart, 1, 1, &l.north, &l.south));
	if (w.grid) {
		if (wl_parse_grid(w.grid, g, 3))
			wl_die(&w, "-g %s: want XxYxZ", w.grid);
	} else {
		long s = w.size_arg ? w.size_arg : 160;

		g[0] = s * dims[0];
		g[1] = s * dims[1];
		g[2] = s;
	}
	l.gx = g[0];
	l.gy = g[1];
	l.nz = g[2];
	l.x0 = g[0] * coords[0] / dims[0];
	l.nx = g[0] * (coords[0] + 1) / dims[0] - l.x0;
	l.y0 = g[1] * coords[1] / dims[1];
	l.ny = g[1] * (coords[1] + 1) / dims[1] - l.y0;
	if (l.nx < 1 || l.ny < 1 || l.nz < 1)
		wl_die(&w, "grid %ldx%ldx%ld too small for %dx%d ranks", g[0],
		       g[1], g[2], dims[0], dims[1]);
	if (l.nz > 32767)
		wl_die(&w, "%ld planes: at most 32767 (planes are message tags)",
		       l.nz);
	l.u = calloc(cells(&l), sizeof(double));
	l.f = calloc(cells(&l), sizeof(double));
	l.edge = calloc(l.nx, sizeof(double));
	if (!l.u || !l.f || !l.edge)
		wl_die(&w, "out of memory for a %ldx%ldx%ld block", l.nx, l.ny,
		       l.nz);

	seed(&l);
	wl_calibrate(&w, step, &l, 0.16);
	seed(&l);
	l.comm = 1;
	wl_note(&w, "%ldx%ldx%ld grid, %dx%d ranks, %ld iterations", g[0], g[1],
		g[2], dims[0], dims[1], w.iters);

	wl_start(&w);
	for (it = 0; it < w.iters; it++) {
		double mine = iterate(&l);

		WL_MPI_CALL(&w, MPI_Allreduce(&mine, &d, 1, MPI_DOUBLE, MPI_SUM,
					      MPI_COMM_WORLD));
	}
	wl_stop(&w);

	for (k = 1; k <= l.nz; k++)
		for (i = 1; i <= l.nx; i++)
			for (j = 1; j <= l.ny; j++)
				sum += U(&l, k, i, j);
	WL_MPI_CHECK(&w, MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0,
				    MPI_COMM_WORLD));
	wl_report(&w, "grid=%ldx%ldx%ld procs=%dx%d delta=%.6e sum=%.12e",
		  g[0], g[1], g[2], dims[0], dims[1], d, total);
	MPI_Comm_free(&cart);
	free(l.u);
	free(l.f);
	free(l.edge);
	MPI_Finalize();
	return 0;
}
