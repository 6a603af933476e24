// SPDX-License-Identifier: GPL-2.0
/*
 * mon_sample.c - turn the BPF maps into cumulative per-(job, CPU) counters.
 *
 * The BPF side only folds an interval in when it ends (a switch), so a
 * thread that has been running or asleep for seconds would show nothing
 * and then a burst.  Each snapshot therefore adds every open interval up
 * to the moment it read that record; BPF_F_LOCK makes each record one
 * consistent copy, so the sums never go backwards and the difference of
 * two snapshots is what happened between them.
 */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include "mon.h"
#include "monitor.skel.h"

static int sample_once(struct monitor_bpf *skel, int njobs, struct mon_snap *s,
		       __u64 *took)
{
	int tasks_fd = bpf_map__fd(skel->maps.tasks);
	int jobs_fd = bpf_map__fd(skel->maps.jobs);
	static struct mon_task t;
	__u32 key, next, j;
	struct mon_job job;
	__u64 start, now;
	int err;

	memset(s, 0, sizeof(*s));
	start = now = mon_now_ns();
	for (err = bpf_map_get_next_key(tasks_fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(tasks_fd, &key, &next)) {
		key = next;
		if (bpf_map_lookup_elem_flags(tasks_fd, &key, &t, BPF_F_LOCK))
			continue;
		/* After the copy, so no timestamp in it is later. */
		now = mon_now_ns();
		if (t.job < (__u32)njobs)
			mon_add_task(s, &t, key, now);
	}
	if (errno != ENOENT)
		return -errno;
	for (j = 0; j < (__u32)njobs; j++) {
		if (bpf_map_lookup_elem_flags(jobs_fd, &j, &job, BPF_F_LOCK))
			return -errno;
		now = mon_now_ns();
		s->all_on[j] = job.all_on_ns;
		if (job.full)
			s->all_on[j] += mon_since(now, job.since);
	}
	/* Records are read one by one: the snapshot is of the middle. */
	s->t_ns = start + (now - start) / 2;
	*took = now - start;
	return 0;
}

/*
 * Each record is exact when read, but the snapshot spans the whole read:
 * a monitor preempted half-way (its CPUs are busy with the very jobs it
 * watches; a VM's vCPU can stall for many ms) would count up to that much
 * time twice or never, and an interval would show a share above 1.  So a
 * snapshot that took longer than `slack_ns` is read again, a few times,
 * and the quickest one kept.
 */
int mon_sample(struct monitor_bpf *skel, int njobs, struct mon_snap *s,
	       __u64 slack_ns)
{
	static struct mon_snap again;
	__u64 took, best;
	int err, tries;

	err = sample_once(skel, njobs, s, &best);
	for (tries = 1; !err && best > slack_ns && tries < MON_SAMPLE_TRIES;
	     tries++) {
		err = sample_once(skel, njobs, &again, &took);
		if (!err && took < best) {
			*s = again;
			best = took;
		}
	}
	return err;
}

/* cur - prev, cell by cell; never below zero. */
void mon_delta(const struct mon_snap *cur, const struct mon_snap *prev,
	       struct mon_snap *d)
{
	const __u64 *a = (const __u64 *)cur, *b = (const __u64 *)prev;
	__u64 *out = (__u64 *)d;
	size_t i;

	for (i = 0; i < sizeof(*d) / sizeof(__u64); i++)
		out[i] = a[i] > b[i] ? a[i] - b[i] : 0;
}
