/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mon.h - the user half of the scheduling monitor: jobs (mon_jobs.c),
 * snapshots of the BPF counters (mon_sample.c), CSV and live output
 * (mon_output.c), tied together by cosched-monitor.c.
 */
#ifndef COSCHED_MON_H
#define COSCHED_MON_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/bpf.h>
#include "monitor.h"

struct monitor_bpf;

struct mon_jobdef {
	char name[64];
	int *pids;		/* --job: the ranks' pids */
	int npids;
	char *cgroup;		/* --cgroup: a cgroup v2 directory */
	__u64 cgid;
	__u32 nranks;		/* what makes the job "full" */
};

struct mon_jobs {
	struct mon_jobdef job[MON_MAX_JOBS];
	int n;
	bool have_cgroups;
};

/* Cumulative counters since attach, open intervals included. */
struct mon_snap {
	__u64 t_ns;					/* CLOCK_MONOTONIC */
	__u64 on[MON_MAX_JOBS][MON_MAX_CPUS];
	__u64 blocked[MON_MAX_JOBS][MON_MAX_CPUS];
	__u64 preempted[MON_MAX_JOBS][MON_MAX_CPUS];
	__u64 switches[MON_MAX_JOBS][MON_MAX_CPUS];
	__u64 all_on[MON_MAX_JOBS];
};

struct mon_cpus {
	int id[MON_MAX_CPUS];	/* online CPUs the monitor can count */
	int n;
};

__u64 mon_now_ns(void);

int mon_jobs_add_pids(struct mon_jobs *jobs, const char *spec);
int mon_jobs_add_cgroup(struct mon_jobs *jobs, const char *spec);
int mon_jobs_register(struct mon_jobs *jobs, struct monitor_bpf *skel);
void mon_jobs_refresh(struct mon_jobs *jobs, struct monitor_bpf *skel);

/* How many times mon_sample() reads a snapshot that took too long. */
#define MON_SAMPLE_TRIES	5

/* now - t, or 0 if t is later (timestamps from different CPUs). */
__u64 mon_since(__u64 now, __u64 t);
void mon_add_task(struct mon_snap *s, const struct mon_task *t, __u32 tid,
		  __u64 now);
int mon_sample(struct monitor_bpf *skel, int njobs, struct mon_snap *s,
	       __u64 slack_ns);
void mon_delta(const struct mon_snap *cur, const struct mon_snap *prev,
	       struct mon_snap *d);

void mon_csv_header(FILE *f);
void mon_csv_rows(FILE *f, double t, const struct mon_snap *d,
		  const struct mon_jobs *jobs, const struct mon_cpus *cpus);
void mon_live(FILE *f, double t, const struct mon_snap *d,
	      const struct mon_jobs *jobs, const struct mon_cpus *cpus);

#endif /* COSCHED_MON_H */
