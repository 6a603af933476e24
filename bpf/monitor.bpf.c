// SPDX-License-Identifier: GPL-2.0
/*
 * monitor.bpf.c - the scheduling monitor's kernel half.
 *
 * One program on sched_switch.  For threads of tracked jobs it keeps, per
 * thread and per CPU, on-CPU time and switches, and off-CPU time split by
 * why the thread left (blocked vs preempted).  Per job it counts the ranks
 * (processes) that have a thread on a CPU and accumulates the time during
 * which all of them did: the coscheduling degree's numerator.
 *
 * A job is a set of processes the user tool puts in `ranks`, or every
 * process found under a cgroup (v2) in `cgroup_jobs`, added to `ranks` the
 * first time one of its threads switches.  Nothing here depends on the
 * cosched module.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "monitor.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * Set by the tool before load: whether to walk cgroups at all.  Explicitly
 * initialised so that it lands in .rodata, where the verifier sees its
 * value and drops the walk when it is off.
 */
const volatile bool have_cgroups = false;

/* Written by the tool through the mmap'ed .bss. */
__u64 attach_ns;			/* just before attaching */
__u32 job_nranks[MON_MAX_JOBS];		/* ranks that make a job "full" */

/*
 * The tracked thread each CPU last switched to (0: none), written only by
 * that CPU's own sched_switch.
 */
__u32 cpu_cur[MON_MAX_CPUS];

/* Read by the tool: records the maps had no room for. */
__u64 dropped_tasks;
__u64 dropped_ranks;
/*
 * Switches of tracked threads the tracepoint never showed (a switch in
 * seen only by its switch out, a switch out seen only by the next one):
 * the degree misses such a rank's time until its next traced switch in.
 */
__u64 missed_switches;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MON_MAX_TASKS);
	__type(key, __u32);
	__type(value, struct mon_task);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MON_MAX_RANKS);
	__type(key, __u32);
	__type(value, struct mon_rank);
} ranks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MON_MAX_JOBS);
	__type(key, __u32);
	__type(value, struct mon_job);
} jobs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MON_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, __u32);
} cgroup_jobs SEC(".maps");

/*
 * Zeroes for a new mon_task: it is too big for the BPF stack, and the
 * verifier will not let a helper read a value that holds a lock, so the
 * template is plain bytes of the same size.
 */
struct task_blank {
	__u8 bytes[sizeof(struct mon_task)];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct task_blank);
} task_zero SEC(".maps");

/*
 * An array index the verifier can see is in bounds.  After a range check
 * the compiler drops a mask as redundant, and 6.1's verifier loses the
 * range when the index is spilled as 32 bits: the empty asm hides the
 * value so the mask stays, right where the index is used.
 */
static __always_inline __u64 bounded(__u64 i, __u64 size)
{
	asm volatile("" : "+r"(i));
	return i & (size - 1);
}

/*
 * The job cgroup of a process not yet in `ranks`: its cgroup v2 or one of
 * its ancestors.  Ancestors count so that a job cgroup with per-step or
 * per-task children (as Slurm makes) is still one job.  cgroup->self.parent
 * is used rather than kernfs_node's parent, which 6.14 renamed.
 */
static struct mon_rank *rank_from_cgroup(struct task_struct *p, __u32 tgid)
{
	struct cgroup *cgrp = BPF_CORE_READ(p, cgroups, dfl_cgrp);
	struct mon_rank r = {};
	__u32 *job;
	__u64 id;
	int i;

	for (i = 0; i < MON_CGROUP_DEPTH && cgrp; i++) {
		id = BPF_CORE_READ(cgrp, kn, id);
		job = bpf_map_lookup_elem(&cgroup_jobs, &id);
		if (job) {
			r.job = *job;
			if (bpf_map_update_elem(&ranks, &tgid, &r, BPF_NOEXIST) &&
			    !bpf_map_lookup_elem(&ranks, &tgid))
				__sync_fetch_and_add(&dropped_ranks, 1);
			return bpf_map_lookup_elem(&ranks, &tgid);
		}
		cgrp = (struct cgroup *)BPF_CORE_READ(cgrp, self.parent);
	}
	return NULL;
}

/*
 * prev and next are trusted BTF pointers: their fields are plain loads
 * (CO-RE-relocated), cheaper than BPF_CORE_READ's helper call on a path
 * every context switch of the machine takes.  The cgroup walk above
 * follows pointers the verifier does not trust, hence BPF_CORE_READ there.
 */
static struct mon_rank *rank_of(struct task_struct *p)
{
	__u32 tgid = p->tgid;
	struct mon_rank *r;

	if (!tgid)	/* the idle tasks */
		return NULL;
	r = bpf_map_lookup_elem(&ranks, &tgid);
	if (r || !have_cgroups)
		return r;
	return rank_from_cgroup(p, tgid);
}

static struct mon_task *task_get(struct task_struct *p, struct mon_rank *r)
{
	__u32 tid = p->pid;
	struct mon_task *t = bpf_map_lookup_elem(&tasks, &tid);
	__u32 zero = 0;
	void *init;

	if (t)
		return t;
	init = bpf_map_lookup_elem(&task_zero, &zero);
	if (!init)
		return NULL;
	/*
	 * No race to create it: one thread switches on one CPU at a time.
	 * Failing means the map is full.
	 */
	bpf_map_update_elem(&tasks, &tid, init, BPF_NOEXIST);
	t = bpf_map_lookup_elem(&tasks, &tid);
	if (!t) {
		__sync_fetch_and_add(&dropped_tasks, 1);
		return NULL;
	}
	t->job = r->job;
	t->tgid = p->tgid;
	return t;
}

/*
 * A rank's on-CPU state changed: fold it into the job's count and open or
 * close a coscheduled period.  Timestamps come from several CPUs and are
 * taken before the lock, so a closing one may precede the opening one by
 * a hair: clamp rather than wrap.
 */
static void job_step(__u32 job, int delta, __u64 now)
{
	struct mon_job *j;
	__u32 n, full;

	if (job >= MON_MAX_JOBS)
		return;
	n = job_nranks[bounded(job, MON_MAX_JOBS)];
	j = bpf_map_lookup_elem(&jobs, &job);
	if (!j)
		return;
	bpf_spin_lock(&j->lock);
	if (delta > 0)
		j->ranks_on++;
	else if (j->ranks_on)
		j->ranks_on--;
	full = n && j->ranks_on >= n;
	if (j->full && !full && now > j->since)
		j->all_on_ns += now - j->since;
	else if (!j->full && full)
		j->since = now;
	j->full = full;
	bpf_spin_unlock(&j->lock);
}

/* A thread of rank r came on (+1) or went off (-1) a CPU. */
static void rank_step(struct mon_rank *r, int delta, __u64 now)
{
	int old = __sync_fetch_and_add(&r->threads_on, delta);

	if ((delta > 0 && old == 0) || (delta < 0 && old == 1))
		job_step(r->job, delta, now);
}

/*
 * Why prev left.  The tracepoint's prev_state argument (5.18+, so in both
 * 6.1 and 6.12) is the state __schedule() acted on, unlike prev->__state,
 * which a concurrent wake-up may already have reset.  A preemption leaves
 * the task runnable whatever its state said (it may have been preempted
 * while preparing to sleep); only a voluntary switch with a sleeping state
 * dequeues it.  TASK_DEAD (0x80) is the exit path's last switch.
 */
static __u32 off_state(bool preempt, unsigned int prev_state)
{
	if (preempt || !prev_state)
		return MON_OFF_PREEMPTED;
	if (prev_state & 0x80)
		return MON_OFF_EXITED;
	return MON_OFF_BLOCKED;
}

/*
 * Off-CPU time, by why it left, on the CPU it left.  Called with the lock
 * held, where 6.1's verifier allows no calls: inlined.
 */
static __always_inline void add_off(struct mon_task *t, __u64 d)
{
	__u64 last = bounded(t->cpu, MON_MAX_CPUS);

	if (t->off_state == MON_OFF_BLOCKED)
		t->blocked_ns[last] += d;
	else if (t->off_state == MON_OFF_PREEMPTED)
		t->preempted_ns[last] += d;
}

/*
 * On-CPU time comes from the scheduler's own se.sum_exec_runtime (updated
 * for prev before this tracepoint), not from our switch-in timestamp:
 * some switches never reach the tracepoint (seen on the 6.18 host, where a
 * host agent's thread switches out untraced), and a missed switch-in must
 * not turn into a wrong on-CPU time.  When one was missed, the task ran
 * `ran` ns up to now, so its off-CPU stretch ended then.
 */
static void switch_out(struct task_struct *p, struct mon_rank *r, __u32 cpu,
		       __u64 now, __u32 why)
{
	struct mon_task *t = task_get(p, r);
	__u64 sum = p->se.sum_exec_runtime;
	__u64 c = bounded(cpu, MON_MAX_CPUS);
	__u64 ran = 0;
	bool counted;

	if (!t)
		return;
	bpf_spin_lock(&t->lock);
	counted = t->on_since != 0;
	if (!counted && t->last_sum)
		__sync_fetch_and_add(&missed_switches, 1);
	if (t->last_sum && sum >= t->last_sum) {
		ran = sum - t->last_sum;
		if (!counted && t->off_since && now - ran > t->off_since)
			add_off(t, now - ran - t->off_since);
	} else if (now > attach_ns) {
		/* First seen going off: it was here when we attached. */
		ran = now - attach_ns;
		if (ran > sum)
			ran = sum;
	}
	t->on_ns[c] += ran;
	t->switches[c]++;
	t->last_sum = sum;
	t->on_since = 0;
	t->off_since = now;
	t->off_state = why;
	t->cpu = c;
	bpf_spin_unlock(&t->lock);
	/* Only undo what switch_in counted, or ranks_on would drift low. */
	if (counted)
		rank_step(r, -1, now);
}

static bool switch_in(struct task_struct *p, struct mon_rank *r, __u32 cpu,
		      __u64 now)
{
	struct mon_task *t = task_get(p, r);
	__u64 sum = p->se.sum_exec_runtime;
	bool counted;

	if (!t)
		return false;
	bpf_spin_lock(&t->lock);
	counted = t->on_since != 0;
	if (t->off_since && now > t->off_since)
		add_off(t, now - t->off_since);
	t->off_since = 0;
	t->off_state = MON_OFF_NONE;
	t->on_since = now;
	t->last_sum = sum;
	t->cpu = cpu;
	bpf_spin_unlock(&t->lock);
	if (!counted)
		rank_step(r, 1, now);
	return true;
}

/*
 * This CPU last switched to tracked thread `tid`, and now switches away
 * from someone else: tid left untraced.  Its on-CPU time still comes out
 * right at its next switch out (sum_exec_runtime); only its open interval
 * and its rank's count would stay wrong until then, so end those.  Unless
 * it has since been switched in elsewhere.
 */
static void forget(__u32 tid, __u32 cpu, __u64 now)
{
	struct mon_task *t = bpf_map_lookup_elem(&tasks, &tid);
	bool counted = false;
	struct mon_rank *r;
	__u32 tgid;

	if (!t)
		return;
	bpf_spin_lock(&t->lock);
	if (t->cpu == cpu) {
		counted = t->on_since != 0;
		t->on_since = 0;
	}
	tgid = t->tgid;
	bpf_spin_unlock(&t->lock);
	if (counted)
		__sync_fetch_and_add(&missed_switches, 1);
	r = counted ? bpf_map_lookup_elem(&ranks, &tgid) : NULL;
	if (r)
		rank_step(r, -1, now);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(mon_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	__u32 cpu = bpf_get_smp_processor_id(), cur, prev_tid;
	__u64 now = bpf_ktime_get_ns();
	struct mon_rank *r;

	/* CPUs past the arrays are not monitored (the tool warns). */
	if (cpu >= MON_MAX_CPUS)
		return 0;
	cur = cpu_cur[bounded(cpu, MON_MAX_CPUS)];
	prev_tid = prev->pid;
	if (cur && cur != prev_tid)
		forget(cur, cpu, now);
	r = rank_of(prev);
	if (r)
		switch_out(prev, r, cpu, now, off_state(preempt, prev_state));
	cpu_cur[bounded(cpu, MON_MAX_CPUS)] = 0;
	r = rank_of(next);
	if (r && switch_in(next, r, cpu, now))
		cpu_cur[bounded(cpu, MON_MAX_CPUS)] = next->pid;
	return 0;
}
