// SPDX-License-Identifier: GPL-2.0
/*
 * life: Conway's game of life on a torus split in 2-D blocks across the
 * ranks, the thesis's LIFE.  Every generation each rank swaps its edge
 * rows with its north and south neighbours, then its edge columns (ghost
 * corners included, so diagonal neighbours arrive in two hops) with east
 * and west, computes its block, and joins a barrier: bulk-synchronous,
 * distinct communication and computation phases.
 *
 * The grain is the block size: a large block has much computation per
 * exchange (variant lo, about 3.5% communication), a small one little
 * (hi, about 12%); -t then picks the generations, so both take about the
 * same time.  -s sets the block side per rank (weak scaling), -g a global
 * grid instead (the checksum test compares decompositions with it).
 *
 * Checksum: live= the live cells after the last generation, the same for
 * any number of ranks.
 */
#include "wl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Block side per rank, and the communication share each is sized for. */
static const char *const variants[] = { "lo", "hi", NULL };
static const long side[] = { 1500, 600 };
static const double share[] = { 0.035, 0.12 };

struct life {
	struct wl *w;
	MPI_Comm cart;
	MPI_Datatype col;
	int me, north, south, west, east;
	long rows, cols;	/* the block, without the ghost frame */
	long stride;		/* cols + 2 */
	long grow, gcol;	/* global grid */
	long row0, col0;	/* the block's first global cell */
	uint8_t *cur, *next;
};

#define AT(l, g, i, j)	((g)[(i) * (l)->stride + (j)])

/* Block distribution of n cells over p parts, the remainder spread. */
static void split(long n, int p, int i, long *first, long *len)
{
	*first = n * i / p;
	*len = n * (i + 1) / p - *first;
}

static void seed(struct life *l)
{
	long i, j;

	memset(l->cur, 0, (l->rows + 2) * l->stride);
	for (i = 0; i < l->rows; i++)
		for (j = 0; j < l->cols; j++) {
			uint64_t g = (uint64_t)(l->row0 + i) * l->gcol + l->col0 + j;

			AT(l, l->cur, i + 1, j + 1) = wl_hash(g) % 100 < 30;
		}
}

static void generation(struct life *l)
{
	long i, j;
	uint8_t *t;

	for (i = 1; i <= l->rows; i++) {
		const uint8_t *up = &AT(l, l->cur, i - 1, 0);
		const uint8_t *mid = &AT(l, l->cur, i, 0);
		const uint8_t *dn = &AT(l, l->cur, i + 1, 0);
		uint8_t *out = &AT(l, l->next, i, 0);

		for (j = 1; j <= l->cols; j++) {
			int n = up[j - 1] + up[j] + up[j + 1] + mid[j - 1] +
				mid[j + 1] + dn[j - 1] + dn[j] + dn[j + 1];

			/* Born with 3, kept with 2 or 3; no branch to mispredict. */
			out[j] = (n | mid[j]) == 3;
		}
	}
	t = l->cur;
	l->cur = l->next;
	l->next = t;
}

/* The calibration's unit of work: one generation, no exchange. */
static void step(void *arg)
{
	generation(arg);
}

/*
 * A dimension with one rank wraps onto the rank itself: copy, as an MPI
 * would, without asking it to (some transports, UCX with only tcp among
 * them, have no path from a rank to itself).
 */
static void wrap_rows(struct life *l)
{
	long s = l->stride;

	memcpy(l->cur + 1, l->cur + l->rows * s + 1, l->cols);
	memcpy(l->cur + (l->rows + 1) * s + 1, l->cur + s + 1, l->cols);
}

static void wrap_cols(struct life *l)
{
	long i;

	for (i = 0; i < l->rows + 2; i++) {
		AT(l, l->cur, i, 0) = AT(l, l->cur, i, l->cols);
		AT(l, l->cur, i, l->cols + 1) = AT(l, l->cur, i, 1);
	}
}

static void exchange(struct life *l)
{
	struct wl *w = l->w;
	long last = l->rows, s = l->stride;

	/* Rows first (interior columns only) ... */
	if (l->north == l->me) {
		wrap_rows(l);
		goto cols;
	}
	WL_MPI_CALL(w, MPI_Sendrecv(l->cur + last * s + 1, l->cols, MPI_UINT8_T,
				    l->south, 0, l->cur + 1, l->cols, MPI_UINT8_T,
				    l->north, 0, l->cart, MPI_STATUS_IGNORE));
	WL_MPI_CALL(w, MPI_Sendrecv(l->cur + s + 1, l->cols, MPI_UINT8_T,
				    l->north, 1, l->cur + (last + 1) * s + 1,
				    l->cols, MPI_UINT8_T, l->south, 1, l->cart,
				    MPI_STATUS_IGNORE));
cols:
	/* ... then whole columns, ghost rows included: the corners. */
	if (l->east == l->me) {
		wrap_cols(l);
		return;
	}
	WL_MPI_CALL(w, MPI_Sendrecv(l->cur + l->cols, 1, l->col, l->east, 2,
				    l->cur, 1, l->col, l->west, 2, l->cart,
				    MPI_STATUS_IGNORE));
	WL_MPI_CALL(w, MPI_Sendrecv(l->cur + 1, 1, l->col, l->west, 3,
				    l->cur + l->cols + 1, 1, l->col, l->east, 3,
				    l->cart, MPI_STATUS_IGNORE));
}

int main(int argc, char **argv)
{
	static const struct wl_spec spec = {
		.name = "life",
		.variants = variants,
		.usage = "  -s  block side per rank (lo: 1500, hi: 600)\n"
			 "  -g  ROWSxCOLS global grid instead (-s ignored)\n",
	};
	int dims[2] = { 0, 0 }, periods[2] = { 1, 1 }, coords[2], v;
	long dg[2], it, live = 0, total = 0, i, j;
	struct life l = { 0 };
	struct wl w;

	wl_init(&w, &argc, &argv, &spec);
	l.w = &w;
	v = strcmp(w.variant, "hi") == 0;
	WL_MPI_CHECK(&w, MPI_Dims_create(w.size, 2, dims));
	WL_MPI_CHECK(&w, MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0,
					  &l.cart));
	WL_MPI_CHECK(&w, MPI_Comm_rank(l.cart, &l.me));
	WL_MPI_CHECK(&w, MPI_Cart_coords(l.cart, l.me, 2, coords));
	WL_MPI_CHECK(&w, MPI_Cart_shift(l.cart, 0, 1, &l.north, &l.south));
	WL_MPI_CHECK(&w, MPI_Cart_shift(l.cart, 1, 1, &l.west, &l.east));
	if (w.grid) {
		if (wl_parse_grid(w.grid, dg, 2))
			wl_die(&w, "-g %s: want ROWSxCOLS", w.grid);
	} else {
		dg[0] = (w.size_arg ? w.size_arg : side[v]) * dims[0];
		dg[1] = (w.size_arg ? w.size_arg : side[v]) * dims[1];
	}
	l.grow = dg[0];
	l.gcol = dg[1];
	split(l.grow, dims[0], coords[0], &l.row0, &l.rows);
	split(l.gcol, dims[1], coords[1], &l.col0, &l.cols);
	if (l.rows < 1 || l.cols < 1)
		wl_die(&w, "grid %ldx%ld too small for %dx%d ranks", l.grow,
		       l.gcol, dims[0], dims[1]);
	l.stride = l.cols + 2;
	l.cur = calloc((l.rows + 2) * l.stride, 1);
	l.next = calloc((l.rows + 2) * l.stride, 1);
	if (!l.cur || !l.next)
		wl_die(&w, "out of memory for a %ldx%ld block", l.rows, l.cols);
	/* A column of the block with its ghost frame: rows + 2 cells. */
	WL_MPI_CHECK(&w, MPI_Type_vector(l.rows + 2, 1, l.stride, MPI_UINT8_T,
					 &l.col));
	WL_MPI_CHECK(&w, MPI_Type_commit(&l.col));

	seed(&l);
	wl_calibrate(&w, step, &l, share[v]);
	seed(&l);
	wl_note(&w, "%ldx%ld grid, %dx%d ranks, %ld generations", l.grow,
		l.gcol, dims[0], dims[1], w.iters);

	wl_start(&w);
	for (it = 0; it < w.iters; it++) {
		exchange(&l);
		generation(&l);
		WL_MPI_CALL(&w, MPI_Barrier(l.cart));
	}
	wl_stop(&w);

	for (i = 1; i <= l.rows; i++)
		for (j = 1; j <= l.cols; j++)
			live += AT(&l, l.cur, i, j);
	WL_MPI_CHECK(&w, MPI_Reduce(&live, &total, 1, MPI_LONG, MPI_SUM, 0,
				    l.cart));
	wl_report(&w, "grid=%ldx%ld procs=%dx%d live=%ld", l.grow, l.gcol,
		  dims[0], dims[1], total);
	MPI_Type_free(&l.col);
	MPI_Comm_free(&l.cart);
	free(l.cur);
	free(l.next);
	MPI_Finalize();
	return 0;
}
