// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * send.c - cosched_send(): write into the receiver's ring with no system
 * call, then ring the doorbell only when the receiver needs it; or hand
 * the message to the TCP transport for a rank on another node.
 */
#include "internal.h"

#include <errno.h>
#include <sys/ioctl.h>

int ep_doorbell(struct cosched_ep *ep, uint32_t rank)
{
	struct cosched_doorbell db = {
		.job_id = ep->job,
		.rank = rank,
		.count = 1,
	};

	if (ioctl(ep->fd, COSCHED_IOC_DOORBELL, &db))
		return -errno;
	COUNT(ep, doorbells);
	return 0;
}

/* Does the active policy act on an arrival itself (dcs boosts at once)? */
static bool policy_boosts_on_arrival(const struct cosched_ctrl *c)
{
	switch (__atomic_load_n(&c->policy, __ATOMIC_RELAXED)) {
	case COSCHED_POLICY_DCS:
	case COSCHED_POLICY_DCS_SB:
	case COSCHED_POLICY_DCS_SY:
	case COSCHED_POLICY_DCS_FAIR:
		return true;
	default:
		return false;
	}
}

/*
 * The thesis NIC's decision, made after the message is published: ring
 * when the receiver is armed to block or yielded (it needs waking or
 * restoring), or when the policy boosts on arrival and the receiver is
 * off its CPU.  The full barrier pairs with the receiver's between arming
 * and its last look at the ring (struct cosched_ring): either it sees the
 * message or we see it armed.  Under pb the module finds the message by
 * itself at its next tick.
 */
static bool needs_doorbell(struct cosched_ep *ep, const struct ep_ring *r)
{
	const struct cosched_ring *h = r->v.hdr;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&h->armed, __ATOMIC_RELAXED) != COSCHED_ARMED_NONE)
		return true;
	return policy_boosts_on_arrival(ep->ctrl) &&
	       !__atomic_load_n(&h->on_cpu, __ATOMIC_RELAXED);
}

struct dest {
	const struct cosched_ep *ep;
	const struct ep_ring *r;
};

/*
 * Policies that pick the endpoint with the newest pending message (pbt,
 * and the yield target of the sy family) need a time stamp per send; the
 * others are spared the clock read.
 */
static bool policy_wants_time(const struct cosched_ctrl *c)
{
	switch (__atomic_load_n(&c->policy, __ATOMIC_RELAXED)) {
	case COSCHED_POLICY_PBT:
	case COSCHED_POLICY_SY:
	case COSCHED_POLICY_DCS_SY:
	case COSCHED_POLICY_PB_SY:
	case COSCHED_POLICY_PBA_SY:
		return true;
	default:
		return false;
	}
}

/* Has the owner of the ring left?  -EPIPE stops a sender. */
static int ring_gone(void *p)
{
	const struct dest *d = p;

	if (__atomic_load_n(&d->r->v.hdr->flags, __ATOMIC_RELAXED) &
	    (COSCHED_RING_CLOSED | COSCHED_RING_LOST))
		return -EPIPE;
	return shm_ring_gone(d->ep, d->r) ? -EPIPE : 0;
}

static int send_ring(struct cosched_ep *ep, uint32_t rank, const void *buf,
		     size_t len)
{
	struct ep_ring *r;
	struct dest d;
	bool full = false;
	int err = 0;

	r = ep_peer(ep, rank, &err);
	if (!r)
		return err;
	d.ep = ep;
	d.r = r;
	/* Cheap with the module; a kill(2) without it, so only when full. */
	if (__atomic_load_n(&r->v.hdr->flags, __ATOMIC_RELAXED))
		err = ring_gone(&d);
	if (!err)
		err = ring_put(&r->v, ep->rank, buf, len, ring_gone, &d, &full);
	if (full)
		COUNT(ep, send_full);
	if (err)
		return err;
	COUNT(ep, sends);
	if (policy_wants_time(ep->ctrl))
		ring_stamp(&r->v);
	/* The message is in the ring; a failed doorbell only delays it. */
	if (ep_has_module(ep) && needs_doorbell(ep, r))
		return ep_doorbell(ep, rank);
	return 0;
}

PUBLIC int cosched_send(struct cosched_ep *ep, uint32_t rank, const void *buf,
			size_t len)
{
	int err;

	if (rank >= ep->size)
		return -EINVAL;
	if (!ep->net || !net_remote(ep->net, rank))
		return send_ring(ep, rank, buf, len);
	err = net_send(ep->net, rank, buf, len);
	if (!err)
		COUNT(ep, sends);
	return err;
}

PUBLIC ssize_t cosched_max_msg(struct cosched_ep *ep, uint32_t rank)
{
	struct ep_ring *r;
	int err = 0;

	if (rank < ep->size && ep->net && net_remote(ep->net, rank))
		return ep->own.v.max_msg;
	r = ep_peer(ep, rank, &err);
	return r ? (ssize_t)r->v.max_msg : err;
}
