/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Boost budgets: boosted CPU time is bounded per job, per user, per CPU
 * and for the whole node, each a share of a rolling window.
 */
#ifndef _COSCHED_BUDGET_H
#define _COSCHED_BUDGET_H

#include <linux/spinlock.h>
#include <linux/types.h>

/* One budget: the time reserved by boosts in the current window. */
struct cosched_bucket {
	raw_spinlock_t lock;
	u64 window;		/* the window this counts for */
	u64 used_ns;
};

struct cosched_charge;
struct cosched_job;
struct cosched_user;

void cosched_bucket_init(struct cosched_bucket *b);
int cosched_budget_init(void);
void cosched_budget_exit(void);
u64 cosched_budget_reserve(struct cosched_charge *c, struct cosched_job *job,
			   struct cosched_user *user, int cpu, u64 want);
void cosched_budget_settle(struct cosched_charge *c, u64 ran_ns);

#endif /* _COSCHED_BUDGET_H */
