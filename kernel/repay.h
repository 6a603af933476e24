/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Repaying boosted time (dcs-fair): each task's debt to the tasks its
 * boosts took the CPU from, measured from what it ran and what it was
 * kept waiting, not inferred from weights.
 */
#ifndef _COSCHED_REPAY_H
#define _COSCHED_REPAY_H

#include <linux/types.h>

struct task_struct;

/**
 * struct cosched_repay - one task's debt, under its prio_lock
 * @debt_ns: CPU time it ran beyond its share while boosted, less what
 *	its sleeps gave back;
 *	negative is a credit (bounded)
 * @exec_mark: its sum_exec_runtime at the last update
 * @delay_mark: its time kept waiting on a runqueue at the last update
 * @share_ran: of its runnable time under its own attributes (decayed),
 *	what it ran ...
 * @share_runnable: ... and how long it was runnable: its measured share
 * @window: the budget window of the last update (debts over
 *	repay_max_debt_us are forgiven down to it at each new window)
 */
struct cosched_repay {
	s64 debt_ns;
	u64 exec_mark;
	u64 delay_mark;
	u64 share_ran;
	u64 share_runnable;
	u64 window;
};

void cosched_repay_init(struct cosched_repay *r, struct task_struct *p);
void cosched_repay_update(struct cosched_repay *r, struct task_struct *p,
			  bool charged);
bool cosched_repay_owes(const struct cosched_repay *r);
bool cosched_repay_refuses(const struct cosched_repay *r);
u64 cosched_repay_sleep_ns(const struct cosched_repay *r);
void cosched_repay_credit(struct cosched_repay *r, u64 slept_ns);

#endif /* _COSCHED_REPAY_H */
