// SPDX-License-Identifier: GPL-2.0
/*
 * cosched_spank.c - srun --cosched[=MODE]: run a step's tasks under
 * cosched's MPI glue (Documentation/cluster.rst, "Slurm").
 *
 * In each task, just before exec: LD_PRELOAD gets the glue of the job's
 * MPI appended (the user's own preloads stay first), COSCHED_RECV_MODE
 * the mode, COSCHED_JOB the step's id (job << 32 | step, as the glue's
 * rank.c derives it), and MPI's transport is steered to TCP, where the
 * module sees arrivals, unless the user chose one.  MPICH tasks also get
 * libcosched-ucx-finalize.so before the glue, and alone with an explicit
 * --cosched=off, as cosched-run does (COSCHED_UCX_FINALIZE=0 in the job's
 * environment: not).  The node's policy stays the admin's: nothing here
 * touches sysfs.
 *
 * plugstack.conf:  required PATH/cosched_spank.so [glue_dir=DIR]
 *                  [mpi=openmpi|mpich] [default=MODE|off]
 * glue_dir: where libcosched-mpi-{openmpi,mpich}.so and
 * libcosched-ucx-finalize.so are (default the
 * cosched-mpi package's); mpi: which glue, unless the job's environment
 * has COSCHED_MPI_IMPL; default: the mode of jobs that do not say
 * (off: only --cosched jobs; --cosched=off opts a job out).
 */
#include <slurm/spank.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cosched_env.h"

SPANK_PLUGIN(cosched, 1);

#define DEF_GLUE_DIR "/usr/lib/x86_64-linux-gnu/cosched"

static const char *mode;	/* NULL: no glue */
static int off_asked;		/* --cosched=off given: cosched-run -N */
static char glue_dir[512] = DEF_GLUE_DIR;
static char mpi[16] = "openmpi";

static int opt_cosched(int val, const char *arg, int remote)
{
	(void)val;
	(void)remote;
	if (cosched_mode_parse(arg, &mode)) {
		slurm_error("cosched: --cosched=%s: the mode is policy, poll, block, yield or off",
			    arg);
		return -1;
	}
	off_asked = !mode;
	return 0;
}

static struct spank_option cosched_opt = {
	"cosched", "[mode]",
	"run the tasks under cosched's MPI glue; mode: policy (default), poll, block, yield, or off",
	2, 0, opt_cosched
};

static int copy_arg(char *dst, size_t len, const char *arg, const char *key)
{
	size_t k = strlen(key);

	if (strncmp(arg, key, k) || arg[k] != '=')
		return 0;
	if (snprintf(dst, len, "%s", arg + k + 1) >= (int)len)
		return -1;
	return 1;
}

static int parse_args(int ac, char **av)
{
	int i, rc;

	for (i = 0; i < ac; i++) {
		rc = copy_arg(glue_dir, sizeof(glue_dir), av[i], "glue_dir");
		if (!rc)
			rc = copy_arg(mpi, sizeof(mpi), av[i], "mpi");
		if (!rc && !strncmp(av[i], "default=", 8))
			rc = cosched_mode_parse(av[i] + 8, &mode) ? -1 : 1;
		if (rc <= 0 || cosched_mpi_parse(mpi)) {
			slurm_error("cosched: plugstack.conf argument '%s': glue_dir=DIR, mpi=openmpi|mpich or default=MODE|off",
				    av[i]);
			return -1;
		}
	}
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	if (parse_args(ac, av))
		return -1;
	return spank_option_register(sp, &cosched_opt) == ESPANK_SUCCESS ? 0 : -1;
}

/* Set var in the task unless the job's environment has it (keep=1). */
static int set(spank_t sp, const char *var, const char *val, int keep)
{
	spank_err_t e = spank_setenv(sp, var, val, !keep);

	if (e == ESPANK_SUCCESS || (keep && e == ESPANK_ENV_EXISTS))
		return 0;
	slurm_error("cosched: cannot set %s: %s", var, spank_strerror(e));
	return -1;
}

/* dir/name in buf, which must be readable. */
static int lib_path(char *buf, size_t len, const char *name, const char *hint)
{
	if (snprintf(buf, len, "%s/%s", glue_dir, name) >= (int)len ||
	    access(buf, R_OK)) {
		slurm_error("cosched: %s/%s missing (%s)", glue_dir, name, hint);
		return -1;
	}
	return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	char impl[16], fin[8], old[4096], pre[4096 + 1200], id[24];
	char glue[600], fix[600], name[64];
	uint32_t job = 0, step = 0;
	int libs;

	(void)ac;
	(void)av;
	if (!mode && !off_asked)
		return 0;
	if (spank_getenv(sp, "COSCHED_MPI_IMPL", impl, sizeof(impl)) != ESPANK_SUCCESS)
		snprintf(impl, sizeof(impl), "%s", mpi);
	if (cosched_mpi_parse(impl)) {
		if (!mode)
			return 0;	/* --cosched=off: no MPI of ours, nothing */
		slurm_error("cosched: COSCHED_MPI_IMPL=%s: openmpi or mpich", impl);
		return -1;
	}
	libs = cosched_libs(mode, off_asked, impl,
			    spank_getenv(sp, "COSCHED_UCX_FINALIZE", fin, sizeof(fin)) ==
			    ESPANK_SUCCESS ? fin : NULL);
	if (!libs)
		return 0;
	snprintf(name, sizeof(name), "libcosched-mpi-%s.so", impl);
	if ((libs & COSCHED_GLUE) &&
	    lib_path(glue, sizeof(glue), name, "plugstack.conf glue_dir="))
		return -1;
	/*
	 * MPICH 4.0.2 over UCX can hang in MPI_Finalize, glue or not
	 * (mpi-glue/ucx_finalize.c); before the glue, which stays last.
	 */
	if ((libs & COSCHED_FIX) &&
	    lib_path(fix, sizeof(fix), "libcosched-ucx-finalize.so",
		     "plugstack.conf glue_dir=, or COSCHED_UCX_FINALIZE=0"))
		return -1;
	if (spank_getenv(sp, "LD_PRELOAD", old, sizeof(old)) != ESPANK_SUCCESS)
		old[0] = '\0';
	if (cosched_preload(pre, sizeof(pre), old, libs & COSCHED_FIX ? fix : NULL,
			    libs & COSCHED_GLUE ? glue : NULL)) {
		slurm_error("cosched: LD_PRELOAD too long");
		return -1;
	}
	if (!mode)	/* --cosched=off, MPICH: the fix alone, as cosched-run -N */
		return set(sp, "LD_PRELOAD", pre, 0);
	if (spank_get_item(sp, S_JOB_ID, &job) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS) {
		slurm_error("cosched: no job or step id");
		return -1;
	}
	snprintf(id, sizeof(id), "%" PRIu64, cosched_job_id(job, step));
	/* cosched-run -l srun's transport: TCP between all ranks. */
	return set(sp, "LD_PRELOAD", pre, 0) ||
	       set(sp, "COSCHED_RECV_MODE", mode, 0) ||
	       set(sp, "COSCHED_JOB", id, 1) ||
	       set(sp, "OMPI_MCA_pml", "ob1", 1) ||
	       set(sp, "OMPI_MCA_btl", "tcp,self", 1) ||
	       set(sp, "MPIR_CVAR_NOLOCAL", "1", 1) ||
	       set(sp, "UCX_TLS", "tcp", 1) ? -1 : 0;
}
