/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fortran.h - what the generated Fortran entry points (fentries.c, from
 * gen.py) need: Fortran's sentinels turned into C's, and temporary
 * arrays.  A Fortran INTEGER is an int in both MPIs built here.
 */
#ifndef COSCHED_MPI_FORTRAN_H
#define COSCHED_MPI_FORTRAN_H

#include "glue.h"

#include <stddef.h>

_Static_assert(sizeof(MPI_Fint) == sizeof(int),
	       "Fortran INTEGER arrays are passed to C as int arrays");

/* INTEGERs in a Fortran status (MPI_STATUS_SIZE). */
#define GLUE_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))

#pragma GCC visibility push(hidden)

/* A Fortran buffer argument: MPI_IN_PLACE and MPI_BOTTOM made C's. */
void *glue_f_buf(void *p);
/* Is s Fortran's MPI_STATUS_IGNORE (many: MPI_STATUSES_IGNORE)? */
bool glue_f_ignored(const MPI_Fint *s, int many);
#ifdef GLUE_HAVE_F08_STATUS
/* The same for use mpi_f08's TYPE(MPI_Status). */
bool glue_f08_ignored(const MPI_F08_status *s, int many);
#endif
#ifdef GLUE_HAVE_F08_STATUS
/* MPI_Status_c2f08, looked up when first called. */
void glue_status_c2f08(const MPI_Status *c, MPI_F08_status *f);
#endif
/* n elements of size bytes; NULL and *rc = MPI_ERR_NO_MEM on failure. */
void *glue_f_alloc(int n, size_t size, int *rc);
/*
 * Entries of an MPI_Alltoallw-like datatype array: the group's size (the
 * remote group's for an intercommunicator), or for a neighbourhood
 * collective the topology's in- or out-degree.
 */
int glue_f_peers(MPI_Comm comm, int neighbor, int send);
/* The MPI's own Fortran entry point of that name (dlsym RTLD_NEXT). */
void *glue_f_next(const char *sym);

#pragma GCC visibility pop

#endif /* COSCHED_MPI_FORTRAN_H */
