// SPDX-License-Identifier: GPL-2.0
/*
 * Event counters' sysfs files.
 */
#include "counters.h"

/**
 * cosched_counter_show() - print one counter for sysfs
 * @c: the counters of the directory
 * @a: a file made by COSCHED_COUNTER_ATTRS()
 * @buf: the sysfs page
 *
 * Return: the length written.
 */
ssize_t cosched_counter_show(const struct cosched_counters *c,
			     struct kobj_attribute *a, char *buf)
{
	enum cosched_counter i = container_of(a, struct cosched_counter_attr,
					      kattr)->index;

	return sysfs_emit(buf, "%lld\n", atomic64_read(&c->val[i]));
}
