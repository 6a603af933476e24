// SPDX-License-Identifier: GPL-2.0
/*
 * Boost budgets.
 *
 * A boost reserves its whole length from four budgets before it starts:
 * its job's (budget_pct of one CPU), its owner's user's
 * (user_budget_pct of one CPU), the CPU's it starts on (cpu_budget_pct)
 * and the node's (global_budget_pct of all online CPUs), each over the
 * current budget_window_ms.  A boost is never longer than the smallest
 * room left, so whatever the number of endpoints, processes or jobs a
 * user makes, no budget is overdrawn by a boost that has not ended.
 * When the boost ends, what it reserved but did not run is given back
 * (settled), if the window has not rolled over meanwhile.
 *
 * Windows are aligned on multiples of the window length, so all budgets
 * roll over together.  A boost that spans a boundary is charged wholly
 * to the window it started in: over any two windows, boosted time stays
 * within twice each share.
 */
#include <linux/cpumask.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/percpu.h>

#include "budget.h"
#include "job.h"
#include "task.h"
#include "tunables.h"
#include "user.h"

static struct cosched_bucket cosched_node_budget;
static struct cosched_bucket __percpu *cosched_cpu_budget;

/* Shorter reservations are not worth a boost. */
#define COSCHED_MIN_BOOST_NS	(10 * NSEC_PER_USEC)

static u64 cosched_window_ns(void)
{
	return (u64)cosched_get(COSCHED_T_BUDGET_WINDOW_MS) * NSEC_PER_MSEC;
}

static u64 cosched_share_ns(u64 window, enum cosched_tunable_id pct,
			    unsigned int cpus)
{
	return div_u64(window * cosched_get(pct), 100) * cpus;
}

/* Room left in @b for window @win, with @b->lock held. */
static u64 cosched_bucket_room(struct cosched_bucket *b, u64 win, u64 limit)
{
	if (b->window != win) {
		b->window = win;
		b->used_ns = 0;
	}
	return b->used_ns < limit ? limit - b->used_ns : 0;
}

/* Give back @ns to @b if it still counts window @win. */
static void cosched_bucket_refund(struct cosched_bucket *b, u64 win, u64 ns)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&b->lock, flags);
	if (b->window == win)
		b->used_ns -= min(ns, b->used_ns);
	raw_spin_unlock_irqrestore(&b->lock, flags);
}

/**
 * cosched_budget_reserve() - reserve boosted time for one boost
 * @c: out: what was reserved, for cosched_budget_settle()
 * @job: the job the boost is for
 * @user: the boosted task's user
 * @cpu: the CPU the boosted task is on
 * @want: the boost's length, ns
 *
 * The four budgets' locks are taken in one order: node, CPU, user, job.
 *
 * Return: the reserved length, at most @want; 0 if some budget has less
 * than a minimal boost left, and then nothing is reserved.
 */
u64 cosched_budget_reserve(struct cosched_charge *c, struct cosched_job *job,
			   struct cosched_user *user, int cpu, u64 want)
{
	struct cosched_bucket *cb = per_cpu_ptr(cosched_cpu_budget, cpu);
	u64 window = cosched_window_ns();
	u64 win = div64_u64(ktime_get_ns(), window);
	unsigned long flags;
	u64 got = want;

	local_irq_save(flags);
	raw_spin_lock(&cosched_node_budget.lock);
	raw_spin_lock(&cb->lock);
	raw_spin_lock(&user->budget.lock);
	raw_spin_lock(&job->budget.lock);
	got = min(got, cosched_bucket_room(&cosched_node_budget, win,
					   cosched_share_ns(window,
							    COSCHED_T_GLOBAL_BUDGET_PCT,
							    num_online_cpus())));
	got = min(got, cosched_bucket_room(cb, win,
					   cosched_share_ns(window,
							    COSCHED_T_CPU_BUDGET_PCT, 1)));
	got = min(got, cosched_bucket_room(&user->budget, win,
					   cosched_share_ns(window,
							    COSCHED_T_USER_BUDGET_PCT, 1)));
	got = min(got, cosched_bucket_room(&job->budget, win,
					   cosched_share_ns(window,
							    COSCHED_T_BUDGET_PCT, 1)));
	if (got < COSCHED_MIN_BOOST_NS) {
		got = 0;
	} else {
		cosched_node_budget.used_ns += got;
		cb->used_ns += got;
		user->budget.used_ns += got;
		job->budget.used_ns += got;
	}
	raw_spin_unlock(&job->budget.lock);
	raw_spin_unlock(&user->budget.lock);
	raw_spin_unlock(&cb->lock);
	raw_spin_unlock(&cosched_node_budget.lock);
	local_irq_restore(flags);
	if (!got)
		return 0;

	cosched_job_get(job);
	cosched_user_get(user);
	c->job = job;
	c->user = user;
	c->cpu = cpu;
	c->reserved_ns = got;
	c->window = win;
	return got;
}

/**
 * cosched_budget_settle() - end a reservation
 * @c: what cosched_budget_reserve() reserved
 * @ran_ns: the CPU time the boosted task ran meanwhile
 *
 * Gives back the part of the reservation that was not run and drops the
 * references the reservation held.
 */
void cosched_budget_settle(struct cosched_charge *c, u64 ran_ns)
{
	u64 unused = c->reserved_ns - min(ran_ns, c->reserved_ns);

	if (unused) {
		cosched_bucket_refund(&c->job->budget, c->window, unused);
		cosched_bucket_refund(&c->user->budget, c->window, unused);
		cosched_bucket_refund(per_cpu_ptr(cosched_cpu_budget, c->cpu),
				      c->window, unused);
		cosched_bucket_refund(&cosched_node_budget, c->window, unused);
	}
	cosched_job_put(c->job);
	cosched_user_put(c->user);
	c->job = NULL;
	c->user = NULL;
}

int cosched_budget_init(void)
{
	int cpu;

	cosched_cpu_budget = alloc_percpu(struct cosched_bucket);
	if (!cosched_cpu_budget)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		cosched_bucket_init(per_cpu_ptr(cosched_cpu_budget, cpu));
	cosched_bucket_init(&cosched_node_budget);
	return 0;
}

void cosched_budget_exit(void)
{
	free_percpu(cosched_cpu_budget);
}
