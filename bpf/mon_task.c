// SPDX-License-Identifier: GPL-2.0
/*
 * mon_task.c - one thread's record, as of a given moment, added to a
 * snapshot (mon_sample.c reads the records; tests/bpf/task_test.c checks
 * this part alone).
 */
#include <stdio.h>
#include "mon.h"

__u64 mon_since(__u64 now, __u64 t)
{
	return now > t ? now - t : 0;
}

/*
 * The thread's se.sum_exec_runtime now (the first field of its
 * schedstat; a running thread's may lag by up to a tick), or 0 if it is
 * gone or the kernel has no schedstat.
 */
static __u64 runtime_now(__u32 tgid, __u32 tid)
{
	unsigned long long sum = 0;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/schedstat", tgid, tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &sum) != 1)
		sum = 0;
	fclose(f);
	return sum;
}

/*
 * Add a thread's counters, and its open interval up to `now`.  The time
 * it ran since its last traced switch comes from the scheduler's runtime,
 * as the BPF side's next switch out will count it, not from whether the
 * record says it is on a CPU: a switch in the tracepoint never showed
 * would otherwise count a running thread as off until that switch out,
 * which then folds all of it into one interval (shares of 1.18 on the
 * 6.18 host).  The rest of an open off-CPU stretch is off time.
 */
void mon_add_task(struct mon_snap *s, const struct mon_task *t, __u32 tid,
		  __u64 now)
{
	__u32 j = t->job, c = t->cpu;
	__u64 sum, ran = 0, off;
	int i;

	for (i = 0; i < MON_MAX_CPUS; i++) {
		s->on[j][i] += t->on_ns[i];
		s->blocked[j][i] += t->blocked_ns[i];
		s->preempted[j][i] += t->preempted_ns[i];
		s->switches[j][i] += t->switches[i];
	}
	if (c >= MON_MAX_CPUS)
		return;
	sum = t->last_sum ? runtime_now(t->tgid, tid) : 0;
	if (sum >= t->last_sum && sum)
		ran = sum - t->last_sum;
	else if (t->on_since)
		ran = mon_since(now, t->on_since);
	s->on[j][c] += ran;
	if (!t->off_since)
		return;
	off = mon_since(now, t->off_since);
	off = off > ran ? off - ran : 0;
	if (t->off_state == MON_OFF_BLOCKED)
		s->blocked[j][c] += off;
	else if (t->off_state == MON_OFF_PREEMPTED)
		s->preempted[j][c] += off;
}

