// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fortran.c - helpers of the generated Fortran entry points.  Open MPI's
 * Fortran sentinels (MPI_IN_PLACE, MPI_BOTTOM, MPI_STATUS[ES]_IGNORE) are
 * common blocks of libmpi, one symbol per name mangling; they are weak
 * here, so under MPICH (whose entries that take them are not generated)
 * they are simply absent.
 */
#define _GNU_SOURCE
#include "fortran.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define SENTINEL(s)							\
	extern char s##_ __attribute__((weak));				\
	extern char s __attribute__((weak));				\
	extern char s##__ __attribute__((weak))

SENTINEL(mpi_fortran_in_place);
SENTINEL(mpi_fortran_bottom);
SENTINEL(mpi_fortran_status_ignore);
SENTINEL(mpi_fortran_statuses_ignore);

/* p is one of the manglings of a (weak, maybe absent) sentinel. */
#define IS(p, s) ((p) && ((p) == &s##_ || (p) == &s || (p) == &s##__))

void *glue_f_buf(void *p)
{
	if (IS(p, mpi_fortran_in_place))
		return MPI_IN_PLACE;
	if (IS(p, mpi_fortran_bottom))
		return MPI_BOTTOM;
	return p;
}

bool glue_f_ignored(const MPI_Fint *s, int many)
{
	const void *p = s;

	if (many)
		return s == MPI_F_STATUSES_IGNORE ||
		       IS(p, mpi_fortran_statuses_ignore);
	return s == MPI_F_STATUS_IGNORE || IS(p, mpi_fortran_status_ignore);
}

#ifdef GLUE_HAVE_F08_STATUS
bool glue_f08_ignored(const MPI_F08_status *s, int many)
{
	return s == (many ? MPI_F08_STATUSES_IGNORE : MPI_F08_STATUS_IGNORE);
}
#endif

void *glue_f_alloc(int n, size_t size, int *rc)
{
	void *p = n > 0 ? calloc((size_t)n, size) : NULL;

	if (n > 0 && !p)
		*rc = MPI_ERR_NO_MEM;
	return p;
}

int glue_f_peers(MPI_Comm comm, int neighbor, int send)
{
	int n = 0, in = 0, out = 0, weighted, topo = MPI_UNDEFINED, rank;

	if (!neighbor) {
		PMPI_Comm_test_inter(comm, &in);
		if (in)
			PMPI_Comm_remote_size(comm, &n);
		else
			PMPI_Comm_size(comm, &n);
		return n;
	}
	PMPI_Topo_test(comm, &topo);
	if (topo == MPI_CART) {
		PMPI_Cartdim_get(comm, &n);
		return 2 * n;
	}
	if (topo == MPI_GRAPH) {
		PMPI_Comm_rank(comm, &rank);
		PMPI_Graph_neighbors_count(comm, rank, &n);
		return n;
	}
	if (topo == MPI_DIST_GRAPH) {
		PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
		return send ? out : in;
	}
	return 0;
}

#ifdef GLUE_HAVE_F08_STATUS
/*
 * MPICH 4.0.2 has MPI_Status_c2f08 in libmpichfort, not in libmpich: a
 * reference the loader must bind would stop every C program under the
 * glue with LD_BIND_NOW=1.  A use mpi_f08 program, the only caller,
 * has loaded it (or dlopen'ed it: looked up at the call).
 */
void glue_status_c2f08(const MPI_Status *c, MPI_F08_status *f)
{
	static int (*c2f08)(const MPI_Status *, MPI_F08_status *);
	int (*fn)(const MPI_Status *, MPI_F08_status *);

	fn = __atomic_load_n(&c2f08, __ATOMIC_ACQUIRE);
	if (!fn) {
		fn = (int (*)(const MPI_Status *, MPI_F08_status *))
			dlsym(RTLD_DEFAULT, "PMPI_Status_c2f08");
		if (!fn) {
			fprintf(stderr, "cosched-mpi: PMPI_Status_c2f08: not in this MPI\n");
			abort();
		}
		__atomic_store_n(&c2f08, fn, __ATOMIC_RELEASE);
	}
	fn(c, f);
}
#endif

void *glue_f_next(const char *sym)
{
	return dlsym(RTLD_NEXT, sym);
}
