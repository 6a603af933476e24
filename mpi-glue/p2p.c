// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * p2p.c - the point-to-point calls that are not one non-blocking call
 * plus glue_wait() (those are generated from calls.def): MPI_Sendrecv
 * and MPI_Sendrecv_replace, as a receive and a send waited for together.
 * From a thread that may not wait the cosched way, the plain PMPI_ call,
 * unchanged.
 */
#include "glue.h"

#include <stdlib.h>
#include <string.h>

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
		 * (see MPI_Recv in calls.def).
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

int glue_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest,
		  int stag, void *rbuf, int rcount, MPI_Datatype rtype,
		  int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
	glue_count(GC_Sendrecv);
	if (!glue_active())
		return glue_plain(PMPI_Sendrecv(sbuf, scount, stype, dest,
						stag, rbuf, rcount, rtype,
						source, rtag, comm, status));
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
int glue_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest,
			  int stag, int source, int rtag, MPI_Comm comm,
			  MPI_Status *status)
{
	char *packed = NULL;
	int rc, psize = 0, pos = 0;

	glue_count(GC_Sendrecv_replace);
	if (!glue_active() || count < 0)
		return glue_plain(PMPI_Sendrecv_replace(buf, count, type, dest,
							stag, source, rtag,
							comm, status));
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
