// SPDX-License-Identifier: GPL-2.0
/*
 * Exact on-CPU state of every endpoint's owner, kept by a probe on the
 * scheduler's sched_switch tracepoint and published in the control page.
 *
 * sched_switch is not exported to modules by name, so the probe is
 * attached through for_each_kernel_tracepoint() and
 * tracepoint_probe_register(), both exported.  The probe runs with the
 * runqueue lock held: it only writes memory, takes acct_lock and starts
 * an hrtimer (cosched_preempted()), never anything that can wake a task.
 */
#include <linux/hash.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/ktime.h>
#include <linux/tracepoint.h>

#include "cosched.h"

static DEFINE_HASHTABLE(cosched_owners, 8);
static atomic_t cosched_nr_tracked = ATOMIC_INIT(0);
static struct tracepoint *cosched_tp_switch;

static void cosched_oncpu_update(struct task_struct *p, bool on,
				 bool runnable, int cpu, u64 now)
{
	struct cosched_ep *ep;

	hash_for_each_possible_rcu_notrace(cosched_owners, ep, task_node,
					   (unsigned long)p) {
		if (ep->owner != p)
			continue;
		raw_spin_lock(&ep->acct_lock);
		if (on) {
			ep->acct_since_ns = now;
			WRITE_ONCE(ep->woken, false);
			WRITE_ONCE(ep->ctrl->cpu, cpu);
		} else if (ep->acct_boosted) {
			u64 delta = now - ep->acct_since_ns;

			atomic64_add(delta, &ep->job->window_used_ns);
			cosched_count(ep, COSCHED_CNT_BOOSTED_NS, delta);
		}
		ep->acct_on_cpu = on;
		WRITE_ONCE(ep->ctrl->on_cpu, on);
		/* The senders' copy, for their doorbell decision. */
		WRITE_ONCE(ep->ring->on_cpu, on);
		if (!on && runnable && !ep->acct_closed)
			cosched_preempted(ep);
		raw_spin_unlock(&ep->acct_lock);
	}
}

static void cosched_probe_switch(void *data, bool preempt,
				 struct task_struct *prev,
				 struct task_struct *next,
				 unsigned int prev_state)
{
	int cpu;
	u64 now;

	if (!atomic_read(&cosched_nr_tracked))
		return;
	cpu = smp_processor_id();
	now = ktime_get_ns();
	/* TASK_RUNNING: preempted rather than gone to sleep. */
	cosched_oncpu_update(prev, false, prev_state == TASK_RUNNING, cpu,
			     now);
	cosched_oncpu_update(next, true, false, cpu, now);
}

/* Called with cosched_mutex held, before the endpoint is visible. */
void cosched_oncpu_track(struct cosched_ep *ep)
{
	ep->acct_on_cpu = true;
	ep->acct_since_ns = ktime_get_ns();
	hash_add_rcu(cosched_owners, &ep->task_node, (unsigned long)ep->owner);
	atomic_inc(&cosched_nr_tracked);
}

void cosched_oncpu_untrack(struct cosched_ep *ep)
{
	hash_del_rcu(&ep->task_node);
	atomic_dec(&cosched_nr_tracked);
}

static void cosched_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		cosched_tp_switch = tp;
}

int cosched_oncpu_init(void)
{
	int ret;

	for_each_kernel_tracepoint(cosched_find_tp, NULL);
	if (!cosched_tp_switch) {
		pr_err("cosched: no sched_switch tracepoint in this kernel\n");
		return -ENOENT;
	}
	ret = tracepoint_probe_register(cosched_tp_switch,
					cosched_probe_switch, NULL);
	if (ret)
		pr_err("cosched: cannot attach to sched_switch: %d\n", ret);
	return ret;
}

void cosched_oncpu_exit(void)
{
	tracepoint_probe_unregister(cosched_tp_switch, cosched_probe_switch,
				    NULL);
	tracepoint_synchronize_unregister();
}
