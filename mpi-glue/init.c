// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * init.c - MPI_Init, MPI_Init_thread and MPI_Finalize: create the
 * process's cosched endpoint (job id from the launcher, rank and size of
 * MPI_COMM_WORLD), register the TCP sockets MPI_Init made (sockets.c,
 * which registers later ones as MPI makes them, or parks them all while
 * the glue cannot help), and release it all before
 * MPI closes its connections.  Whether the job waits the cosched way is
 * decided by all ranks together: a blocking collective becomes its
 * non-blocking form only in a job whose every rank does that, because
 * MPI never matches the two forms.  When one rank cannot (no module, no
 * arrival hooks, no TCP transport, COSCHED_MPI=0) the whole job waits
 * the plain MPI way, and rank 0 says why, once for the job.  At an
 * abnormal exit the kernel releases the endpoint and its hooks with the
 * process's files.
 */
#define _GNU_SOURCE
#include "glue.h"
#include "rank.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* A block ends after this without an arrival: write space is not one. */
#define DEF_TIMEOUT_US	10000

struct glue glue;

/* Why a rank waits the plain way; reported by rank 0 with a count. */
enum why {
	WHY_OK,
	WHY_OFF,
	WHY_NO_MODULE,
	WHY_ENDPOINT,
	WHY_NO_HOOKS,
	WHY_NO_TCP,
	WHY_SHM,
	WHY_NR
};

static const char *const why_text[WHY_NR] = {
	[WHY_OFF] = "COSCHED_MPI=0",
	[WHY_NO_MODULE] = "no cosched module (" COSCHED_DEVICE ")",
	[WHY_ENDPOINT] = "the endpoint could not be created",
	[WHY_NO_HOOKS] = "the module cannot watch TCP sockets (arrival hooks)",
	[WHY_NO_TCP] = "no TCP socket: the MPI transport is not watchable (shared memory? use cosched-run)",
	[WHY_SHM] = "ranks sharing a node, whose MPI may use shared memory, which no hook sees (cosched-run and srun --cosched select TCP)",
};

uint64_t glue_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t env_num(const char *name, uint64_t def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoull(s, &end, 0);
	return errno || *end ? def : v;
}

/*
 * The job id, the same in every rank: the launcher's (rank.c) when all
 * ranks read the same one, else one that rank 0 makes up: Hydra exports
 * none, and a variable left over from an outer job (an mpiexec inside a
 * Slurm allocation) would name another job, or a different one per rank.
 */
static uint64_t agree_job(void)
{
	struct glue_launch l;
	uint64_t mine[2], all[2], job = 0;

	glue_launch_env(&l, glue.rank, glue.size);
	mine[0] = l.job;
	mine[1] = ~l.job;
	if (PMPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MAX,
			   MPI_COMM_WORLD) == MPI_SUCCESS &&
	    all[0] && all[0] == ~all[1])
		return all[0];
	if (glue.rank == 0)
		job = ((uint64_t)getpid() << 32) ^ glue_now_ns();
	PMPI_Bcast(&job, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	return job ? job : 1;
}

/*
 * Is a module of our ABI there?  Not asking libcosched: it would say
 * "busy-poll mode" in every rank.
 */
static bool module_here(void)
{
	struct cosched_info info;
	int fd = open(COSCHED_DEVICE, O_RDWR | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = !ioctl(fd, COSCHED_IOC_INFO, &info) &&
	     info.abi_version == COSCHED_ABI_VERSION;
	close(fd);
	return ok;
}

/*
 * Before MPI_Init's first socket: from now on the sockets it makes are
 * remembered for the endpoint.  Not in a process where the glue cannot
 * be active (COSCHED_MPI=0, no module): there the interposed socket calls
 * stay the C library's, with one branch more.
 */
__attribute__((constructor)) static void glue_arm(void)
{
	if (env_num("COSCHED_MPI", 1) != 0 && module_here())
		glue_socks_arm();
}

/* Sockets first: no thread may register with a closed endpoint. */
static void drop_endpoint(void)
{
	glue_socks_stop();
	if (!glue.ep)
		return;
	cosched_close(glue.ep);
	glue.ep = NULL;
}

static enum why open_endpoint(void)
{
	long timeout = (long)env_num("COSCHED_MPI_TIMEOUT_US", DEF_TIMEOUT_US);
	int n;

	if (!module_here())
		return WHY_NO_MODULE;
	if (cosched_open(&glue.ep, glue.job, (uint32_t)glue.rank,
			 (uint32_t)glue.size, 0))
		return WHY_ENDPOINT;
	if (cosched_set_wait_timeout(glue.ep, timeout))
		cosched_set_wait_timeout(glue.ep, DEF_TIMEOUT_US);
	/* Under local with a polling wait the sockets cost and cannot help. */
	n = glue_socks_start(glue.ep, glue.rank, glue.verbose, !glue_helps());
	if (n > 0)
		return WHY_OK;
	drop_endpoint();
	return n < 0 ? WHY_NO_HOOKS : WHY_NO_TCP;
}

/*
 * The job's decision: cosched only if every rank can (one MPI_Allreduce
 * of the reasons).  Rank 0 prints one line for the job, unless every
 * rank was asked not to (COSCHED_MPI=0: quietly plain MPI).  The same
 * sum says whether a cosched wait does anything on any rank's node now
 * (*helps: not when every node runs local with a polling wait).
 */
static bool agree(enum why why, bool *helps)
{
	int count[WHY_NR + 1] = { 0 }, sum[WHY_NR + 1];
	int i, n = 0, len;
	char line[512];

	count[why] = 1;
	count[WHY_NR] = why == WHY_OK && glue_helps();
	*helps = false;
	if (PMPI_Allreduce(count, sum, WHY_NR + 1, MPI_INT, MPI_SUM,
			   MPI_COMM_WORLD) != MPI_SUCCESS)
		return false;
	*helps = sum[WHY_NR] > 0;
	if (sum[WHY_OK] == glue.size)
		return true;
	if (glue.rank || sum[WHY_OFF] == glue.size)
		return false;
	/* One write: other ranks' output must not split the line. */
	len = snprintf(line, sizeof(line),
		       "cosched-mpi: the job waits the plain MPI way:");
	for (i = WHY_OK + 1; i < WHY_NR && len < (int)sizeof(line); i++)
		if (sum[i])
			len += snprintf(line + len, sizeof(line) - len,
					"%s %s in %d of %d ranks",
					n++ ? ";" : "", why_text[i], sum[i],
					glue.size);
	fprintf(stderr, "%s\n", line);
	return false;
}

/*
 * Every rank takes part in both collectives below, whatever it finds:
 * a rank that skipped them would hang the others.
 */
void glue_setup(void)
{
	enum why why = WHY_OFF;
	bool shm, cosched, helps;

	if (glue.ready)
		return;
	glue.ready = true;
	glue.owner = pthread_self();
	PMPI_Comm_rank(MPI_COMM_WORLD, &glue.rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &glue.size);
	glue.verbose = env_num("COSCHED_MPI_VERBOSE", 0) != 0;
	glue.job = agree_job();
	shm = glue_local_shm();		/* collective: every rank */
	if (env_num("COSCHED_MPI", 1) != 0)
		why = open_endpoint();
	if (why == WHY_OK && shm) {
		drop_endpoint();
		why = WHY_SHM;
	}
	/* coll.c's note on each communicator: is it all in this job? */
	if (why == WHY_OK &&
	    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
				    MPI_COMM_NULL_DELETE_FN, &glue.keyval,
				    NULL) != MPI_SUCCESS)
		why = WHY_ENDPOINT;
	/*
	 * A job that starts where the glue cannot help (local, polling, on
	 * every node) keeps MPI's blocking collectives for its life: their
	 * form cannot follow a later change of policy, which no other rank
	 * would see at the same call.  Its point-to-point calls do follow.
	 */
	cosched = agree(why, &helps);
	glue.coll_nb = cosched && helps;
	if (!cosched)
		drop_endpoint();
}

int glue_Init(int *argc, char ***argv)
{
	int rc = PMPI_Init(argc, argv);

	if (rc == MPI_SUCCESS)
		glue_setup();
	return rc;
}

int glue_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int rc = PMPI_Init_thread(argc, argv, required, provided);

	if (rc == MPI_SUCCESS)
		glue_setup();
	return rc;
}

static void say_stats(void)
{
	struct cosched_ep_stats st = { 0 };
	struct glue_socks_stats socks;

	cosched_stats(glue.ep, &st);
	glue_socks_get_stats(&socks);
	fprintf(stderr,
		"cosched-mpi: rank %d job %llu waits %llu cosched_waits %llu spin_hits %llu blocks %llu yields %llu fallbacks %llu sockets %llu sockets_full %llu sockets_failed %llu sockets_parked %llu module_arrivals %llu module_blocks %llu module_wakeups %llu coll_nb %d plain_calls %llu missed_wakeups %llu\n",
		glue.rank, (unsigned long long)glue.job,
		(unsigned long long)glue.waits,
		(unsigned long long)glue.cosched_waits,
		(unsigned long long)st.spin_hits,
		(unsigned long long)st.blocks,
		(unsigned long long)st.yields,
		(unsigned long long)glue.fallbacks,
		(unsigned long long)socks.registered,
		(unsigned long long)socks.full,
		(unsigned long long)socks.failed,
		(unsigned long long)socks.parked,
		(unsigned long long)st.module.arrivals,
		(unsigned long long)st.module.blocks,
		(unsigned long long)st.module.wakeups, glue.coll_nb,
		(unsigned long long)glue.plain_calls,
		(unsigned long long)cosched_missed_wakeups(glue.ep));
}

/*
 * The intercepted calls by name, in every mode: is the glue there?  One
 * write, so that the ranks' lines do not interleave.
 */
static void say_calls(void)
{
	char line[2048];
	int i, n;

	n = snprintf(line, sizeof(line), "cosched-mpi: calls of rank %d:",
		     glue.rank);
	for (i = 0; i < GC_NR && n < (int)sizeof(line); i++)
		if (glue_calls[i])
			n += snprintf(line + n, sizeof(line) - n, " %s %llu",
				      glue_call_name[i],
				      (unsigned long long)glue_calls[i]);
	if (glue.mpi_internal && n < (int)sizeof(line))
		snprintf(line + n, sizeof(line) - n, " mpi-internal %llu",
			 (unsigned long long)glue.mpi_internal);
	fprintf(stderr, "%s\n", line);
}

/*
 * Before MPI closes its sockets: registered ones would linger ~1 s.
 * Open MPI's Fortran MPI_Finalize comes here twice: the glue's Fortran
 * entry, then libmpi_mpifh's call of PMPI_Finalize.
 */
void glue_finalize(void)
{
	if (glue.finalized)
		return;
	glue.finalized = true;
	if (glue.verbose)
		say_calls();
	if (glue.ep && glue.verbose)
		say_stats();
	drop_endpoint();
}

int glue_Finalize(void)
{
	glue_finalize();
	return PMPI_Finalize();
}
