// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * coll.c - the blocking collectives, each as its MPI-3 non-blocking form
 * plus glue_wait(), so that a rank waiting for the slowest one spins,
 * then blocks or yields.  MPI may use other algorithms for the
 * non-blocking forms: floating-point reductions can round differently
 * (integer results are the same).  From a thread that may not wait the
 * cosched way, the plain PMPI_ call.
 */
#include "glue.h"

/* The request a non-blocking collective returned, waited for. */
static int finish(int rc, MPI_Request *req)
{
	return rc != MPI_SUCCESS ? rc : glue_wait_one(req, MPI_STATUS_IGNORE);
}

int MPI_Barrier(MPI_Comm comm)
{
	MPI_Request req;

	if (!glue_active())
		return PMPI_Barrier(comm);
	return finish(PMPI_Ibarrier(comm, &req), &req);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root,
	      MPI_Comm comm)
{
	MPI_Request req;

	if (!glue_active())
		return PMPI_Bcast(buf, count, type, root, comm);
	return finish(PMPI_Ibcast(buf, count, type, root, comm, &req), &req);
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
	       MPI_Op op, int root, MPI_Comm comm)
{
	MPI_Request req;

	if (!glue_active())
		return PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
	return finish(PMPI_Ireduce(sbuf, rbuf, count, type, op, root, comm,
				   &req), &req);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
		  MPI_Op op, MPI_Comm comm)
{
	MPI_Request req;

	if (!glue_active())
		return PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
	return finish(PMPI_Iallreduce(sbuf, rbuf, count, type, op, comm,
				      &req), &req);
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
	       int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
	MPI_Request req;

	if (!glue_active())
		return PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype,
				   root, comm);
	return finish(PMPI_Igather(sbuf, scount, stype, rbuf, rcount, rtype,
				   root, comm, &req), &req);
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
		const int rcounts[], const int displs[], MPI_Datatype rtype,
		int root, MPI_Comm comm)
{
	MPI_Request req;

	if (!glue_active())
		return PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs,
				    rtype, root, comm);
	return finish(PMPI_Igatherv(sbuf, scount, stype, rbuf, rcounts,
				    displs, rtype, root, comm, &req), &req);
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
		int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
	MPI_Request req;

	if (!glue_active())
		return PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype,
				    root, comm);
	return finish(PMPI_Iscatter(sbuf, scount, stype, rbuf, rcount, rtype,
				    root, comm, &req), &req);
}

int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[],
		 MPI_Datatype stype, void *rbuf, int rcount,
		 MPI_Datatype rtype, int root, MPI_Comm comm)
{
	MPI_Request req;

	if (!glue_active())
		return PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount,
				     rtype, root, comm);
	return finish(PMPI_Iscatterv(sbuf, scounts, displs, stype, rbuf,
				     rcount, rtype, root, comm, &req), &req);
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype,
		  void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
	MPI_Request req;

	if (!glue_active())
		return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype,
				      comm);
	return finish(PMPI_Iallgather(sbuf, scount, stype, rbuf, rcount,
				      rtype, comm, &req), &req);
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype,
		   void *rbuf, const int rcounts[], const int displs[],
		   MPI_Datatype rtype, MPI_Comm comm)
{
	MPI_Request req;

	if (!glue_active())
		return PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts,
				       displs, rtype, comm);
	return finish(PMPI_Iallgatherv(sbuf, scount, stype, rbuf, rcounts,
				       displs, rtype, comm, &req), &req);
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype,
		 void *rbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
	MPI_Request req;

	if (!glue_active())
		return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype,
				     comm);
	return finish(PMPI_Ialltoall(sbuf, scount, stype, rbuf, rcount,
				     rtype, comm, &req), &req);
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
		  MPI_Datatype stype, void *rbuf, const int rcounts[],
		  const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
	MPI_Request req;

	if (!glue_active())
		return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf,
				      rcounts, rdispls, rtype, comm);
	return finish(PMPI_Ialltoallv(sbuf, scounts, sdispls, stype, rbuf,
				      rcounts, rdispls, rtype, comm, &req),
		      &req);
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
		       MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	MPI_Request req;

	if (!glue_active())
		return PMPI_Reduce_scatter(sbuf, rbuf, rcounts, type, op, comm);
	return finish(PMPI_Ireduce_scatter(sbuf, rbuf, rcounts, type, op,
					   comm, &req), &req);
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
			     MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	MPI_Request req;

	if (!glue_active())
		return PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, type, op,
						 comm);
	return finish(PMPI_Ireduce_scatter_block(sbuf, rbuf, rcount, type, op,
						 comm, &req), &req);
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
	     MPI_Op op, MPI_Comm comm)
{
	MPI_Request req;

	if (!glue_active())
		return PMPI_Scan(sbuf, rbuf, count, type, op, comm);
	return finish(PMPI_Iscan(sbuf, rbuf, count, type, op, comm, &req),
		      &req);
}

int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
	       MPI_Op op, MPI_Comm comm)
{
	MPI_Request req;

	if (!glue_active())
		return PMPI_Exscan(sbuf, rbuf, count, type, op, comm);
	return finish(PMPI_Iexscan(sbuf, rbuf, count, type, op, comm, &req),
		      &req);
}
