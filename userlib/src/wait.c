// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wait.c - the receive modes: poll, spin then block, spin then yield, and
 * the module's choice; cosched_wait() for transports we do not own.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

/* How long one poll stretch lasts before the policy is looked at again. */
#define POLL_CHUNK_NS	1000000ull
/* Spin at least this long between two yields, even with spin_us = 0. */
#define YIELD_MIN_NS	1000ull
/*
 * Under a policy whose senders do not ring (local, pb, pbt), nothing bumps
 * arrivals for a ring message: a receiver that blocks anyway (forced by
 * COSCHED_MODE_BLOCK) sleeps at most this long between looks at its ring.
 */
#define NO_BELL_NS	1000000ull

int ep_env_mode(void)
{
	static const char *const names[] = {
		[COSCHED_MODE_POLICY] = "policy",
		[COSCHED_MODE_POLL] = "poll",
		[COSCHED_MODE_BLOCK] = "block",
		[COSCHED_MODE_YIELD] = "yield",
	};
	const char *s = getenv("COSCHED_RECV_MODE");
	int i;

	for (i = COSCHED_MODE_POLICY; s && i <= COSCHED_MODE_YIELD; i++)
		if (!strcmp(s, names[i]))
			return i;
	return COSCHED_MODE_POLICY;
}

bool ep_policy_rings(const struct cosched_ctrl *c)
{
	uint32_t policy = __atomic_load_n(&c->policy, __ATOMIC_RELAXED);
	uint32_t wm = __atomic_load_n(&c->wait_mode, __ATOMIC_RELAXED);

	/* Receivers may sleep or be lowered: wake or restore them. */
	if (wm != COSCHED_WAIT_BUSY)
		return true;
	/* dcs boosts the receiver on the arrival itself. */
	return policy == COSCHED_POLICY_DCS || policy == COSCHED_POLICY_DCS_SB ||
	       policy == COSCHED_POLICY_DCS_SY;
}

int ep_mode(struct cosched_ep *ep, int mode)
{
	if (mode == COSCHED_MODE_DEFAULT)
		mode = ep->default_mode;
	if (mode != COSCHED_MODE_POLICY)
		return mode;
	switch (__atomic_load_n(&ep->ctrl->wait_mode, __ATOMIC_RELAXED)) {
	case COSCHED_WAIT_BLOCK:
		return COSCHED_MODE_BLOCK;
	case COSCHED_WAIT_YIELD:
		return COSCHED_MODE_YIELD;
	default:
		return COSCHED_MODE_POLL;
	}
}

/* Poll ready() for about ns; true as soon as it is. */
static bool spin(bool (*ready)(void *), void *arg, uint64_t ns)
{
	uint64_t t0 = cosched_now_ns();
	unsigned int i = 0;

	for (;;) {
		if (ready(arg))
			return true;
		/* Read the clock only now and then: it is the costly part. */
		if (!(++i & 31) && cosched_now_ns() - t0 >= ns)
			return false;
		cosched_cpu_relax();
	}
}

static void disarm(struct cosched_ctrl *c)
{
	__atomic_store_n(&c->armed, COSCHED_ARMED_NONE, __ATOMIC_RELAXED);
}

/*
 * The race-free block of design.rst: snapshot arrivals, arm, full
 * barrier, look once more, then sleep only while arrivals == seen.  An
 * arrival bumps the count before it looks for a sleeper, so either our
 * last look or the kernel's check sees it.  1 if ready, 0 after a wait.
 */
static int block(struct cosched_ep *ep, bool (*ready)(void *), void *arg,
		 uint64_t timeout_ns)
{
	struct cosched_ctrl *c = ep->ctrl;
	struct cosched_wait w = { .timeout_ns = timeout_ns };
	int ret;

	w.seen = __atomic_load_n(&c->arrivals, __ATOMIC_ACQUIRE);
	__atomic_store_n(&c->armed, COSCHED_ARMED_BLOCK, __ATOMIC_RELAXED);
	/* Order the store of armed before the last look (store-load). */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (ready(arg)) {
		disarm(c);
		return 1;
	}
	COUNT(ep, blocks);
	do
		ret = ioctl(ep->fd, COSCHED_IOC_WAIT, &w) ? -errno : 0;
	while (ret == -EINTR);
	disarm(c);
	return ret == -ETIMEDOUT ? 0 : ret;
}

/* Lower ourselves until the next arrival and boost a local endpoint. */
static int yield(struct cosched_ep *ep)
{
	struct cosched_yield y = {
		.seen = __atomic_load_n(&ep->ctrl->arrivals, __ATOMIC_ACQUIRE),
	};

	if (ioctl(ep->fd, COSCHED_IOC_YIELD, &y))
		return errno == EINTR ? 0 : -errno;
	if (y.lowered)
		COUNT(ep, yields);
	return 0;
}

static int wait_loop(struct cosched_ep *ep, bool (*ready)(void *), void *arg,
		     int req, uint64_t no_bell_ns)
{
	struct cosched_ctrl *c = ep->ctrl;
	uint64_t spin_ns, timeout;
	int mode, ret;

	for (;;) {
		/* Re-resolved every round: the policy can change under us. */
		mode = ep_mode(ep, req);
		spin_ns = __atomic_load_n(&c->spin_us, __ATOMIC_RELAXED) * 1000ull;
		if (mode == COSCHED_MODE_POLL)
			spin_ns = POLL_CHUNK_NS;
		else if (mode == COSCHED_MODE_YIELD && spin_ns < YIELD_MIN_NS)
			spin_ns = YIELD_MIN_NS;
		if (spin(ready, arg, spin_ns)) {
			COUNT(ep, spin_hits);
			return 0;
		}
		switch (mode) {
		case COSCHED_MODE_POLL:
			continue;
		case COSCHED_MODE_BLOCK:
			timeout = ep_policy_rings(c) ? 0 : no_bell_ns;
			ret = block(ep, ready, arg, timeout);
			break;
		case COSCHED_MODE_YIELD:
			ret = yield(ep);
			break;
		default:
			return -EINVAL;
		}
		if (ret < 0)
			return ret;
		if (ret > 0 || ready(arg))
			return 0;
	}
}

int ep_wait_ring(struct cosched_ep *ep, bool (*ready)(void *), void *arg,
		 int mode)
{
	int ret;

	__atomic_store_n(&ep->ctrl->waiting, 1, __ATOMIC_RELAXED);
	ret = wait_loop(ep, ready, arg, mode, NO_BELL_NS);
	__atomic_store_n(&ep->ctrl->waiting, 0, __ATOMIC_RELAXED);
	return ret;
}

PUBLIC int cosched_wait(struct cosched_ep *ep, bool (*ready)(void *),
			void *arg, int mode)
{
	int ret;

	if (mode < COSCHED_MODE_DEFAULT || mode > COSCHED_MODE_YIELD)
		return -EINVAL;
	if (ready(arg))
		return 0;
	__atomic_store_n(&ep->ctrl->waiting, 1, __ATOMIC_RELAXED);
	/* Other transports bump arrivals themselves: no timeout. */
	ret = wait_loop(ep, ready, arg, mode, 0);
	__atomic_store_n(&ep->ctrl->waiting, 0, __ATOMIC_RELAXED);
	return ret;
}
