/* SPDX-License-Identifier: GPL-2.0 */
/*
 * monitor.h - what monitor.bpf.c and cosched-monitor share: map value
 * layouts and limits.  Included by the BPF side after vmlinux.h and by the
 * user side after <linux/bpf.h>, so it only uses __u32/__u64 and
 * struct bpf_spin_lock, which both provide.
 */
#ifndef COSCHED_MONITOR_H
#define COSCHED_MONITOR_H

/* Powers of two: the BPF side masks indexes with them for the verifier. */
#define MON_MAX_CPUS		64
#define MON_MAX_JOBS		32
#define MON_MAX_TASKS		1024	/* threads of tracked jobs */
#define MON_MAX_RANKS		1024	/* processes (tgids) of tracked jobs */
#define MON_MAX_CGROUPS		64
#define MON_CGROUP_DEPTH	8	/* ancestors searched for a job cgroup */

/* Why a tracked thread is off a CPU (the switch that took it off says). */
enum mon_off_state {
	MON_OFF_NONE,		/* on a CPU, or never seen */
	MON_OFF_BLOCKED,	/* went to sleep: prev_state != TASK_RUNNING */
	MON_OFF_PREEMPTED,	/* still runnable: preempted or yielded */
	MON_OFF_EXITED,		/* its last switch: off-CPU time stops here */
};

/*
 * One per thread (key: tid).  Cumulative since the monitor attached; the
 * open interval (on_since or off_since up to "now") is added by whoever
 * reads it.  The lock makes the user's BPF_F_LOCK lookup a consistent
 * snapshot of all fields at once.
 */
struct mon_task {
	struct bpf_spin_lock lock;
	__u32 job;
	__u32 tgid;
	__u32 cpu;		/* CPU it runs on, or last left */
	__u32 off_state;	/* enum mon_off_state */
	__u64 on_since;		/* ns; 0 = not known to be on a CPU */
	__u64 off_since;	/* ns; 0 = no open off-CPU interval */
	__u64 last_sum;		/* se.sum_exec_runtime at its last switch */
	__u64 on_ns[MON_MAX_CPUS];
	__u64 blocked_ns[MON_MAX_CPUS];		/* by the CPU it left */
	__u64 preempted_ns[MON_MAX_CPUS];	/* by the CPU it left */
	__u64 switches[MON_MAX_CPUS];		/* times switched out there */
};

/* One per process (key: tgid): a rank is on a CPU if any thread is. */
struct mon_rank {
	__u32 job;
	__s32 threads_on;
};

/*
 * One per job (key: job index).  ranks_on counts ranks with a thread on a
 * CPU; while it reaches the job's rank count the job is "full" and the
 * time since `since` is coscheduled time, folded into all_on_ns when it
 * ends.
 */
struct mon_job {
	struct bpf_spin_lock lock;
	__u32 ranks_on;
	__u32 full;
	__u64 since;
	__u64 all_on_ns;
};

#endif /* COSCHED_MONITOR_H */
