// SPDX-License-Identifier: GPL-2.0
/*
 * The end of an endpoint's life: endpoint.c makes it unreachable and
 * then frees it, and what runs on tasks because of it (a boost charged
 * to its job, a yield made for it, a peer's yield waiting on it) is
 * ended here, between the two.
 */
#include "boost.h"
#include "endpoint.h"
#include "policy.h"

/* A peer of @ep's job is lost: @ep's waits end, and a yield for it. */
static void cosched_peer_lost(struct cosched_ep *ep)
{
	cosched_ep_peer_lost(ep);
	cosched_unlower(ep);
}

/**
 * cosched_close_ep() - unlist an endpoint and end everything it started
 * @ep: the endpoint; the caller's reference is dropped
 * @orderly: the owner asked for it (COSCHED_IOC_DESTROY); otherwise the
 *	file went away with its endpoint, and the job's other endpoints are
 *	told that they lost a peer
 *
 * Waiters return -EIDRM, a boost or a yield is undone at once, and the
 * memory goes when the last reference does.  The caller has dropped the
 * endpoint's arrival hooks first.
 */
void cosched_close_ep(struct cosched_ep *ep, bool orderly)
{
	WARN_ON_ONCE(!READ_ONCE(ep->hooks_closed));
	cosched_ep_unlist(ep, orderly, cosched_peer_lost);
	/* No boost or lowering for it can start after this. */
	WRITE_ONCE(ep->dead, true);
	cosched_ep_prio_release(ep);
	cosched_ep_retire(ep);
}
