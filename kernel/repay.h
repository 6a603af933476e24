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
 * @sleep_exec: its runtime when its repaying sleep began: exec_mark and
 *	the run the scheduler had not added to it, read just after (a tick
 *	between the two readings leaves up to a tick counted in neither)
 * @sleep_delay: its runqueue wait when its repaying sleep began
 * @sleep_share: the share its repaying sleep was sized at, and is paid at
 * @window: the budget window of the last update (debts over
 *	repay_max_debt_us are forgiven down to it at each new window)
 * @cpu: the CPU the share was measured on
 */
struct cosched_repay {
	s64 debt_ns;
	u64 exec_mark;
	u64 delay_mark;
	u64 share_ran;
	u64 share_runnable;
	u64 sleep_exec;
	u64 sleep_delay;
	u64 sleep_share;
	u64 window;
	unsigned int cpu;
};

/* What a task's attributes were over an interval. */
enum cosched_repay_interval {
	COSCHED_REPAY_OWN,	/* its own: the interval measures its share */
	COSCHED_REPAY_BOOSTED,	/* boosted under dcs-fair: charged */
	COSCHED_REPAY_SKIP,	/* neither (a yield, another policy's boost) */
};

void cosched_repay_init(struct cosched_repay *r, struct task_struct *p);
void cosched_repay_update(struct cosched_repay *r, struct task_struct *p,
			  enum cosched_repay_interval how);
/**
 * struct cosched_repay_paid - what a repaying sleep paid (the
 *	cosched_repay tracepoint's fields)
 * @away_ns: the part of the sleep the task spent off the runqueue
 * @credit_ns: the credit computed for it (the debt it is taken off is
 *	floored at a 4 ms credit)
 * @share_permille: the share it was paid at, in thousandths of a CPU
 */
struct cosched_repay_paid {
	u64 away_ns;
	u64 credit_ns;
	u32 share_permille;
};

void cosched_repay_slept(struct cosched_repay *r, struct task_struct *p,
			 u64 slept_ns, struct cosched_repay_paid *paid);
s64 cosched_repay_debt(const struct cosched_repay *r);
void cosched_repay_carry(struct cosched_repay *r, s64 ns);
s64 cosched_repay_take(struct cosched_repay *r);
bool cosched_repay_owes(const struct cosched_repay *r);
bool cosched_repay_refuses(struct cosched_repay *r);
u64 cosched_repay_sleep_ns(struct cosched_repay *r, struct task_struct *p,
			   bool *through);

#endif /* _COSCHED_REPAY_H */
