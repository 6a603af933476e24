/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A budget bucket: the boosted time reserved in the current window.
 * Jobs, users, CPUs and the node each have one; budget.c fills them.
 */
#ifndef _COSCHED_BUCKET_H
#define _COSCHED_BUCKET_H

#include <linux/spinlock.h>
#include <linux/types.h>

struct cosched_bucket {
	raw_spinlock_t lock;
	u64 window;		/* the window this counts for */
	u64 used_ns;
};

/*
 * A macro, so that each place that makes buckets gives them a lock class
 * of their own (raw_spin_lock_init() keys the class on its call site): a
 * boost holds a node, a CPU, a user and a job bucket at once, in that
 * order, and lockdep must see four classes, not one taken recursively.
 */
#define cosched_bucket_init(bucket)				\
	do {							\
		struct cosched_bucket *__b = (bucket);		\
								\
		raw_spin_lock_init(&__b->lock);			\
		__b->window = 0;				\
		__b->used_ns = 0;				\
	} while (0)

#endif /* _COSCHED_BUCKET_H */
