// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * recv.c - cosched_recv() and cosched_probe(): our own ring first, then
 * the TCP transport's completions.
 */
#include "internal.h"

#include <errno.h>
#include <string.h>

/*
 * After a message from our own ring: once the ring is empty, every
 * arrival counted up to a read made now is consumed.  A sender publishes,
 * then rings, so a doorbell in that count belongs to a message the look
 * at the ring (after the read) would find; read again after the take, the
 * count includes the doorbell of the message just taken even when it
 * came after our first look, which a snapshot from before the take would
 * leave pending for good in poll mode.
 */
static void mark_drained(struct cosched_ep *ep)
{
	uint64_t arrivals = __atomic_load_n(&ep->ctrl->arrivals,
					    __ATOMIC_ACQUIRE);

	/*
	 * Nothing announced since the last mark (always so under local):
	 * skip the look at tail, a line the senders write.
	 */
	if (arrivals == __atomic_load_n(&ep->ctrl->consumed, __ATOMIC_RELAXED))
		return;
	if (!ring_busy(&ep->own.v))
		ep_consumed(ep, arrivals);
}

/* The TCP transport's first message, straight into the caller's buffer. */
static int take_net(void *p, uint32_t src, const void *buf, size_t len)
{
	struct recv_arg *a = p;

	if (a->ret != -EAGAIN) {
		a->more = true;
		return -EAGAIN;		/* one message per call */
	}
	if (len > a->len) {
		a->ret = -EMSGSIZE;	/* it stays for a bigger buffer */
		return -EAGAIN;
	}
	memcpy(a->buf, buf, len);
	if (a->src)
		*a->src = src;
	a->ret = (ssize_t)len;
	return 0;
}

/*
 * After net_poll() found nothing: if the arrival count moved since the
 * last time, make the kernel post what it holds back, and say whether a
 * second look is worth it.  The module's hook counts a TCP arrival when
 * the data reaches the socket, but io_uring posts the receive's
 * completion only when this task runs its task work: at its next system
 * call, or when the kernel's kick (an interrupt) reaches it, which a
 * busy-polling receiver may wait milliseconds for (Documentation/
 * hooks.rst).  One system call per such arrival at most; only the
 * receiving thread calls this, so net_fetched needs no atomics.
 */
static bool net_fetch_due(struct cosched_ep *ep, uint64_t arrivals)
{
	if (arrivals == ep->net_fetched || !ep_has_module(ep))
		return false;
	ep->net_fetched = arrivals;
	return net_fetch(ep->net) >= 0;
}

static ssize_t recv_net(struct recv_arg *a, uint64_t arrivals)
{
	int n;

	a->ret = -EAGAIN;
	n = net_poll(a->ep->net, take_net, a);
	if (!n && net_fetch_due(a->ep, arrivals)) {
		n = net_poll(a->ep->net, take_net, a);
	} else if (n > 0 && !a->more) {
		/*
		 * Our last message, as far as the completions reaped so far
		 * go: have those of every arrival counted posted, so that
		 * the caller may publish consumed unless one is waiting (a
		 * recv re-armed by that poll may have completed at once).
		 */
		if (arrivals != a->ep->net_fetched &&
		    !net_fetch_due(a->ep, arrivals))
			a->more = true;
		else
			a->more = net_pending(a->ep->net);
	}
	if (n < 0 && a->ret == -EAGAIN)
		a->ret = n;
	return a->ret;
}

/* One attempt; true when done (a message, or an error other than empty). */
bool ep_try_recv(void *p)
{
	struct recv_arg *a = p;
	struct cosched_ep *ep = a->ep;
	uint64_t arrivals;
	struct ring_msg m;

	if (a->stop && __atomic_load_n(a->stop, __ATOMIC_ACQUIRE)) {
		a->ret = -ECANCELED;
		return true;
	}
	arrivals = __atomic_load_n(&ep->ctrl->arrivals, __ATOMIC_ACQUIRE);
	a->more = false;
	a->ret = ring_get(&ep->own.v, &m, a->buf, a->len);
	if (a->ret >= 0) {
		if (a->src)
			*a->src = m.src;
		/* With a TCP transport, the next look covers both. */
		if (!ep->net)
			mark_drained(ep);
	} else if (a->ret == -EAGAIN) {
		if (ep->net)
			recv_net(a, arrivals);
		/*
		 * Both sources looked at after arrivals was read: empty, or
		 * the net's last message taken with every arrival up to
		 * arrivals fetched from the kernel (net_fetch_due).
		 */
		if (a->ret == -EAGAIN ||
		    (a->ret >= 0 && !a->more && ep->net_fetched == arrivals))
			ep_consumed(ep, arrivals);
	}
	if (a->ret == -EAGAIN)
		return false;
	if (a->ret >= 0)
		COUNT_RX(ep, receives);
	return true;
}

PUBLIC ssize_t cosched_recv(struct cosched_ep *ep, uint32_t *src_rank,
			    void *buf, size_t len, int mode)
{
	struct recv_arg a = { ep, src_rank, buf, len, -EAGAIN, NULL, false };
	int err;

	if (mode < COSCHED_MODE_DEFAULT || mode > COSCHED_MODE_YIELD)
		return -EINVAL;
	if (__atomic_load_n(&ep->cb, __ATOMIC_RELAXED))
		return -EBUSY;
	if (ep_try_recv(&a))
		return a.ret;
	err = ep_wait_ring(ep, ep_try_recv, &a, mode);
	return err ? err : a.ret;
}

struct probe_arg {
	uint32_t src;
	size_t len;
	bool found;
};

static int peek_net(void *p, uint32_t src, const void *buf, size_t len)
{
	struct probe_arg *a = p;

	(void)buf;
	if (!a->found) {
		a->found = true;
		a->src = src;
		a->len = len;
	}
	return -EAGAIN;		/* a probe consumes nothing */
}

PUBLIC int cosched_probe(struct cosched_ep *ep, uint32_t *src, size_t *len)
{
	struct probe_arg a = { 0, 0, false };
	struct ring_msg m;
	uint64_t arrivals;
	int err;

	if (__atomic_load_n(&ep->cb, __ATOMIC_RELAXED))
		return -EBUSY;
	arrivals = __atomic_load_n(&ep->ctrl->arrivals, __ATOMIC_ACQUIRE);
	err = ring_peek(&ep->own.v, &m);
	if (!err) {
		a.src = m.src;
		a.len = m.len;
	} else if (err == -EAGAIN && ep->net) {
		err = net_poll(ep->net, peek_net, &a);
		if (!a.found && !err && net_fetch_due(ep, arrivals))
			err = net_poll(ep->net, peek_net, &a);
		err = a.found ? 0 : err < 0 ? err : -EAGAIN;
	}
	if (err == -EAGAIN)
		ep_consumed(ep, arrivals);	/* found nothing after the read */
	if (err)
		return err;
	if (src)
		*src = a.src;
	if (len)
		*len = a.len;
	return 0;
}
