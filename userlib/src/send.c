// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * send.c - cosched_send(): write into the receiver's ring with no system
 * call, then ring the doorbell only when the policy needs it.
 */
#include "internal.h"

#include <errno.h>
#include <sys/ioctl.h>

/*
 * Ring or not, decided before publishing so that the record can say so
 * (bit 31 of src_rank) and the receiver counts exactly the announced
 * messages in ->consumed, keeping pending = arrivals - consumed honest.
 *
 * The thesis's NIC rang when the receiver was off its CPU or armed to
 * block.  A sender cannot read the receiver's control page (it is private
 * to its owner), so in ABI 1 it goes by the policy, which the module
 * publishes identically on every control page: see ep_policy_rings().
 */
static int doorbell(struct cosched_ep *ep, uint32_t rank)
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

PUBLIC int cosched_send(struct cosched_ep *ep, uint32_t rank, const void *buf,
			size_t len)
{
	struct ep_ring *r;
	bool rang, full;
	int err = 0;

	r = ep_peer(ep, rank, &err);
	if (!r)
		return err;
	rang = ep_policy_rings(ep->ctrl);
	err = ring_put(&r->v, ep->rank, rang, buf, len, &full);
	if (full)
		COUNT(ep, send_full);
	if (err)
		return err;
	COUNT(ep, sends);
	/* The message is in the ring; a failed doorbell only delays it. */
	return rang ? doorbell(ep, rank) : 0;
}

PUBLIC ssize_t cosched_max_msg(struct cosched_ep *ep, uint32_t rank)
{
	struct ep_ring *r;
	int err = 0;

	r = ep_peer(ep, rank, &err);
	return r ? (ssize_t)r->v.max_msg : err;
}
