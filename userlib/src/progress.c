// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * progress.c - another thread of ours may end our wait without an
 * arrival: under MPI_THREAD_MULTIPLE its MPI call reads the socket data
 * our waiting thread is after, or completes that thread's request in
 * MPI's progress engine.  The arrival, if any, was counted before our
 * waiter's last look; nothing rings after it.  So such a thread counts
 * itself (cosched_progress_begin), a full barrier, and rings our own
 * endpoint if the waiter is armed; the waiter arms, a full barrier, and
 * does not sleep or yield while the count is not 0 (ep_progress_held):
 * it spins on, as MPI's own waiting would.  Each side stores, fences,
 * then loads the other's word, so one of the two sees the other; and a
 * call that ended before the waiter's look dropped the count with
 * release, after its effects, which that look then sees.
 */
#include "internal.h"

/*
 * One doorbell per arming (wait.c's arm() clears progress_rung): the
 * waiter it wakes spins while the count is up, and a waiter that stays
 * armed (lowered by a yield) must not take a system call and a false
 * arrival per call of the other thread.
 */
PUBLIC void cosched_progress_begin(struct cosched_ep *ep)
{
	__atomic_fetch_add(&ep->progress, 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (ep_has_module(ep) &&
	    __atomic_load_n(&ep->own.v.hdr->armed, __ATOMIC_ACQUIRE) !=
	    COSCHED_ARMED_NONE &&
	    !__atomic_exchange_n(&ep->progress_rung, true, __ATOMIC_RELAXED))
		ep_doorbell(ep, ep->rank);
}

PUBLIC void cosched_progress_end(struct cosched_ep *ep)
{
	__atomic_fetch_sub(&ep->progress, 1, __ATOMIC_RELEASE);
}

bool ep_progress_held(struct cosched_ep *ep)
{
	return __atomic_load_n(&ep->progress, __ATOMIC_ACQUIRE) != 0;
}
