// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * recv.c - cosched_recv() and cosched_probe(): consume our own ring.
 */
#include "internal.h"

#include <errno.h>

struct recv_arg {
	struct cosched_ep *ep;
	uint32_t *src;
	void *buf;
	size_t len;
	ssize_t ret;
};

/* One attempt; true when done (a message, or an error other than empty). */
static bool try_recv(void *p)
{
	struct recv_arg *a = p;
	struct cosched_ep *ep = a->ep;
	struct ring_msg m;

	a->ret = ring_get(&ep->own.v, &m, a->buf, a->len);
	if (a->ret == -EAGAIN)
		return false;
	if (a->ret >= 0) {
		COUNT(ep, receives);
		if (a->src)
			*a->src = m.src;
		/* Only announced messages were counted in arrivals. */
		if (m.rang)
			__atomic_store_n(&ep->ctrl->consumed,
					 ep->ctrl->consumed + 1,
					 __ATOMIC_RELAXED);
	}
	return true;
}

PUBLIC ssize_t cosched_recv(struct cosched_ep *ep, uint32_t *src_rank,
			    void *buf, size_t len, int mode)
{
	struct recv_arg a = { ep, src_rank, buf, len, -EAGAIN };
	int err;

	if (mode < COSCHED_MODE_DEFAULT || mode > COSCHED_MODE_YIELD)
		return -EINVAL;
	if (try_recv(&a))
		return a.ret;
	err = ep_wait_ring(ep, try_recv, &a, mode);
	return err ? err : a.ret;
}

PUBLIC int cosched_probe(struct cosched_ep *ep, uint32_t *src, size_t *len)
{
	struct ring_msg m;
	int err = ring_peek(&ep->own.v, &m);

	if (err)
		return err;
	if (src)
		*src = m.src;
	if (len)
		*len = m.len;
	return 0;
}
