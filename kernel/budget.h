/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Boost budgets: boosted CPU time is bounded per job, per user, per CPU
 * and for the whole node, each a share of a rolling window.
 */
#ifndef _COSCHED_BUDGET_H
#define _COSCHED_BUDGET_H

#include <linux/types.h>

#include "bucket.h"

struct cosched_charge;
struct cosched_job;
struct cosched_user;

int cosched_budget_init(void);
void cosched_budget_exit(void);
u64 cosched_budget_reserve(struct cosched_charge *c, struct cosched_job *job,
			   struct cosched_user *user, int cpu, u64 want);
void cosched_budget_settle(struct cosched_charge *c, u64 ran_ns);

#endif /* _COSCHED_BUDGET_H */
