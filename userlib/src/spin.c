// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * spin.c - how long a receiver spins before it blocks or yields: the
 * module's spin_us, a value of the caller's, or "auto": as long as a
 * block and wake-up costs here, measured (the competitive-spinning
 * argument: spinning that long at most doubles the cost of the worst
 * case, and saves the whole block when the message comes in time).
 */
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

/* Samples of the block-and-wake cost; the median is used. */
#define AUTO_SAMPLES	15
/* How long the waker lets the sleeper settle into its block. */
#define AUTO_SETTLE_NS	200000L

struct waker {
	struct cosched_ep *ep;
	uint64_t rang_ns[AUTO_SAMPLES];
	volatile int go;	/* sample number the sleeper is ready for */
};

static void *waker_main(void *p)
{
	struct timespec settle = { 0, AUTO_SETTLE_NS };
	struct waker *w = p;
	int i;

	for (i = 0; i < AUTO_SAMPLES; i++) {
		while (__atomic_load_n(&w->go, __ATOMIC_ACQUIRE) <= i)
			cosched_cpu_relax();
		nanosleep(&settle, NULL);
		w->rang_ns[i] = cosched_now_ns();
		ep_doorbell(w->ep, w->ep->rank);
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The time from a doorbell to the sleeper running again: the syscall of
 * the doorbell, the wake-up and the context switch, which a spin that
 * finds the message saves.  A thread of ours rings our own endpoint.
 */
static int measure_block_wake_ns(struct cosched_ep *ep, uint64_t *ns)
{
	uint64_t cost[AUTO_SAMPLES];
	struct cosched_wait wt = { 0 };
	struct waker w = { .ep = ep };
	pthread_t t;
	int i, err = 0;

	if (pthread_create(&t, NULL, waker_main, &w))
		return -EAGAIN;
	for (i = 0; i < AUTO_SAMPLES; i++) {
		wt.seen = __atomic_load_n(&ep->ctrl->arrivals, __ATOMIC_ACQUIRE);
		__atomic_store_n(&w.go, i + 1, __ATOMIC_RELEASE);
		while (ioctl(ep->fd, COSCHED_IOC_WAIT, &wt))
			if (errno != EINTR) {
				err = -errno;
				break;
			}
		cost[i] = cosched_now_ns();
	}
	pthread_join(t, NULL);
	for (i = 0; i < AUTO_SAMPLES; i++) {
		if (cost[i] < w.rang_ns[i] && !err)
			err = -EIO;	/* woken by something else */
		cost[i] -= w.rang_ns[i];
	}
	/* Our own doorbells are not messages: nothing is pending. */
	ep_consumed(ep, __atomic_load_n(&ep->ctrl->arrivals, __ATOMIC_ACQUIRE));
	qsort(cost, AUTO_SAMPLES, sizeof(cost[0]), cmp_u64);
	*ns = cost[AUTO_SAMPLES / 2];
	return err;
}

PUBLIC int cosched_set_spin(struct cosched_ep *ep, long us)
{
	uint64_t ns;
	int err;

	if (us == COSCHED_SPIN_MODULE) {
		ep->spin_ns = -1;
		return 0;
	}
	if (us >= 0) {
		if (us > COSCHED_SPIN_MAX_US)
			return -ERANGE;
		ep->spin_ns = (int64_t)us * 1000;
		return 0;
	}
	if (us != COSCHED_SPIN_AUTO)
		return -EINVAL;
	if (!ep_has_module(ep))
		return -EOPNOTSUPP;	/* nothing to block in */
	err = measure_block_wake_ns(ep, &ns);
	if (!err)
		ep->spin_ns = (int64_t)ns;
	return err;
}

PUBLIC long cosched_get_spin(struct cosched_ep *ep)
{
	if (ep->spin_ns >= 0)
		return (long)((ep->spin_ns + 999) / 1000);
	return (long)__atomic_load_n(&ep->ctrl->spin_us, __ATOMIC_RELAXED);
}

/* $COSCHED_SPIN_US: microseconds, or "auto"; unset: the module's. */
int ep_spin_from_env(struct cosched_ep *ep)
{
	const char *s = getenv("COSCHED_SPIN_US");
	char *end;
	long us;

	ep->spin_ns = -1;
	if (!s || !*s)
		return 0;
	if (!strcmp(s, "auto")) {
		/* Without the module there is no block to weigh: poll. */
		return ep_has_module(ep) ? cosched_set_spin(ep, COSCHED_SPIN_AUTO)
					 : 0;
	}
	errno = 0;
	us = strtol(s, &end, 10);
	if (errno || *end || us < 0)
		return -EINVAL;
	return cosched_set_spin(ep, us);
}
