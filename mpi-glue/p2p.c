// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * p2p.c - the blocking point-to-point, completion and probe calls, each
 * as its non-blocking form plus glue_wait().  From a thread that may
 * not wait the cosched way, the plain PMPI_ call, unchanged.
 */
#include "glue.h"

#include <stdlib.h>
#include <string.h>

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag,
	     MPI_Comm comm, MPI_Status *status)
{
	MPI_Request req;
	int rc;

	/*
	 * MPICH 4.0.2's Irecv from MPI_PROC_NULL completes with source 0,
	 * tag 0; its Recv gives the right status, and waits for nothing.
	 */
	if (!glue_active() || source == MPI_PROC_NULL)
		return PMPI_Recv(buf, count, type, source, tag, comm, status);
	rc = PMPI_Irecv(buf, count, type, source, tag, comm, &req);
	return rc != MPI_SUCCESS ? rc : glue_wait_one(&req, status);
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest,
	     int tag, MPI_Comm comm)
{
	MPI_Request req;
	int rc;

	if (!glue_active())
		return PMPI_Send(buf, count, type, dest, tag, comm);
	rc = PMPI_Isend(buf, count, type, dest, tag, comm, &req);
	return rc != MPI_SUCCESS ? rc : glue_wait_one(&req, MPI_STATUS_IGNORE);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest,
	      int tag, MPI_Comm comm)
{
	MPI_Request req;
	int rc;

	if (!glue_active())
		return PMPI_Ssend(buf, count, type, dest, tag, comm);
	rc = PMPI_Issend(buf, count, type, dest, tag, comm, &req);
	return rc != MPI_SUCCESS ? rc : glue_wait_one(&req, MPI_STATUS_IGNORE);
}

/* A posted receive whose send could not start: take it back. */
static void cancel_recv(MPI_Request *req)
{
	PMPI_Cancel(req);
	PMPI_Wait(req, MPI_STATUS_IGNORE);
}

/*
 * The receive req[0] and the send req[1], waited for together.  The
 * status is the receive's; its MPI_ERROR field is left alone, as
 * MPI_Sendrecv leaves it.  With an error in either, that error is
 * returned once neither request is pending: the send's buffer may be
 * freed then.
 */
static int wait_pair(MPI_Request req[2], MPI_Status *status)
{
	MPI_Status st[2];
	struct glue_wait w = {
		.kind = GW_ALL, .count = 2, .reqs = req, .statuses = st,
	};
	int rc, err, i;

	rc = glue_wait(&w);
	if (rc == MPI_ERR_IN_STATUS) {
		for (i = 0; i < 2; i++)
			if (st[i].MPI_ERROR == MPI_ERR_PENDING)
				st[i].MPI_ERROR = PMPI_Wait(&req[i], &st[i]);
		rc = st[0].MPI_ERROR != MPI_SUCCESS ? st[0].MPI_ERROR :
						      st[1].MPI_ERROR;
	} else if (rc != MPI_SUCCESS) {
		return rc;
	}
	if (status != MPI_STATUS_IGNORE) {
		err = status->MPI_ERROR;
		*status = st[0];
		status->MPI_ERROR = err;
	}
	return rc;
}

/* Receive and send, both started, then waited for together. */
static int sendrecv(const void *sbuf, int scount, MPI_Datatype stype,
		    int dest, int stag, void *rbuf, int rcount,
		    MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
		    MPI_Status *status)
{
	MPI_Request req[2];
	int rc;

	if (source == MPI_PROC_NULL) {
		/*
		 * The send alone is waited for; the receive from
		 * MPI_PROC_NULL, which touches no buffer, gives the status
		 * (see MPI_Recv).
		 */
		rc = PMPI_Isend(sbuf, scount, stype, dest, stag, comm, &req[1]);
		if (rc == MPI_SUCCESS)
			rc = glue_wait_one(&req[1], MPI_STATUS_IGNORE);
		if (rc == MPI_SUCCESS)
			rc = PMPI_Recv(rbuf, rcount, rtype, source, rtag, comm,
				       status);
		return rc;
	}
	rc = PMPI_Irecv(rbuf, rcount, rtype, source, rtag, comm, &req[0]);
	if (rc != MPI_SUCCESS)
		return rc;
	rc = PMPI_Isend(sbuf, scount, stype, dest, stag, comm, &req[1]);
	if (rc != MPI_SUCCESS) {
		cancel_recv(&req[0]);
		return rc;
	}
	return wait_pair(req, status);
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest,
		 int stag, void *rbuf, int rcount, MPI_Datatype rtype,
		 int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
	if (!glue_active())
		return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf,
				     rcount, rtype, source, rtag, comm, status);
	return sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype,
			source, rtag, comm, status);
}

/*
 * The outgoing data packed first (MPI_Pack), sent as MPI_PACKED, which
 * matches a receive of any type with the same signature; the receive
 * goes straight into the user's buffer with the user's datatype.  So
 * MPI itself writes the buffer: only what arrives, as the datatype lays
 * it out, whatever its bounds; nothing from MPI_PROC_NULL.
 */
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest,
			 int stag, int source, int rtag, MPI_Comm comm,
			 MPI_Status *status)
{
	char *packed = NULL;
	int rc, psize = 0, pos = 0;

	if (!glue_active() || count < 0)
		return PMPI_Sendrecv_replace(buf, count, type, dest, stag,
					     source, rtag, comm, status);
	if (dest != MPI_PROC_NULL) {
		rc = PMPI_Pack_size(count, type, comm, &psize);
		if (rc != MPI_SUCCESS)
			return rc;
		packed = malloc((size_t)psize + 1);
		if (!packed)
			return PMPI_Sendrecv_replace(buf, count, type, dest,
						     stag, source, rtag, comm,
						     status);
		rc = PMPI_Pack(buf, count, type, packed, psize, &pos, comm);
		if (rc != MPI_SUCCESS) {
			free(packed);
			return rc;
		}
	}
	rc = sendrecv(packed, pos, MPI_PACKED, dest, stag, buf, count, type,
		      source, rtag, comm, status);
	free(packed);
	return rc;
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
	return glue_wait_one(req, status);
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
	struct glue_wait w = {
		.kind = GW_ALL, .count = count, .reqs = reqs,
		.statuses = statuses,
	};

	return glue_wait(&w);
}

int MPI_Waitany(int count, MPI_Request reqs[], int *index,
		MPI_Status *status)
{
	struct glue_wait w = {
		.kind = GW_ANY, .count = count, .reqs = reqs, .index = index,
		.status = status,
	};

	return glue_wait(&w);
}

int MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount,
		 int indices[], MPI_Status statuses[])
{
	struct glue_wait w = {
		.kind = GW_SOME, .count = incount, .reqs = reqs,
		.outcount = outcount, .indices = indices, .statuses = statuses,
	};

	return glue_wait(&w);
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	struct glue_wait w = {
		.kind = GW_PROBE, .source = source, .tag = tag, .comm = comm,
		.status = status,
	};

	return glue_wait(&w);
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
	       MPI_Status *status)
{
	struct glue_wait w = {
		.kind = GW_MPROBE, .source = source, .tag = tag, .comm = comm,
		.message = message, .status = status,
	};

	return glue_wait(&w);
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message,
	      MPI_Status *status)
{
	MPI_Request req;
	int rc;

	if (!glue_active() || *message == MPI_MESSAGE_NO_PROC)
		return PMPI_Mrecv(buf, count, type, message, status);
	rc = PMPI_Imrecv(buf, count, type, message, &req);
	return rc != MPI_SUCCESS ? rc : glue_wait_one(&req, status);
}
