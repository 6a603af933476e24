/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tunables: the module's settings, from module parameters at load time
 * and /sys/kernel/cosched at run time, and the table of what each
 * policy does.  The bottom layer: it calls nothing else in the module.
 * What a change sets in motion (publishing a new policy to the control
 * pages, restarting the examiner) is the policy layer's
 * (cosched_tunable_store() in policy.c).
 */
#ifndef _COSCHED_TUNABLES_H
#define _COSCHED_TUNABLES_H

#include <uapi/linux/cosched.h>

enum cosched_tunable_id {
	COSCHED_T_POLICY,
	COSCHED_T_SPIN_US,
	COSCHED_T_PB_PERIOD_US,
	COSCHED_T_BOOST_US,
	COSCHED_T_BUDGET_PCT,
	COSCHED_T_BUDGET_WINDOW_MS,
	COSCHED_T_BOOST_MECH,
	COSCHED_T_RING_KB,
	COSCHED_T_USER_BUDGET_PCT,
	COSCHED_T_CPU_BUDGET_PCT,
	COSCHED_T_GLOBAL_BUDGET_PCT,
	COSCHED_T_USER_MAX_ENDPOINTS,
	COSCHED_T_USER_MAX_HOOKS,
	COSCHED_T_REPAY_MAX_DEBT_US,
	COSCHED_NR_TUNABLES,
};

/* Boost mechanisms, selectable through boost_mech. */
enum cosched_boost_mech {
	COSCHED_MECH_FIFO,	/* SCHED_FIFO priority 1 */
	COSCHED_MECH_NICE,	/* own policy, nice -20 */
	COSCHED_NR_MECHS,
};

/* What the arrival side does under a policy. */
enum cosched_arrival_action {
	COSCHED_ON_ARRIVAL_NOTHING,
	COSCHED_ON_ARRIVAL_BOOST,	/* dcs: boost now */
	COSCHED_ON_ARRIVAL_PERIODIC,	/* pb: boost at the next tick */
};

/* How the periodic examiner picks among pending endpoints. */
enum cosched_pb_pick {
	COSCHED_PB_ROUND_ROBIN,
	COSCHED_PB_NEWEST,
	COSCHED_PB_PREFER_BLOCKED,
	COSCHED_PB_ALIGNED,		/* pba: the job cosched_pba_rank() picks */
};

/* One row of thesis Table 6.1: what a policy does on each event. */
struct cosched_policy_desc {
	enum cosched_arrival_action on_arrival;
	enum cosched_wait_mode wait_mode;
	enum cosched_pb_pick pb_pick;
	bool repay;	/* dcs-fair: boosted time is paid back (repay.c) */
};

unsigned int cosched_get(enum cosched_tunable_id id);
void cosched_tunable_set(enum cosched_tunable_id id, unsigned int val);
int cosched_tunable_parse(enum cosched_tunable_id id, const char *buf,
			  unsigned int *val);
int cosched_tunable_show(enum cosched_tunable_id id, char *buf);
const char *cosched_policy_name(unsigned int policy);
const struct cosched_policy_desc *cosched_policy_desc(unsigned int policy);
const struct cosched_policy_desc *cosched_active_policy(void);

#endif /* _COSCHED_TUNABLES_H */
