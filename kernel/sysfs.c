// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/cosched: the tunables, the module's counters in stats/ and
 * one directory per live job in jobs/<owner uid>-<job id>/.
 */
#include <linux/cred.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "cosched.h"

const char * const cosched_counter_names[COSCHED_NR_COUNTERS] = {
	[COSCHED_CNT_ARRIVALS]		= "arrivals",
	[COSCHED_CNT_DOORBELLS]		= "doorbells",
	[COSCHED_CNT_BOOSTS]		= "boosts",
	[COSCHED_CNT_BOOSTED_NS]	= "boosted_ns",
	[COSCHED_CNT_BLOCKS]		= "blocks",
	[COSCHED_CNT_WAKEUPS]		= "wakeups",
	[COSCHED_CNT_YIELDS]		= "yields",
	[COSCHED_CNT_BUDGET_EXHAUSTED]	= "budget_exhausted",
};

static struct kobject *cosched_kobj;
static struct kobject *cosched_jobs_kobj;

/* An attribute that knows which tunable or counter it shows. */
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
	NULL,
};

static const struct attribute_group cosched_tunable_group = {
	.attrs = cosched_tunable_attrs,
};

/* Counters, shared by stats/ and jobs/<id>/ */

static struct cosched_counters *cosched_kobj_counters(struct kobject *kobj)
{
	if (kobj == cosched_kobj)
		return &cosched_global_stats;
	return &container_of(kobj, struct cosched_job, kobj)->stats;
}

static ssize_t counter_show(struct kobject *kobj, struct kobj_attribute *a,
			    char *buf)
{
	struct cosched_counters *c = cosched_kobj_counters(kobj);

	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&c->val[to_cosched_attr(a)->index]));
}

#define COUNTER_ATTR(_name, _id) \
	static struct cosched_attr counter_##_name = { \
		.kattr = __ATTR(_name, 0444, counter_show, NULL), \
		.index = _id }

COUNTER_ATTR(arrivals, COSCHED_CNT_ARRIVALS);
COUNTER_ATTR(doorbells, COSCHED_CNT_DOORBELLS);
COUNTER_ATTR(boosts, COSCHED_CNT_BOOSTS);
COUNTER_ATTR(boosted_ns, COSCHED_CNT_BOOSTED_NS);
COUNTER_ATTR(blocks, COSCHED_CNT_BLOCKS);
COUNTER_ATTR(wakeups, COSCHED_CNT_WAKEUPS);
COUNTER_ATTR(yields, COSCHED_CNT_YIELDS);
COUNTER_ATTR(budget_exhausted, COSCHED_CNT_BUDGET_EXHAUSTED);

static struct attribute *cosched_counter_attrs[] = {
	&counter_arrivals.kattr.attr,
	&counter_doorbells.kattr.attr,
	&counter_boosts.kattr.attr,
	&counter_boosted_ns.kattr.attr,
	&counter_blocks.kattr.attr,
	&counter_wakeups.kattr.attr,
	&counter_yields.kattr.attr,
	&counter_budget_exhausted.kattr.attr,
	NULL,
};

/* stats/: the module's counters and live object counts */

static ssize_t live_endpoints_show(struct kobject *kobj,
				   struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&cosched_nr_endpoints));
}

static ssize_t live_jobs_show(struct kobject *kobj, struct kobj_attribute *a,
			      char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&cosched_nr_jobs));
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
	.attrs = cosched_counter_attrs,
};

static const struct attribute_group cosched_live_group = {
	.name = "stats",
	.attrs = cosched_live_attrs,
};

/* jobs/<id>/ */

static struct cosched_job *to_job(struct kobject *kobj)
{
	return container_of(kobj, struct cosched_job, kobj);
}

static ssize_t job_endpoints_show(struct kobject *kobj,
				  struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(to_job(kobj)->nr_endpoints));
}

static ssize_t job_owner_uid_show(struct kobject *kobj,
				  struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n",
			  from_kuid_munged(current_user_ns(),
					   to_job(kobj)->owner));
}

static struct kobj_attribute job_endpoints_attr =
	__ATTR(endpoints, 0444, job_endpoints_show, NULL);
static struct kobj_attribute job_owner_uid_attr =
	__ATTR(owner_uid, 0444, job_owner_uid_show, NULL);

static struct attribute *cosched_job_attrs[] = {
	&job_endpoints_attr.attr,
	&job_owner_uid_attr.attr,
	NULL,
};

static const struct attribute_group cosched_job_counter_group = {
	.attrs = cosched_counter_attrs,
};

static const struct attribute_group cosched_job_group = {
	.attrs = cosched_job_attrs,
};

static const struct attribute_group *cosched_job_groups[] = {
	&cosched_job_counter_group,
	&cosched_job_group,
	NULL,
};

/* Runs when the last endpoint of the job is freed (RCU callback). */
static void cosched_job_release(struct kobject *kobj)
{
	mutex_destroy(&to_job(kobj)->eps_lock);
	kfree(to_job(kobj));
}

const struct kobj_type cosched_job_ktype = {
	.release = cosched_job_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = cosched_job_groups,
};

/**
 * cosched_job_sysfs_add() - publish a new job in jobs/<id>/
 * @job: the job; freed through its kobject if this fails
 *
 * No uevent is sent, so the final kobject_put() never sleeps and may run
 * from the RCU callback that frees the job's last endpoint.
 *
 * Return: 0 or a negative errno.
 */
int cosched_job_sysfs_add(struct cosched_job *job)
{
	int ret;

	ret = kobject_init_and_add(&job->kobj, &cosched_job_ktype,
				   cosched_jobs_kobj, "%u-%llu",
				   from_kuid(&init_user_ns, job->owner), job->id);
	if (ret)
		kobject_put(&job->kobj);
	return ret;
}

void cosched_job_sysfs_del(struct cosched_job *job)
{
	kobject_del(&job->kobj);
}

void cosched_job_put(struct cosched_job *job)
{
	kobject_put(&job->kobj);
}

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
	cosched_jobs_kobj = kobject_create_and_add("jobs", cosched_kobj);
	if (!cosched_jobs_kobj) {
		ret = -ENOMEM;
		goto err_stats;
	}
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
	kobject_put(cosched_jobs_kobj);
	sysfs_unmerge_group(cosched_kobj, &cosched_live_group);
	sysfs_remove_group(cosched_kobj, &cosched_stats_group);
	sysfs_remove_group(cosched_kobj, &cosched_tunable_group);
	kobject_put(cosched_kobj);
}
