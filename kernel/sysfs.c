// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/cosched: the tunables, the module's counters in stats/ and
 * one directory per live job in jobs/<owner uid>-<job id>/.
 */
#include <linux/cred.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "endpoint.h"
#include "job.h"
#include "policy.h"
#include "sysfs.h"
#include "tunables.h"

static struct kobject *cosched_kobj;

/* An attribute that knows which tunable it shows. */
struct cosched_attr {
	struct kobj_attribute kattr;
	unsigned int index;
};

#define to_cosched_attr(a) container_of(a, struct cosched_attr, kattr)

/* Tunables */

static ssize_t tunable_show(struct kobject *kobj, struct kobj_attribute *a,
			    char *buf)
{
	return cosched_tunable_show(to_cosched_attr(a)->index, buf);
}

static ssize_t tunable_store(struct kobject *kobj, struct kobj_attribute *a,
			     const char *buf, size_t count)
{
	int ret = cosched_tunable_store(to_cosched_attr(a)->index, buf);

	return ret ? ret : count;
}

#define TUNABLE_ATTR(_name, _id) \
	static struct cosched_attr tunable_##_name = { \
		.kattr = __ATTR(_name, 0644, tunable_show, tunable_store), \
		.index = _id }

TUNABLE_ATTR(policy, COSCHED_T_POLICY);
TUNABLE_ATTR(spin_us, COSCHED_T_SPIN_US);
TUNABLE_ATTR(pb_period_us, COSCHED_T_PB_PERIOD_US);
TUNABLE_ATTR(boost_us, COSCHED_T_BOOST_US);
TUNABLE_ATTR(budget_pct, COSCHED_T_BUDGET_PCT);
TUNABLE_ATTR(budget_window_ms, COSCHED_T_BUDGET_WINDOW_MS);
TUNABLE_ATTR(boost_mech, COSCHED_T_BOOST_MECH);
TUNABLE_ATTR(ring_kb, COSCHED_T_RING_KB);
TUNABLE_ATTR(user_budget_pct, COSCHED_T_USER_BUDGET_PCT);
TUNABLE_ATTR(cpu_budget_pct, COSCHED_T_CPU_BUDGET_PCT);
TUNABLE_ATTR(global_budget_pct, COSCHED_T_GLOBAL_BUDGET_PCT);
TUNABLE_ATTR(user_max_endpoints, COSCHED_T_USER_MAX_ENDPOINTS);
TUNABLE_ATTR(user_max_hooks, COSCHED_T_USER_MAX_HOOKS);
TUNABLE_ATTR(repay_max_debt_us, COSCHED_T_REPAY_MAX_DEBT_US);

static struct attribute *cosched_tunable_attrs[] = {
	&tunable_policy.kattr.attr,
	&tunable_spin_us.kattr.attr,
	&tunable_pb_period_us.kattr.attr,
	&tunable_boost_us.kattr.attr,
	&tunable_budget_pct.kattr.attr,
	&tunable_budget_window_ms.kattr.attr,
	&tunable_boost_mech.kattr.attr,
	&tunable_ring_kb.kattr.attr,
	&tunable_user_budget_pct.kattr.attr,
	&tunable_cpu_budget_pct.kattr.attr,
	&tunable_global_budget_pct.kattr.attr,
	&tunable_user_max_endpoints.kattr.attr,
	&tunable_user_max_hooks.kattr.attr,
	&tunable_repay_max_debt_us.kattr.attr,
	NULL,
};

static const struct attribute_group cosched_tunable_group = {
	.attrs = cosched_tunable_attrs,
};

/* Counters, shared by stats/ and jobs/<id>/ */

static ssize_t counter_show(struct kobject *kobj, struct kobj_attribute *a,
			    char *buf)
{
	return cosched_counter_show(cosched_global_counters(), a, buf);
}

COSCHED_DEFINE_COUNTER_ATTRS();

/* stats/: the module's counters and live object counts */

static ssize_t live_endpoints_show(struct kobject *kobj,
				   struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%d\n", cosched_nr_endpoints());
}

static ssize_t live_jobs_show(struct kobject *kobj, struct kobj_attribute *a,
			      char *buf)
{
	return sysfs_emit(buf, "%d\n", cosched_nr_jobs());
}

static struct kobj_attribute live_endpoints_attr =
	__ATTR(endpoints, 0444, live_endpoints_show, NULL);
static struct kobj_attribute live_jobs_attr =
	__ATTR(jobs, 0444, live_jobs_show, NULL);

static struct attribute *cosched_live_attrs[] = {
	&live_endpoints_attr.attr,
	&live_jobs_attr.attr,
	NULL,
};

static const struct attribute_group cosched_stats_group = {
	.name = "stats",
	.attrs = counter_attrs,
};

static const struct attribute_group cosched_live_group = {
	.name = "stats",
	.attrs = cosched_live_attrs,
};

int cosched_sysfs_init(void)
{
	int ret;

	cosched_kobj = kobject_create_and_add("cosched", kernel_kobj);
	if (!cosched_kobj)
		return -ENOMEM;
	ret = sysfs_create_group(cosched_kobj, &cosched_tunable_group);
	if (ret)
		goto err_put;
	ret = sysfs_create_group(cosched_kobj, &cosched_stats_group);
	if (ret)
		goto err_tunables;
	ret = sysfs_merge_group(cosched_kobj, &cosched_live_group);
	if (ret)
		goto err_stats_group;
	ret = cosched_jobs_init(cosched_kobj);
	if (ret)
		goto err_stats;
	return 0;

err_stats:
	sysfs_unmerge_group(cosched_kobj, &cosched_live_group);
err_stats_group:
	sysfs_remove_group(cosched_kobj, &cosched_stats_group);
err_tunables:
	sysfs_remove_group(cosched_kobj, &cosched_tunable_group);
err_put:
	kobject_put(cosched_kobj);
	return ret;
}

void cosched_sysfs_exit(void)
{
	cosched_jobs_exit();
	sysfs_unmerge_group(cosched_kobj, &cosched_live_group);
	sysfs_remove_group(cosched_kobj, &cosched_stats_group);
	sysfs_remove_group(cosched_kobj, &cosched_tunable_group);
	kobject_put(cosched_kobj);
}
