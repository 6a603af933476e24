/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The boost engine: a task's scheduling attributes changed for a bounded
 * time (a boost) or lowered for a spin-yield, and always put back.
 */
#ifndef _COSCHED_BOOST_H
#define _COSCHED_BOOST_H

#include <linux/types.h>

struct cosched_ep;
struct cosched_task_ops;

/* Why a boost was asked for, for the tracepoint. */
enum cosched_boost_reason {
	COSCHED_BOOST_ARRIVAL,
	COSCHED_BOOST_PERIODIC,
	COSCHED_BOOST_YIELD,
	COSCHED_BOOST_PREEMPTED,	/* lost its CPU with a message unread */
	COSCHED_BOOST_ALIGNED,		/* its job's turn under pba */
};

extern const struct cosched_task_ops cosched_boost_task_ops;

bool cosched_boost(struct cosched_ep *ep, enum cosched_boost_reason reason);
bool cosched_boost_for(struct cosched_ep *ep, enum cosched_boost_reason reason,
		       u64 want_ns);
void cosched_prio_restore(struct cosched_ep *ep);
bool cosched_lower(struct cosched_ep *ep, u64 seen);
u64 cosched_repay_due(struct cosched_ep *ep, bool *through);
void cosched_repay_woke(struct cosched_ep *ep, u64 slept_ns);
void cosched_unlower(struct cosched_ep *ep);
bool cosched_lowered_for(struct cosched_ep *ep);
void cosched_ep_prio_release(struct cosched_ep *ep);

#endif /* _COSCHED_BOOST_H */
