// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * coll.c - which form the blocking collectives take (their wrappers are
 * generated from calls.def): each as its MPI-3 non-blocking form plus
 * glue_wait(), so that a rank waiting for the slowest one spins, then
 * blocks or yields.  MPI never matches a blocking collective with a
 * non-blocking one, so the form is the job's (decided by all ranks at
 * MPI_Init), the same in every thread: a thread that may not wait the
 * cosched way waits for the request with MPI_Wait.  MPI may use other
 * algorithms for the non-blocking forms: floating-point reductions can
 * round differently (integer results are the same).
 */
#include "glue.h"

/* Attribute values: the communicator is all in this job, or not. */
static char in_job, not_in_job;

/* Are all processes of group g in MPI_COMM_WORLD's group? */
static bool group_in_job(MPI_Group g, MPI_Group world)
{
	int r[64], w[64], n, i, k, m;

	if (PMPI_Group_size(g, &n) != MPI_SUCCESS)
		return false;
	for (i = 0; i < n; i += m) {
		m = n - i < 64 ? n - i : 64;
		for (k = 0; k < m; k++)
			r[k] = i + k;
		if (PMPI_Group_translate_ranks(g, m, r, world, w) !=
		    MPI_SUCCESS)
			return false;
		for (k = 0; k < m; k++)
			if (w[k] == MPI_UNDEFINED)
				return false;
	}
	return true;
}

static bool all_in_job(MPI_Comm comm)
{
	MPI_Group world, local, remote = MPI_GROUP_NULL;
	int inter = 0;
	bool ok;

	PMPI_Comm_group(MPI_COMM_WORLD, &world);
	PMPI_Comm_group(comm, &local);
	PMPI_Comm_test_inter(comm, &inter);
	if (inter)
		PMPI_Comm_remote_group(comm, &remote);
	ok = group_in_job(local, world) &&
	     (!inter || group_in_job(remote, world));
	if (remote != MPI_GROUP_NULL)
		PMPI_Group_free(&remote);
	PMPI_Group_free(&local);
	PMPI_Group_free(&world);
	return ok;
}

/*
 * The non-blocking form when the job agreed on it, for a communicator
 * whose processes are all of this job: they all decided alike.  One that
 * reaches into another job (MPI_Comm_spawn, MPI_Comm_connect) takes the
 * blocking form in all its processes, each job finding the other's.
 */
bool glue_nb(MPI_Comm comm)
{
	void *val;
	int flag = 0;

	if (!glue.coll_nb || comm == MPI_COMM_NULL)
		return false;
	if (comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF)
		return true;
	if (PMPI_Comm_get_attr(comm, glue.keyval, &val, &flag) != MPI_SUCCESS)
		return false;
	if (!flag) {
		val = all_in_job(comm) ? &in_job : &not_in_job;
		PMPI_Comm_set_attr(comm, glue.keyval, val);
	}
	return val == &in_job;
}

/* The request a non-blocking collective returned, waited for. */
int glue_finish(int rc, MPI_Request *req)
{
	return rc != MPI_SUCCESS ? rc : glue_wait_one(req, MPI_STATUS_IGNORE);
}
