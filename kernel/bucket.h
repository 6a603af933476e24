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

static inline void cosched_bucket_init(struct cosched_bucket *b)
{
	raw_spin_lock_init(&b->lock);
	b->window = 0;
	b->used_ns = 0;
}

#endif /* _COSCHED_BUCKET_H */
