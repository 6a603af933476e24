// SPDX-License-Identifier: GPL-2.0
/*
 * mg: the communication pattern of a multigrid V-cycle (NAS MG's, in
 * miniature).  A 3-D periodic Poisson problem on a grid cut into slabs
 * along z, one per rank.  Each V-cycle smooths (weighted Jacobi) and forms
 * the residual on successively coarser grids down to a coarsest one and
 * back up; each smoothing sweep and each residual needs a halo exchange
 * of the slab's two faces with the neighbours above and below, and one
 * reduction of the residual norm ends the cycle.  Faces shrink fourfold
 * per level while the exchange count stays, so the coarse levels are all
 * latency: the most communication-bound of the workloads (about 26%).
 *
 * -s: the side of the slab per rank (s x s in x and y, s planes thick:
 * weak scaling; the more factors of two, the more levels).  -g N: an N^3 global grid
 * instead, cut into N/ranks planes each (the checksum test).
 *
 * Checksum: resid= the residual norm after the last cycle (the same for
 * any decomposition up to rounding in the sum), and resid0= before the
 * first, which it must be well below.
 */
#include "wl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEVELS	16
#define NU		2	/* smoothing sweeps before and after */
#define NU_COARSE	4	/* sweeps on the coarsest grid */
#define OMEGA		0.8	/* Jacobi weight */

struct level {
	long n;			/* side in x and y */
	long nz;		/* planes owned, without the two ghost planes */
	double h2;		/* grid spacing squared */
	double *u, *f, *r, *tmp;
};

struct mg {
	struct wl *w;
	int up, down;		/* neighbours in z (periodic) */
	int nlev;
	struct level lv[MAX_LEVELS];
	long z0;		/* first global plane of the finest slab */
	long gn, gnz;		/* the finest global grid */
	int comm;		/* 0 during calibration: no exchanges */
};

#define IDX(l, z, y, x)	(((z) * (l)->n + (y)) * (l)->n + (x))

static void *zalloc(struct mg *m, size_t n)
{
	void *p = calloc(n, sizeof(double));

	if (!p)
		wl_die(m->w, "out of memory (%zu doubles)", n);
	return p;
}

/* Fill the ghost planes 0 and nz + 1 from the neighbours' edge planes. */
static void halo(struct mg *m, struct level *l, double *a)
{
	long plane = l->n * l->n, nz = l->nz;

	if (!m->comm || m->up == m->w->rank) {
		memcpy(a, a + nz * plane, plane * sizeof(double));
		memcpy(a + (nz + 1) * plane, a + plane, plane * sizeof(double));
		return;
	}
	WL_MPI_CALL(m->w, MPI_Sendrecv(a + nz * plane, plane, MPI_DOUBLE, m->up, 0,
				       a, plane, MPI_DOUBLE, m->down, 0,
				       MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	WL_MPI_CALL(m->w, MPI_Sendrecv(a + plane, plane, MPI_DOUBLE, m->down, 1,
				       a + (nz + 1) * plane, plane, MPI_DOUBLE,
				       m->up, 1, MPI_COMM_WORLD,
				       MPI_STATUS_IGNORE));
}

/* out = f - A u, A the 7-point Laplacian (negated) with x, y periodic. */
static void residual(struct mg *m, struct level *l, double *out)
{
	long n = l->n, x, y, z;

	halo(m, l, l->u);
	for (z = 1; z <= l->nz; z++)
		for (y = 0; y < n; y++) {
			long yp = (y + 1) % n, ym = (y + n - 1) % n;

			for (x = 0; x < n; x++) {
				long xp = (x + 1) % n, xm = (x + n - 1) % n;
				const double *u = l->u;
				double au = 6 * u[IDX(l, z, y, x)] -
					u[IDX(l, z, y, xp)] - u[IDX(l, z, y, xm)] -
					u[IDX(l, z, yp, x)] - u[IDX(l, z, ym, x)] -
					u[IDX(l, z + 1, y, x)] - u[IDX(l, z - 1, y, x)];

				out[IDX(l, z, y, x)] = l->f[IDX(l, z, y, x)] - au / l->h2;
			}
		}
}

static void smooth(struct mg *m, struct level *l, int sweeps)
{
	long i, size = (l->nz + 2) * l->n * l->n;

	while (sweeps--) {
		residual(m, l, l->tmp);
		for (i = l->n * l->n; i < size - l->n * l->n; i++)
			l->u[i] += OMEGA * l->h2 / 6 * l->tmp[i];
	}
}

/* Coarse right-hand side: the mean of each cell's eight children. */
static void restrict_to(struct level *fine, struct level *c)
{
	long x, y, z;

	for (z = 1; z <= c->nz; z++)
		for (y = 0; y < c->n; y++)
			for (x = 0; x < c->n; x++) {
				long fz = 2 * z - 1, fy = 2 * y, fx = 2 * x;
				const double *r = fine->r;

				c->f[IDX(c, z, y, x)] = (r[IDX(fine, fz, fy, fx)] +
					r[IDX(fine, fz, fy, fx + 1)] +
					r[IDX(fine, fz, fy + 1, fx)] +
					r[IDX(fine, fz, fy + 1, fx + 1)] +
					r[IDX(fine, fz + 1, fy, fx)] +
					r[IDX(fine, fz + 1, fy, fx + 1)] +
					r[IDX(fine, fz + 1, fy + 1, fx)] +
					r[IDX(fine, fz + 1, fy + 1, fx + 1)]) / 8;
			}
}

/* Fine correction: each coarse value added to its eight children. */
static void prolong_add(struct level *c, struct level *fine)
{
	long x, y, z;

	for (z = 1; z <= fine->nz; z++)
		for (y = 0; y < fine->n; y++)
			for (x = 0; x < fine->n; x++)
				fine->u[IDX(fine, z, y, x)] +=
					c->u[IDX(c, (z + 1) / 2, y / 2, x / 2)];
}

static void vcycle(struct mg *m, int k)
{
	struct level *l = &m->lv[k], *c = &m->lv[k + 1];

	if (k == m->nlev - 1) {
		smooth(m, l, NU_COARSE);
		return;
	}
	smooth(m, l, NU);
	residual(m, l, l->r);
	restrict_to(l, c);
	memset(c->u, 0, (c->nz + 2) * c->n * c->n * sizeof(double));
	vcycle(m, k + 1);
	prolong_add(c, l);
	smooth(m, l, NU);
}

/* The global residual norm of the finest grid. */
static double norm(struct mg *m, int timed)
{
	struct level *l = &m->lv[0];
	long i, plane = l->n * l->n;
	double s = 0, all;

	residual(m, l, l->r);
	for (i = plane; i < (l->nz + 1) * plane; i++)
		s += l->r[i] * l->r[i];
	if (timed)
		WL_MPI_CALL(m->w, MPI_Allreduce(&s, &all, 1, MPI_DOUBLE, MPI_SUM,
						MPI_COMM_WORLD));
	else
		WL_MPI_CHECK(m->w, MPI_Allreduce(&s, &all, 1, MPI_DOUBLE,
						 MPI_SUM, MPI_COMM_WORLD));
	return sqrt(all);
}

/* u = 0; f a smooth wave plus hashed noise (main removes its mean). */
static void seed(struct mg *m)
{
	struct level *l = &m->lv[0];
	long x, y, z;

	for (z = 0; z < l->nz + 2; z++)
		for (y = 0; y < l->n; y++)
			for (x = 0; x < l->n; x++) {
				long gz = m->z0 + z - 1;
				uint64_t g = ((uint64_t)gz * m->gn + y) * m->gn + x;
				double noise = (double)(wl_hash(g) >> 11) / (1ULL << 53) - 0.5;

				l->u[IDX(l, z, y, x)] = 0;
				l->f[IDX(l, z, y, x)] = sin(2 * M_PI * x / l->n) *
					cos(2 * M_PI * gz / m->gnz) + noise;
			}
}

static void step(void *arg)
{
	vcycle(arg, 0);
}

int main(int argc, char **argv)
{
	static const struct wl_spec spec = {
		.name = "mg",
		.usage = "  -s  slab side per rank (default 40): s x s x s\n"
			 "  -g  N: an N^3 global grid, N/ranks planes per rank, instead\n",
	};
	struct mg m = { 0 };
	double r0, r1, s = 0, mean;
	long n, nz, it, i, plane;
	struct wl w;
	int k;

	wl_init(&w, &argc, &argv, &spec);
	m.w = &w;
	m.up = (w.rank + 1) % w.size;
	m.down = (w.rank + w.size - 1) % w.size;
	if (w.grid) {
		long d[3];

		if (wl_parse_grid(w.grid, d, 3) || d[0] != d[1] || d[0] != d[2])
			wl_die(&w, "-g %s: want N (an N^3 grid)", w.grid);
		n = d[0];
		if (n % w.size)
			wl_die(&w, "-g %ld: not divisible by %d ranks", n, w.size);
		nz = n / w.size;
	} else {
		n = nz = w.size_arg ? w.size_arg : 40;
	}
	if (n < 4 || nz < 1)
		wl_die(&w, "grid side %ld must be >= 4 with at least 1 plane per rank",
		       n);
	m.gn = n;
	m.gnz = nz * w.size;
	m.z0 = nz * w.rank;
	/*
	 * Levels down to where halving would leave x, y below 4, an odd
	 * side, or a rank without a whole plane.
	 */
	for (k = 0; k < MAX_LEVELS; k++, n /= 2, nz /= 2) {
		struct level *l = &m.lv[k];
		size_t size = (nz + 2) * n * n;

		l->n = n;
		l->nz = nz;
		l->h2 = (double)(1L << k) * (1L << k);
		l->u = zalloc(&m, size);
		l->f = zalloc(&m, size);
		l->r = zalloc(&m, size);
		l->tmp = zalloc(&m, size);
		m.nlev = k + 1;
		if (n % 2 || nz % 2 || n / 2 < 4)
			break;
	}

	seed(&m);
	/* Zero mean for f, or the periodic problem has no solution. */
	plane = m.lv[0].n * m.lv[0].n;
	for (i = plane; i < (m.lv[0].nz + 1) * plane; i++)
		s += m.lv[0].f[i];
	WL_MPI_CHECK(&w, MPI_Allreduce(&s, &mean, 1, MPI_DOUBLE, MPI_SUM,
				       MPI_COMM_WORLD));
	mean /= (double)m.gn * m.gn * m.gnz;
	for (i = 0; i < (m.lv[0].nz + 2) * plane; i++)
		m.lv[0].f[i] -= mean;

	wl_calibrate(&w, step, &m, 0.26);
	memset(m.lv[0].u, 0, (m.lv[0].nz + 2) * plane * sizeof(double));
	m.comm = 1;
	r1 = r0 = norm(&m, 0);
	wl_note(&w, "%ldx%ldx%ld grid, %d levels, %ld V-cycles", m.gn, m.gn,
		m.gnz, m.nlev, w.iters);

	wl_start(&w);
	for (it = 0; it < w.iters; it++) {
		vcycle(&m, 0);
		r1 = norm(&m, 1);
	}
	wl_stop(&w);

	wl_report(&w, "grid=%ldx%ldx%ld levels=%d resid0=%.6e resid=%.12e",
		  m.gn, m.gn, m.gnz, m.nlev, r0, r1);
	for (k = 0; k < m.nlev; k++) {
		free(m.lv[k].u);
		free(m.lv[k].f);
		free(m.lv[k].r);
		free(m.lv[k].tmp);
	}
	MPI_Finalize();
	return 0;
}
