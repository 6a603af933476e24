// SPDX-License-Identifier: GPL-2.0
/*
 * mon_jobs.c - what a job is for the monitor: a list of pids (--job) or a
 * cgroup v2 directory (--cgroup); registering them in the BPF maps, and
 * seeding the threads that are already asleep so that their first
 * off-CPU stretch is not lost.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include "mon.h"
#include "monitor.skel.h"

__u64 mon_now_ns(void)
{
	struct timespec ts;

	/* The clock bpf_ktime_get_ns() reads. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* NAME=REST: a name that stays one CSV field, and the rest. */
static struct mon_jobdef *new_job(struct mon_jobs *jobs, const char *spec,
				  const char **rest)
{
	const char *eq = strchr(spec, '=');
	struct mon_jobdef *j;
	size_t len;

	if (!eq || eq == spec || !eq[1]) {
		fprintf(stderr, "expected NAME=..., got '%s'\n", spec);
		return NULL;
	}
	len = eq - spec;
	if (len >= sizeof(j->name) || strcspn(spec, ",\" \t\n") < len) {
		fprintf(stderr, "job name '%.*s': at most 63 characters, no commas, quotes or spaces\n",
			(int)len, spec);
		return NULL;
	}
	if (jobs->n == MON_MAX_JOBS) {
		fprintf(stderr, "at most %d jobs\n", MON_MAX_JOBS);
		return NULL;
	}
	j = &jobs->job[jobs->n];
	memset(j, 0, sizeof(*j));
	memcpy(j->name, spec, len);
	*rest = eq + 1;
	return j;
}

int mon_jobs_add_pids(struct mon_jobs *jobs, const char *spec)
{
	struct mon_jobdef *j;
	const char *p;
	char *end;
	long pid;

	j = new_job(jobs, spec, &p);
	if (!j)
		return -1;
	j->pids = calloc(strlen(p) / 2 + 1, sizeof(*j->pids));
	if (!j->pids)
		return -1;
	for (;;) {
		errno = 0;
		pid = strtol(p, &end, 10);
		if (errno || end == p || pid <= 0 || (*end && *end != ',')) {
			fprintf(stderr, "job %s: bad pid list '%s'\n", j->name, p);
			return -1;
		}
		if (kill(pid, 0) && errno == ESRCH) {
			fprintf(stderr, "job %s: no process %ld\n", j->name, pid);
			return -1;
		}
		j->pids[j->npids++] = pid;
		if (!*end)
			break;
		p = end + 1;
	}
	j->nranks = j->npids;
	jobs->n++;
	return 0;
}

/* The id bpf sees as cgroup->kn->id is the cgroup v2 directory's handle. */
static int cgroup_id(const char *path, __u64 *id)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h = { .fh.handle_bytes = sizeof(__u64) };
	struct statfs sfs;
	int mnt;

	if (statfs(path, &sfs)) {
		perror(path);
		return -1;
	}
	if (sfs.f_type != CGROUP2_SUPER_MAGIC) {
		fprintf(stderr, "%s: not a cgroup v2 directory\n", path);
		return -1;
	}
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mnt, 0)) {
		perror("name_to_handle_at");
		return -1;
	}
	memcpy(id, h.fh.f_handle, sizeof(*id));
	return 0;
}

int mon_jobs_add_cgroup(struct mon_jobs *jobs, const char *spec)
{
	struct mon_jobdef *j;
	const char *path;

	j = new_job(jobs, spec, &path);
	if (!j)
		return -1;
	j->cgroup = strdup(path);
	if (!j->cgroup || cgroup_id(path, &j->cgid))
		return -1;
	jobs->n++;
	jobs->have_cgroups = true;
	return 0;
}

/*
 * Every process under a cgroup, subtree included (nftw has no user
 * pointer, hence the file-scope walk state).
 */
static struct {
	int *pids;
	int n, cap;
} walk;

static int walk_procs(const char *path, const struct stat *sb, int type,
		      struct FTW *ftw)
{
	char file[4096];
	FILE *f;
	int pid;

	(void)sb;
	(void)ftw;
	if (type != FTW_D)
		return 0;
	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	f = fopen(file, "r");
	if (!f)
		return 0;	/* removed under us */
	while (fscanf(f, "%d", &pid) == 1) {
		if (walk.n == walk.cap) {
			int cap = walk.cap ? 2 * walk.cap : 64;
			int *p = realloc(walk.pids, cap * sizeof(*p));

			if (!p)
				break;
			walk.pids = p;
			walk.cap = cap;
		}
		walk.pids[walk.n++] = pid;
	}
	fclose(f);
	return 0;
}

static int cgroup_procs(const char *path)
{
	walk.n = 0;
	nftw(path, walk_procs, 16, FTW_PHYS);
	return walk.n;
}

/*
 * A thread already asleep when the monitor starts would otherwise have
 * its off-CPU time counted only from its next switch out.  Record it as
 * blocked from now; if it is in fact running, its first switch out
 * (monitor.bpf.c) overrides this.  Runnable ('R') threads are left to the
 * CPU sync in cosched-monitor.c.
 */
static void seed_threads(int tasks_fd, int tgid, __u32 job)
{
	static struct mon_task t;
	char path[64], buf[512], *p;
	struct dirent *de;
	int tid, cpu, i;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		tid = atoi(de->d_name);
		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", tgid, tid);
		f = fopen(path, "r");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		if (!p || !strchr("SDIT", p[2]))
			continue;
		/* Field 39, "processor": 36 fields after the state. */
		for (i = 0, p += 2; p && i < 36; i++)
			p = strchr(p + 1, ' ');
		cpu = p ? atoi(p + 1) : 0;
		memset(&t, 0, sizeof(t));
		t.job = job;
		t.tgid = tgid;
		t.cpu = cpu < MON_MAX_CPUS ? cpu : 0;
		t.off_state = MON_OFF_BLOCKED;
		t.off_since = mon_now_ns();
		bpf_map_update_elem(tasks_fd, &tid, &t, BPF_NOEXIST);
	}
	closedir(d);
}

static int add_rank(struct monitor_bpf *skel, int tgid, __u32 job)
{
	struct mon_rank r = { .job = job };

	if (bpf_map_update_elem(bpf_map__fd(skel->maps.ranks), &tgid, &r,
				BPF_NOEXIST) && errno != EEXIST) {
		fprintf(stderr, "rank %d: %s\n", tgid, strerror(errno));
		return -1;
	}
	seed_threads(bpf_map__fd(skel->maps.tasks), tgid, job);
	return 0;
}

/* After load, before attach: fill ranks, cgroup_jobs and job_nranks. */
int mon_jobs_register(struct mon_jobs *jobs, struct monitor_bpf *skel)
{
	int cg_fd = bpf_map__fd(skel->maps.cgroup_jobs);
	__u32 i;
	int k;

	for (i = 0; i < (__u32)jobs->n; i++) {
		struct mon_jobdef *j = &jobs->job[i];

		for (k = 0; k < j->npids; k++)
			if (add_rank(skel, j->pids[k], i))
				return -1;
		if (j->cgroup) {
			if (bpf_map_update_elem(cg_fd, &j->cgid, &i, BPF_ANY)) {
				perror("cgroup_jobs");
				return -1;
			}
			j->nranks = cgroup_procs(j->cgroup);
			for (k = 0; k < walk.n; k++)
				add_rank(skel, walk.pids[k], i);
		}
		skel->bss->job_nranks[i] = j->nranks;
	}
	return 0;
}

/* A cgroup job's rank count is however many processes it has now. */
void mon_jobs_refresh(struct mon_jobs *jobs, struct monitor_bpf *skel)
{
	int i;

	for (i = 0; i < jobs->n; i++) {
		struct mon_jobdef *j = &jobs->job[i];

		if (!j->cgroup)
			continue;
		j->nranks = cgroup_procs(j->cgroup);
		skel->bss->job_nranks[i] = j->nranks;
	}
}
