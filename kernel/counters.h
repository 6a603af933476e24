/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event counters, kept per endpoint, per job and for the module, and
 * their sysfs files.  Bottom layer.
 */
#ifndef _COSCHED_COUNTERS_H
#define _COSCHED_COUNTERS_H

#include <linux/atomic.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>

enum cosched_counter {
	COSCHED_CNT_ARRIVALS,
	COSCHED_CNT_DOORBELLS,
	COSCHED_CNT_BOOSTS,
	COSCHED_CNT_BOOSTED_NS,
	COSCHED_CNT_BLOCKS,
	COSCHED_CNT_WAKEUPS,
	COSCHED_CNT_YIELDS,
	COSCHED_CNT_BUDGET_EXHAUSTED,
	COSCHED_CNT_REPAY_REFUSED,
	COSCHED_NR_COUNTERS,
};

struct cosched_counters {
	atomic64_t val[COSCHED_NR_COUNTERS];
};

/* A counter's sysfs file, which knows which counter it shows. */
struct cosched_counter_attr {
	struct kobj_attribute kattr;
	enum cosched_counter index;
};

ssize_t cosched_counter_show(const struct cosched_counters *c,
			     struct kobj_attribute *a, char *buf);

#define COSCHED_COUNTER_ATTR(name, id)					\
	static struct cosched_counter_attr counter_##name = {		\
		.kattr = __ATTR(name, 0444, counter_show, NULL),	\
		.index = id }

/*
 * One file per counter, listed in counter_attrs[], for a file that
 * defines counter_show(): it finds the kobject's counters and calls
 * cosched_counter_show().
 */
#define COSCHED_DEFINE_COUNTER_ATTRS()					\
	COSCHED_COUNTER_ATTR(arrivals, COSCHED_CNT_ARRIVALS);		\
	COSCHED_COUNTER_ATTR(doorbells, COSCHED_CNT_DOORBELLS);		\
	COSCHED_COUNTER_ATTR(boosts, COSCHED_CNT_BOOSTS);		\
	COSCHED_COUNTER_ATTR(boosted_ns, COSCHED_CNT_BOOSTED_NS);	\
	COSCHED_COUNTER_ATTR(blocks, COSCHED_CNT_BLOCKS);		\
	COSCHED_COUNTER_ATTR(wakeups, COSCHED_CNT_WAKEUPS);		\
	COSCHED_COUNTER_ATTR(yields, COSCHED_CNT_YIELDS);		\
	COSCHED_COUNTER_ATTR(budget_exhausted, COSCHED_CNT_BUDGET_EXHAUSTED); \
	COSCHED_COUNTER_ATTR(repay_refused, COSCHED_CNT_REPAY_REFUSED);	\
	static struct attribute *counter_attrs[] = {			\
		&counter_arrivals.kattr.attr,				\
		&counter_doorbells.kattr.attr,				\
		&counter_boosts.kattr.attr,				\
		&counter_boosted_ns.kattr.attr,				\
		&counter_blocks.kattr.attr,				\
		&counter_wakeups.kattr.attr,				\
		&counter_yields.kattr.attr,				\
		&counter_budget_exhausted.kattr.attr,			\
		&counter_repay_refused.kattr.attr,			\
		NULL,							\
	}

#endif /* _COSCHED_COUNTERS_H */
