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
/* Without the module, how often to look for peers that died. */
#define LOST_CHECK_NS	10000000ull

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

int ep_check_lost(struct cosched_ep *ep)
{
	struct cosched_ctrl *c = ep->ctrl;
	uint32_t lost;

	if (!ep_has_module(ep) && cosched_now_ns() >= ep->next_lost_check_ns) {
		/* No module tells us: look at the peers' pids now and then. */
		ep->next_lost_check_ns = cosched_now_ns() + LOST_CHECK_NS;
		shm_find_lost(ep);
	}
	lost = __atomic_load_n(&c->peers_lost, __ATOMIC_RELAXED);
	if (lost == __atomic_load_n(&c->lost_seen, __ATOMIC_RELAXED))
		return 0;
	__atomic_store_n(&c->lost_seen, lost, __ATOMIC_RELAXED);
	return -ECONNRESET;
}

int ep_mode(struct cosched_ep *ep, int mode)
{
	/* Without the module there is nothing to block or yield in. */
	if (!ep_has_module(ep))
		return COSCHED_MODE_POLL;
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

/* What wait_loop() keeps from one round to the next. */
struct wait_state {
	bool lowered;		/* a yield lowered us: end_yield() at the end */
	uint64_t look;		/* the arrival count before the latest spin look */
	bool spun_on;		/* block() spun on since the latest sleep */
	bool quiet;		/* a sleep ran out its timeout, nothing came */
	uint64_t quiet_arrivals, quiet_tail;	/* what had come by then */
};

static uint64_t own_tail(struct cosched_ep *ep)
{
	return __atomic_load_n(&ep->own.v.hdr->tail, __ATOMIC_ACQUIRE);
}

/*
 * Poll ready() for about ns; true as soon as it is.  The clock is read
 * only every 32 polls, the first time after 32: a message that comes
 * quickly costs no clock read at all.
 */
static bool spin(struct cosched_ep *ep, bool (*ready)(void *), void *arg,
		 uint64_t ns, struct wait_state *ws)
{
	uint64_t t0 = 0;
	unsigned int i = 0;

	for (;;) {
		ws->look = cosched_arrivals(ep);
		if (ready(arg))
			return true;
		if (!(++i & 31)) {
			if (!t0)
				t0 = cosched_now_ns();
			else if (cosched_now_ns() - t0 >= ns)
				return false;
		}
		cosched_cpu_relax();
	}
}

/*
 * Arm: tell senders (through our ring's header) and the module (through
 * the control page) that we are about to block or have yielded, then a
 * full barrier before the caller's last look at its sources.
 */
static void arm(struct cosched_ep *ep, uint32_t how)
{
	/* Cleared before the new arming is seen (progress.c). */
	__atomic_store_n(&ep->progress_rung, false, __ATOMIC_RELAXED);
	__atomic_store_n(&ep->ctrl->armed, how, __ATOMIC_RELAXED);
	__atomic_store_n(&ep->own.v.hdr->armed, how, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void disarm(struct cosched_ep *ep)
{
	__atomic_store_n(&ep->own.v.hdr->armed, COSCHED_ARMED_NONE,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&ep->ctrl->armed, COSCHED_ARMED_NONE,
			 __ATOMIC_RELAXED);
}

/*
 * The caller's last look after arming found nothing: every arrival up to
 * seen, read before that look, is consumed (for cosched_wait()'s callers
 * too: their ready() said no), unless our own ring holds a message.
 * Then poll() does not call us readable and no policy boosts us for it.
 */
static void drained(struct cosched_ep *ep, uint64_t seen)
{
	if (seen != __atomic_load_n(&ep->ctrl->consumed, __ATOMIC_RELAXED) &&
	    !ring_busy(&ep->own.v))
		ep_consumed(ep, seen);
}

/* Sleep in the module, or in the TCP transport's ring if we have one. */
static int sleep_once(struct cosched_ep *ep, uint64_t seen)
{
	struct cosched_wait w = {
		.seen = seen,
		.timeout_ns = ep->wait_timeout_ns,
	};
	int ret;

	if (ep->net) {
		/* Our file polls readable on a doorbell: see cosched_poll(). */
		ret = net_wait(ep->net, ep->wait_timeout_ns);
		return ret == -EINTR || ret == -ETIMEDOUT ? 0 : ret;
	}
	return ioctl(ep->fd, COSCHED_IOC_WAIT, &w) ? -errno : 0;
}

/*
 * The race-free block of design.rst: snapshot arrivals, arm, full
 * barrier, look once more, then sleep only while arrivals == seen.  A
 * sender publishes, then a barrier, then reads armed and rings; the
 * module bumps arrivals before it looks for a sleeper.  So either our
 * last look or the sender sees the other.
 *
 * Something that arrived after the latest spin look began is left to
 * the spin, once between two sleeps: the last look may take it in
 * without finishing (MPI's progress can need one more call to complete
 * a request from data it has read, as a non-blocking collective's next
 * round does), and then nothing would come to end the sleep.  Once
 * only, so that steady traffic for others does not keep us spinning:
 * a sleep is then ended by the next arrival anyway.
 * 1 if ready, 0 to go round again (after a sleep, or to spin on).
 */
static int block(struct cosched_ep *ep, bool (*ready)(void *), void *arg,
		 struct wait_state *ws)
{
	struct cosched_ctrl *c = ep->ctrl;
	uint64_t seen, tail;
	int ret;

	seen = __atomic_load_n(&c->arrivals, __ATOMIC_ACQUIRE);
	if (seen != ws->look && !ws->spun_on) {
		ws->spun_on = true;
		COUNT_RX(ep, spin_ons);
		return 0;
	}
	tail = own_tail(ep);
	arm(ep, COSCHED_ARMED_BLOCK);
	/* Another thread's progress may end our wait (progress.c). */
	if (ep_progress_held(ep)) {
		disarm(ep);
		return 0;
	}
	if (ready(arg)) {
		disarm(ep);
		return 1;
	}
	drained(ep, seen);
	COUNT_RX(ep, blocks);
	ret = sleep_once(ep, seen);
	disarm(ep);
	ws->spun_on = false;
	if (ret == -ETIMEDOUT && cosched_arrivals(ep) == seen) {
		/* Counted if the wait completes before anything comes. */
		ws->quiet = true;
		ws->quiet_arrivals = seen;
		ws->quiet_tail = tail;
	}
	return ret == -EINTR || ret == -ETIMEDOUT ? 0 : ret;
}

/*
 * The wait completed.  If its latest sleep that ran out its timeout
 * with nothing arrived was followed by nothing either (no arrival
 * counted, no message published into our ring since before that
 * sleep's last look: a sender's doorbell may still be on its way), what
 * completed it was there without waking us: a missed wake-up
 * (cosched_missed_wakeups).  A slow peer's timeout is not one: its
 * message comes after.
 */
static void count_missed(struct cosched_ep *ep, const struct wait_state *ws)
{
	if (ws->quiet && cosched_arrivals(ep) == ws->quiet_arrivals &&
	    own_tail(ep) == ws->quiet_tail)
		COUNT_RX(ep, missed_wakeups);
}

/* Lower ourselves until the next arrival and boost a local endpoint. */
static int yield(struct cosched_ep *ep, bool (*ready)(void *), void *arg,
		 bool *lowered)
{
	struct cosched_yield y = {
		.seen = __atomic_load_n(&ep->ctrl->arrivals, __ATOMIC_ACQUIRE),
	};

	arm(ep, COSCHED_ARMED_YIELD);
	if (ep_progress_held(ep)) {
		if (!*lowered)
			disarm(ep);
		return 0;
	}
	if (ready(arg))
		return 1;
	drained(ep, y.seen);
	if (ioctl(ep->fd, COSCHED_IOC_YIELD, &y))
		return errno == EINTR ? 0 : -errno;
	if (y.lowered) {
		COUNT_RX(ep, yields);
		*lowered = true;
	}
	return 0;
}

/*
 * A yield ends when the module sees the message arrive.  One that came
 * another way (the TCP transport, a transport of cosched_wait()'s caller
 * without a BPF hook) ends here.
 */
static void end_yield(struct cosched_ep *ep)
{
	struct cosched_yield y = {
		.seen = __atomic_load_n(&ep->ctrl->arrivals, __ATOMIC_ACQUIRE),
		.flags = COSCHED_YIELD_END,
	};

	disarm(ep);
	if (__atomic_load_n(&ep->ctrl->state, __ATOMIC_RELAXED) &
	    COSCHED_STATE_YIELDED)
		ioctl(ep->fd, COSCHED_IOC_YIELD, &y);
}

static uint64_t spin_ns(struct cosched_ep *ep, int mode)
{
	uint64_t ns = ep->spin_ns >= 0 ? (uint64_t)ep->spin_ns :
		__atomic_load_n(&ep->ctrl->spin_us, __ATOMIC_RELAXED) * 1000ull;

	if (mode == COSCHED_MODE_POLL)
		return POLL_CHUNK_NS;
	if (mode == COSCHED_MODE_YIELD && ns < YIELD_MIN_NS)
		return YIELD_MIN_NS;
	return ns;
}

static int wait_loop(struct cosched_ep *ep, bool (*ready)(void *), void *arg,
		     int req)
{
	struct wait_state ws = { .lowered = false };
	int mode, ret;

	for (;;) {
		/* Re-resolved every round: the policy can change under us. */
		mode = ep_mode(ep, req);
		if (spin(ep, ready, arg, spin_ns(ep, mode), &ws)) {
			COUNT_RX(ep, spin_hits);
			ret = 0;
			break;
		}
		ret = ep_check_lost(ep);
		if (ret)
			break;
		switch (mode) {
		case COSCHED_MODE_POLL:
			continue;
		case COSCHED_MODE_BLOCK:
			ret = block(ep, ready, arg, &ws);
			break;
		case COSCHED_MODE_YIELD:
			ret = yield(ep, ready, arg, &ws.lowered);
			break;
		default:
			ret = -EINVAL;
		}
		if (ret == -ECONNRESET)
			ret = ep_check_lost(ep) ? -ECONNRESET : 0;
		if (ret < 0)
			break;
		if (ret > 0 || ready(arg)) {
			ret = 0;
			break;
		}
	}
	if (!ret)
		count_missed(ep, &ws);
	if (ep_has_module(ep))
		(ws.lowered ? end_yield : disarm)(ep);
	return ret;
}

int ep_wait_ring(struct cosched_ep *ep, bool (*ready)(void *), void *arg,
		 int mode)
{
	int ret;

	__atomic_store_n(&ep->ctrl->waiting, 1, __ATOMIC_RELAXED);
	ret = wait_loop(ep, ready, arg, mode);
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
	ret = wait_loop(ep, ready, arg, mode);
	__atomic_store_n(&ep->ctrl->waiting, 0, __ATOMIC_RELAXED);
	return ret;
}

PUBLIC uint64_t cosched_arrivals(struct cosched_ep *ep)
{
	return __atomic_load_n(&ep->ctrl->arrivals, __ATOMIC_ACQUIRE);
}

/*
 * The module writes the policy into every endpoint's control page at
 * each change (sysfs, modprobe); an endpoint without the module has
 * local there.
 */
PUBLIC int cosched_get_policy(struct cosched_ep *ep)
{
	return (int)__atomic_load_n(&ep->ctrl->policy, __ATOMIC_RELAXED);
}

PUBLIC int cosched_get_wait_mode(struct cosched_ep *ep, int mode)
{
	if (mode < COSCHED_MODE_DEFAULT || mode > COSCHED_MODE_YIELD)
		return -EINVAL;
	return ep_mode(ep, mode);
}

/*
 * seen must come from cosched_arrivals() before the caller's last look:
 * a larger value would hide arrivals still to come, so it is capped at
 * the count now.  A message in our own ring is not the caller's to
 * declare consumed.
 */
PUBLIC void cosched_consumed(struct cosched_ep *ep, uint64_t seen)
{
	uint64_t now;

	if (seen <= __atomic_load_n(&ep->ctrl->consumed, __ATOMIC_RELAXED) ||
	    ring_busy(&ep->own.v))
		return;
	now = cosched_arrivals(ep);
	ep_consumed(ep, seen < now ? seen : now);
}

/*
 * For callers whose ready() can turn true without an arrival the module
 * sees (a socket waiting for write space): a block then ends after us.
 */
PUBLIC int cosched_set_wait_timeout(struct cosched_ep *ep, long us)
{
	if (us < 0)
		return -EINVAL;
	if (us > COSCHED_WAIT_TIMEOUT_MAX_US)
		return -ERANGE;
	ep->wait_timeout_ns = (uint64_t)us * 1000;
	return 0;
}
