// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * local.c - may MPI move this job's messages through shared memory?
 * Between two ranks on one node the MPIs prefer it (Open MPI's vader
 * BTL, MPICH's CH4 shared memory, UCX's sm transports) and no arrival
 * hook sees it: a waiter blocked the cosched way would sleep out its
 * timeout for every such message.  So a job with ranks sharing a node
 * waits the cosched way only when its transport settings leave TCP as
 * the only way between them, as cosched-run and the SPANK plugin set.
 */
#include "glue.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Is every item of the comma list s one of the words in ok ("a,b")? */
static bool only(const char *s, const char *const *ok)
{
	char buf[256], *save, *item;
	int i;

	if (!s || !*s || *s == '^' || strlen(s) >= sizeof(buf))
		return false;
	strcpy(buf, s);
	for (item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		for (i = 0; ok[i] && strcmp(item, ok[i]); i++)
			;
		if (!ok[i])
			return false;
	}
	return true;
}

static const char *const tcp_ucx[] = { "tcp", "self", NULL };

/* UCX carries local messages over TCP only. */
static bool ucx_tcp_only(void)
{
	return only(getenv("UCX_TLS"), tcp_ucx);
}

#ifdef OMPI_MAJOR_VERSION
static const char *const tcp_btl[] = { "tcp", "self", NULL };

static bool shm_possible(void)
{
	const char *pml = getenv("OMPI_MCA_pml");

	if (pml && !strcmp(pml, "ucx"))
		return !ucx_tcp_only();
	/* ob1 with the TCP and self BTLs only; unset picks what it finds. */
	return !(pml && !strcmp(pml, "ob1") &&
		 only(getenv("OMPI_MCA_btl"), tcp_btl));
}
#else
static bool shm_possible(void)
{
	const char *nolocal = getenv("MPIR_CVAR_NOLOCAL");

	/* No CH4 shared memory, and its UCX netmod over TCP only. */
	return !(nolocal && !strcmp(nolocal, "1") && ucx_tcp_only());
}
#endif

/*
 * This node, as a number: FNV-1a of the host name and the boot id.  Not
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): with MPIR_CVAR_NOLOCAL=1,
 * MPICH puts every rank in a node group of its own, while UCX below it
 * still carries the messages through shared memory.
 */
static uint64_t node_id(void)
{
	char buf[HOST_NAME_MAX + 1 + 64] = "";
	uint64_t h = 0xcbf29ce484222325ull;
	size_t n, i;
	FILE *f;

	gethostname(buf, HOST_NAME_MAX);
	n = strnlen(buf, HOST_NAME_MAX);
	f = fopen("/proc/sys/kernel/random/boot_id", "re");
	if (f) {
		if (!fgets(buf + n + 1, 64, f))
			buf[n + 1] = '\0';
		fclose(f);
	}
	n += 1 + strnlen(buf + n + 1, 63);
	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)buf[i]) * 0x100000001b3ull;
	return h;
}

/*
 * Collective over MPI_COMM_WORLD, in every rank whatever it finds: do
 * ranks share this node, and may their MPI use shared memory?  Ranks
 * are grouped by their node's number (two nodes whose numbers collide
 * only make the answer "may", the safe side).
 */
bool glue_local_shm(void)
{
	MPI_Comm node;
	int n = 1;

	if (PMPI_Comm_split(MPI_COMM_WORLD, (int)(node_id() & INT_MAX), 0,
			    &node) != MPI_SUCCESS)
		return shm_possible();
	PMPI_Comm_size(node, &n);
	PMPI_Comm_free(&node);
	return n > 1 && shm_possible();
}
