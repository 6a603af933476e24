// SPDX-License-Identifier: GPL-2.0
/*
 * Tunables: one table gives every tunable its range, so the module
 * parameters (load time) and /sys/kernel/cosched (run time) validate the
 * same way; and the table of the policies' behaviour, which the policy
 * tunable selects a row of.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "tunables.h"

static const char * const cosched_tunable_names[COSCHED_NR_TUNABLES] = {
	[COSCHED_T_POLICY]		= "policy",
	[COSCHED_T_SPIN_US]		= "spin_us",
	[COSCHED_T_PB_PERIOD_US]	= "pb_period_us",
	[COSCHED_T_BOOST_US]		= "boost_us",
	[COSCHED_T_BUDGET_PCT]		= "budget_pct",
	[COSCHED_T_BUDGET_WINDOW_MS]	= "budget_window_ms",
	[COSCHED_T_BOOST_MECH]		= "boost_mech",
	[COSCHED_T_RING_KB]		= "ring_kb",
	[COSCHED_T_USER_BUDGET_PCT]	= "user_budget_pct",
	[COSCHED_T_CPU_BUDGET_PCT]	= "cpu_budget_pct",
	[COSCHED_T_GLOBAL_BUDGET_PCT]	= "global_budget_pct",
	[COSCHED_T_USER_MAX_ENDPOINTS]	= "user_max_endpoints",
	[COSCHED_T_USER_MAX_HOOKS]	= "user_max_hooks",
	[COSCHED_T_REPAY_MAX_DEBT_US]	= "repay_max_debt_us",
};

static const char * const cosched_policy_names[COSCHED_NR_POLICIES] = {
	[COSCHED_POLICY_LOCAL]	= "local",
	[COSCHED_POLICY_SB]	= "sb",
	[COSCHED_POLICY_SY]	= "sy",
	[COSCHED_POLICY_DCS]	= "dcs",
	[COSCHED_POLICY_DCS_SB]	= "dcs-sb",
	[COSCHED_POLICY_DCS_SY]	= "dcs-sy",
	[COSCHED_POLICY_PB]	= "pb",
	[COSCHED_POLICY_PBT]	= "pbt",
	[COSCHED_POLICY_PB_SB]	= "pb-sb",
	[COSCHED_POLICY_PB_SY]	= "pb-sy",
	[COSCHED_POLICY_PBA]	= "pba",
	[COSCHED_POLICY_PBA_SB]	= "pba-sb",
	[COSCHED_POLICY_PBA_SY]	= "pba-sy",
	[COSCHED_POLICY_DCS_FAIR] = "dcs-fair",
};

#define POLICY(arrival, wait, pick) \
	{ .on_arrival = COSCHED_ON_ARRIVAL_##arrival, \
	  .wait_mode = COSCHED_WAIT_##wait, .pb_pick = COSCHED_PB_##pick }

static const struct cosched_policy_desc cosched_policies[COSCHED_NR_POLICIES] = {
	[COSCHED_POLICY_LOCAL]	= POLICY(NOTHING, BUSY, ROUND_ROBIN),
	[COSCHED_POLICY_SB]	= POLICY(NOTHING, BLOCK, ROUND_ROBIN),
	[COSCHED_POLICY_SY]	= POLICY(NOTHING, YIELD, ROUND_ROBIN),
	[COSCHED_POLICY_DCS]	= POLICY(BOOST, BUSY, ROUND_ROBIN),
	[COSCHED_POLICY_DCS_SB]	= POLICY(BOOST, BLOCK, ROUND_ROBIN),
	[COSCHED_POLICY_DCS_SY]	= POLICY(BOOST, YIELD, ROUND_ROBIN),
	[COSCHED_POLICY_PB]	= POLICY(PERIODIC, BUSY, ROUND_ROBIN),
	[COSCHED_POLICY_PBT]	= POLICY(PERIODIC, BUSY, NEWEST),
	[COSCHED_POLICY_PB_SB]	= POLICY(PERIODIC, BLOCK, PREFER_BLOCKED),
	[COSCHED_POLICY_PB_SY]	= POLICY(PERIODIC, YIELD, ROUND_ROBIN),
	[COSCHED_POLICY_PBA]	= POLICY(PERIODIC, BUSY, ALIGNED),
	[COSCHED_POLICY_PBA_SB]	= POLICY(PERIODIC, BLOCK, ALIGNED),
	[COSCHED_POLICY_PBA_SY]	= POLICY(PERIODIC, YIELD, ALIGNED),
	/* Its yield sleeps while the task owes (policy.c), boosts nothing. */
	[COSCHED_POLICY_DCS_FAIR] = { .on_arrival = COSCHED_ON_ARRIVAL_BOOST,
				      .wait_mode = COSCHED_WAIT_YIELD,
				      .pb_pick = COSCHED_PB_ROUND_ROBIN,
				      .repay = true },
};

static const char * const cosched_mech_names[COSCHED_NR_MECHS] = {
	[COSCHED_MECH_FIFO] = "fifo",
	[COSCHED_MECH_NICE] = "nice",
};

/* Numeric ranges; the two named tunables are indexes into name lists. */
static const struct {
	unsigned int min, max;
} cosched_range[COSCHED_NR_TUNABLES] = {
	[COSCHED_T_POLICY]		= { 0, COSCHED_NR_POLICIES - 1 },
	[COSCHED_T_SPIN_US]		= { 0, 100000 },
	[COSCHED_T_PB_PERIOD_US]	= { 1000, 1000000 },
	[COSCHED_T_BOOST_US]		= { 10, 100000 },
	[COSCHED_T_BUDGET_PCT]		= { 0, 100 },
	[COSCHED_T_BUDGET_WINDOW_MS]	= { 10, 10000 },
	[COSCHED_T_BOOST_MECH]		= { 0, COSCHED_NR_MECHS - 1 },
	[COSCHED_T_RING_KB]		= { 4, 65536 },
	[COSCHED_T_USER_BUDGET_PCT]	= { 0, 100 },
	[COSCHED_T_CPU_BUDGET_PCT]	= { 0, 90 },
	[COSCHED_T_GLOBAL_BUDGET_PCT]	= { 0, 90 },
	[COSCHED_T_USER_MAX_ENDPOINTS]	= { 1, 1000000 },
	/* Every user may register at least what ABI 1 promised per endpoint. */
	[COSCHED_T_USER_MAX_HOOKS]	= { COSCHED_MAX_HOOKS, 1000000 },
	/* 0: never refuse; at most 10 s, the debt's own bound (repay.c). */
	[COSCHED_T_REPAY_MAX_DEBT_US]	= { 0, 10000000 },
};

static unsigned int cosched_tun[COSCHED_NR_TUNABLES] = {
	[COSCHED_T_POLICY]		= COSCHED_POLICY_LOCAL,
	[COSCHED_T_SPIN_US]		= 250,	/* thesis: 250-300 us */
	[COSCHED_T_PB_PERIOD_US]	= 10000,	/* thesis: 10 ms */
	[COSCHED_T_BOOST_US]		= 2000,
	[COSCHED_T_BUDGET_PCT]		= 30,
	[COSCHED_T_BUDGET_WINDOW_MS]	= 100,
	[COSCHED_T_BOOST_MECH]		= COSCHED_MECH_FIFO,
	[COSCHED_T_RING_KB]		= 256,
	[COSCHED_T_USER_BUDGET_PCT]	= 60,
	[COSCHED_T_CPU_BUDGET_PCT]	= 50,
	[COSCHED_T_GLOBAL_BUDGET_PCT]	= 50,
	[COSCHED_T_USER_MAX_ENDPOINTS]	= 256,
	[COSCHED_T_USER_MAX_HOOKS]	= 4096,
	[COSCHED_T_REPAY_MAX_DEBT_US]	= 30000,	/* one job budget */
};

/**
 * cosched_get() - the current value of a tunable
 * @id: the tunable
 *
 * Any context.  A value read twice may differ: callers read it once.
 *
 * Return: the value.
 */
unsigned int cosched_get(enum cosched_tunable_id id)
{
	return READ_ONCE(cosched_tun[id]);
}

/**
 * cosched_tunable_set() - store a value cosched_tunable_parse() accepted
 * @id: the tunable
 * @val: the value
 *
 * policy and spin_us are mirrored in the control pages: those go through
 * cosched_ep_publish_tunable(), which calls this under its lock.
 */
void cosched_tunable_set(enum cosched_tunable_id id, unsigned int val)
{
	WRITE_ONCE(cosched_tun[id], val);
}

const char *cosched_policy_name(unsigned int policy)
{
	return cosched_policy_names[policy];
}

const struct cosched_policy_desc *cosched_policy_desc(unsigned int policy)
{
	return &cosched_policies[policy];
}

/* The row of the policy in force; a switch is seen at the next call. */
const struct cosched_policy_desc *cosched_active_policy(void)
{
	return cosched_policy_desc(cosched_get(COSCHED_T_POLICY));
}

static int cosched_name_index(const char * const *names, unsigned int n,
			      const char *buf)
{
	size_t len = strcspn(buf, "\n");
	unsigned int i;

	/* Accept exactly "name" or "name\n", as sysfs writers send it. */
	if (buf[len] == '\n' && buf[len + 1] != '\0')
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (strlen(names[i]) == len && !strncmp(names[i], buf, len))
			return i;
	return -EINVAL;
}

/**
 * cosched_tunable_parse() - validate a tunable's new value
 * @id: the tunable
 * @buf: its text: a name for policy and boost_mech, else a decimal number
 * @val: out: the value to store
 *
 * Return: 0, or -EINVAL for garbage or a value outside the tunable's range.
 */
int cosched_tunable_parse(enum cosched_tunable_id id, const char *buf,
			  unsigned int *val)
{
	int ret;

	switch (id) {
	case COSCHED_T_POLICY:
		ret = cosched_name_index(cosched_policy_names,
					 COSCHED_NR_POLICIES, buf);
		break;
	case COSCHED_T_BOOST_MECH:
		ret = cosched_name_index(cosched_mech_names, COSCHED_NR_MECHS,
					 buf);
		break;
	default:
		if (kstrtouint(buf, 10, val))
			return -EINVAL;
		ret = *val;
		if (*val > INT_MAX)
			return -EINVAL;
		break;
	}
	if (ret < 0)
		return ret;
	if (ret < cosched_range[id].min || ret > cosched_range[id].max)
		return -EINVAL;
	*val = ret;
	return 0;
}

static int cosched_list_show(const char * const *names, unsigned int n,
			     unsigned int cur, char *buf)
{
	int len = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		len += sysfs_emit_at(buf, len, i == cur ? "%s[%s]" : "%s%s",
				     i ? " " : "", names[i]);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

/**
 * cosched_tunable_show() - print a tunable for sysfs
 * @id: the tunable
 * @buf: the sysfs page
 *
 * Named tunables list every choice with the active one in brackets, as
 * the block layer's scheduler file does.
 *
 * Return: the length written.
 */
int cosched_tunable_show(enum cosched_tunable_id id, char *buf)
{
	switch (id) {
	case COSCHED_T_POLICY:
		return cosched_list_show(cosched_policy_names,
					 COSCHED_NR_POLICIES, cosched_get(id),
					 buf);
	case COSCHED_T_BOOST_MECH:
		return cosched_list_show(cosched_mech_names, COSCHED_NR_MECHS,
					 cosched_get(id), buf);
	default:
		return sysfs_emit(buf, "%u\n", cosched_get(id));
	}
}

/* Module parameters: load-time only (0444); run time goes through sysfs. */
static int cosched_param_set(const char *val, const struct kernel_param *kp)
{
	enum cosched_tunable_id id = (unsigned int *)kp->arg - cosched_tun;
	unsigned int v;
	int ret;

	ret = cosched_tunable_parse(id, val, &v);
	if (ret) {
		pr_err("cosched: invalid %s=%s\n", cosched_tunable_names[id], val);
		return ret;
	}
	cosched_tun[id] = v;
	return 0;
}

static int cosched_param_get(char *buf, const struct kernel_param *kp)
{
	enum cosched_tunable_id id = (unsigned int *)kp->arg - cosched_tun;

	return cosched_tunable_show(id, buf);
}

static const struct kernel_param_ops cosched_param_ops = {
	.set = cosched_param_set,
	.get = cosched_param_get,
};

module_param_cb(policy, &cosched_param_ops, &cosched_tun[COSCHED_T_POLICY],
		0444);
MODULE_PARM_DESC(policy,
		 "local sb sy dcs dcs-sb dcs-sy pb pbt pb-sb pb-sy pba pba-sb pba-sy dcs-fair (default local)");
module_param_cb(spin_us, &cosched_param_ops, &cosched_tun[COSCHED_T_SPIN_US],
		0444);
MODULE_PARM_DESC(spin_us,
		 "spin before blocking or yielding, us, 0-100000 (default 250)");
module_param_cb(pb_period_us, &cosched_param_ops,
		&cosched_tun[COSCHED_T_PB_PERIOD_US], 0444);
MODULE_PARM_DESC(pb_period_us,
		 "periodic boost interval, us, 1000-1000000 (default 10000)");
module_param_cb(boost_us, &cosched_param_ops,
		&cosched_tun[COSCHED_T_BOOST_US], 0444);
MODULE_PARM_DESC(boost_us, "longest boost, us, 10-100000 (default 2000)");
module_param_cb(budget_pct, &cosched_param_ops,
		&cosched_tun[COSCHED_T_BUDGET_PCT], 0444);
MODULE_PARM_DESC(budget_pct,
		 "boosted CPU time per job and window, % of one CPU, 0-100 (default 30)");
module_param_cb(user_budget_pct, &cosched_param_ops,
		&cosched_tun[COSCHED_T_USER_BUDGET_PCT], 0444);
MODULE_PARM_DESC(user_budget_pct,
		 "boosted CPU time per user and window, % of one CPU, 0-100 (default 60)");
module_param_cb(cpu_budget_pct, &cosched_param_ops,
		&cosched_tun[COSCHED_T_CPU_BUDGET_PCT], 0444);
MODULE_PARM_DESC(cpu_budget_pct,
		 "boosted time per CPU and window, %, 0-90 (default 50)");
module_param_cb(global_budget_pct, &cosched_param_ops,
		&cosched_tun[COSCHED_T_GLOBAL_BUDGET_PCT], 0444);
MODULE_PARM_DESC(global_budget_pct,
		 "boosted time of the node per window, % of all online CPUs, 0-90 (default 50)");
module_param_cb(user_max_endpoints, &cosched_param_ops,
		&cosched_tun[COSCHED_T_USER_MAX_ENDPOINTS], 0444);
MODULE_PARM_DESC(user_max_endpoints,
		 "endpoints one user may have at once, 1-1000000 (default 256)");
module_param_cb(user_max_hooks, &cosched_param_ops,
		&cosched_tun[COSCHED_T_USER_MAX_HOOKS], 0444);
MODULE_PARM_DESC(user_max_hooks,
		 "sockets, rings and channels one user may have registered at once, 64-1000000 (default 4096)");
module_param_cb(budget_window_ms, &cosched_param_ops,
		&cosched_tun[COSCHED_T_BUDGET_WINDOW_MS], 0444);
MODULE_PARM_DESC(budget_window_ms, "budget window, ms, 10-10000 (default 100)");
module_param_cb(repay_max_debt_us, &cosched_param_ops,
		&cosched_tun[COSCHED_T_REPAY_MAX_DEBT_US], 0444);
MODULE_PARM_DESC(repay_max_debt_us,
		 "dcs-fair: boosted time a task may owe and still be boosted, us (0: no limit), 0-10000000 (default 30000)");
module_param_cb(boost_mech, &cosched_param_ops,
		&cosched_tun[COSCHED_T_BOOST_MECH], 0444);
MODULE_PARM_DESC(boost_mech, "fifo or nice (default fifo)");
module_param_cb(ring_kb, &cosched_param_ops,
		&cosched_tun[COSCHED_T_RING_KB], 0444);
MODULE_PARM_DESC(ring_kb,
		 "receive ring data per endpoint, KiB, 4-65536, rounded up to a power of two (default 256)");
