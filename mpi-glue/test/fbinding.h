! SPDX-License-Identifier: GPL-2.0
! fbinding.h - what differs between the Fortran bindings for the tests
! built once per binding (-DMPIFH, -DUSEMPI, -DF08): status and handle
! types and the status fields.  Included before the program line; the
! program then includes fuse.h for its use/include lines.
#if defined(F08)
#define STATUS type(MPI_Status)
#define HANDLE(t) type(t)
#define SOURCE(s) s%MPI_SOURCE
#define TAG(s) s%MPI_TAG
#define SOURCES(s, i) s(i)%MPI_SOURCE
#define TAGS(s, i) s(i)%MPI_TAG
#else
#define STATUS integer, dimension(MPI_STATUS_SIZE)
#define HANDLE(t) integer
#define SOURCE(s) s(MPI_SOURCE)
#define TAG(s) s(MPI_TAG)
#define SOURCES(s, i) s(MPI_SOURCE, i)
#define TAGS(s, i) s(MPI_TAG, i)
#endif
#define ISNULL(r) (r == MPI_REQUEST_NULL)
