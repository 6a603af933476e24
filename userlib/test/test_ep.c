// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_ep - host unit tests of the endpoint layer (send, recv, probe,
 * wait modes, doorbell decision, peer loss, spin, callback mode,
 * counters) on a fake endpoint whose control page and own ring are plain
 * memory and whose file is /dev/null.  Anything that reaches the kernel
 * fails with -ENOTTY, which the tests use to see that it was (or was not)
 * reached.  TAP output.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "tap.h"

/*
 * The test's ioctl(2), ahead of the C library's in the link: counts the
 * calls that would reach the module, then does the real one (ENOTTY on
 * /dev/null, as before).
 */
static int n_doorbell_ioctls, n_wait_ioctls;
/*
 * With wait_timeout set, a COSCHED_IOC_WAIT sleeps out its timeout, and
 * while it sleeps in_wait() (if set) does what happens meanwhile.
 */
static bool wait_timeout;
static void (*in_wait)(void);

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	n_doorbell_ioctls += req == COSCHED_IOC_DOORBELL;
	n_wait_ioctls += req == COSCHED_IOC_WAIT;
	if (req == COSCHED_IOC_WAIT && wait_timeout) {
		if (in_wait)
			in_wait();
		errno = ETIMEDOUT;
		return -1;
	}
	return (int)syscall(SYS_ioctl, fd, req, arg);
}

static struct cosched_ep *fake_ep(uint32_t policy, uint32_t wait_mode)
{
	struct cosched_ep *ep = calloc(1, sizeof(*ep));
	struct cosched_ring *hdr = aligned_alloc(4096, 4096);
	void *data = aligned_alloc(4096, 4096);

	if (!ep || !hdr || !data)
		abort();
	memset(hdr, 0, 4096);
	memset(data, 0, 4096);
	hdr->data_size = 4096;
	hdr->data_offset = 4096;
	ep->fd = open("/dev/null", O_RDWR);
	ep->spin_ns = -1;
	ep->job = 1;
	ep->rank = 0;
	ep->size = 2;
	ep->default_mode = ep_env_mode();
	ep->ctrl = aligned_alloc(4096, 4096);
	ep->peers = calloc(2, sizeof(*ep->peers));
	if (!ep->ctrl || !ep->peers)
		abort();
	memset(ep->ctrl, 0, 4096);
	ep->ctrl->policy = policy;
	ep->ctrl->wait_mode = wait_mode;
	ep->ctrl->spin_us = 10;
	ep->own.map = NULL;
	if (ring_view_init(&ep->own.v, hdr, data))
		abort();
	pthread_mutex_init(&ep->map_lock, NULL);
	return ep;
}

/* Not cosched_close(): nothing here was mmap()ed. */
static void fake_free(struct cosched_ep *ep)
{
	free(ep->own.v.hdr);
	free(ep->own.v.data);
	free(ep->ctrl);
	free(ep->peers);
	close(ep->fd);
	pthread_mutex_destroy(&ep->map_lock);
	free(ep);
}

/* Did a send to ourselves ring (reach the kernel)? */
static bool send_rings(struct cosched_ep *ep)
{
	char out[8];
	int r = cosched_send(ep, 0, "m", 1);

	cosched_recv(ep, NULL, out, sizeof(out), COSCHED_MODE_POLL);
	return r == -ENOTTY;
}

static void test_doorbell_rule(void)
{
	static const struct {
		uint32_t policy;
		bool on_arrival;
		const char *name;
	} t[] = {
		{ COSCHED_POLICY_LOCAL, false, "local" },
		{ COSCHED_POLICY_SB, false, "sb" },
		{ COSCHED_POLICY_SY, false, "sy" },
		{ COSCHED_POLICY_DCS, true, "dcs" },
		{ COSCHED_POLICY_DCS_SB, true, "dcs-sb" },
		{ COSCHED_POLICY_DCS_SY, true, "dcs-sy" },
		{ COSCHED_POLICY_PB, false, "pb" },
		{ COSCHED_POLICY_PBT, false, "pbt" },
		{ COSCHED_POLICY_PB_SB, false, "pb-sb" },
		{ COSCHED_POLICY_PB_SY, false, "pb-sy" },
		{ COSCHED_POLICY_PBA, false, "pba" },
		{ COSCHED_POLICY_PBA_SB, false, "pba-sb" },
		{ COSCHED_POLICY_PBA_SY, false, "pba-sy" },
		{ COSCHED_POLICY_DCS_FAIR, true, "dcs-fair" },
	};
	struct cosched_ep *ep = fake_ep(COSCHED_POLICY_LOCAL, COSCHED_WAIT_BUSY);
	struct cosched_ring *h = ep->own.v.hdr;
	struct cosched_ep_stats st;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ep->ctrl->policy = t[i].policy;
		h->armed = COSCHED_ARMED_NONE;
		h->on_cpu = 1;
		check(!send_rings(ep), "%s, receiver running: silent", t[i].name);
		h->on_cpu = 0;
		check(send_rings(ep) == t[i].on_arrival,
		      "%s, receiver off its CPU: %s", t[i].name,
		      t[i].on_arrival ? "rings" : "silent");
		h->on_cpu = 1;
		h->armed = COSCHED_ARMED_BLOCK;
		check(send_rings(ep), "%s, receiver armed to block: rings",
		      t[i].name);
		h->armed = COSCHED_ARMED_YIELD;
		check(send_rings(ep), "%s, receiver yielded: rings", t[i].name);
	}
	cosched_stats(ep, &st);
	check(st.sends == 4 * i && st.receives == 4 * i,
	      "4 sends, 4 receives counted per policy");
	fake_free(ep);
}

static void test_modes(void)
{
	struct cosched_ep *ep;

	unsetenv("COSCHED_RECV_MODE");
	check(ep_env_mode() == COSCHED_MODE_POLICY, "no env: policy");
	setenv("COSCHED_RECV_MODE", "block", 1);
	check(ep_env_mode() == COSCHED_MODE_BLOCK, "env block");
	setenv("COSCHED_RECV_MODE", "poll", 1);
	check(ep_env_mode() == COSCHED_MODE_POLL, "env poll");
	setenv("COSCHED_RECV_MODE", "yield", 1);
	check(ep_env_mode() == COSCHED_MODE_YIELD, "env yield");
	setenv("COSCHED_RECV_MODE", "bogus", 1);
	check(ep_env_mode() == COSCHED_MODE_POLICY, "env bogus: policy");
	setenv("COSCHED_RECV_MODE", "yield", 1);
	ep = fake_ep(COSCHED_POLICY_SB, COSCHED_WAIT_BLOCK);
	check(ep_mode(ep, COSCHED_MODE_DEFAULT) == COSCHED_MODE_YIELD,
	      "default follows the env at open");
	check(ep_mode(ep, COSCHED_MODE_POLICY) == COSCHED_MODE_BLOCK,
	      "policy: wait_mode block -> block");
	ep->ctrl->wait_mode = COSCHED_WAIT_YIELD;
	check(ep_mode(ep, COSCHED_MODE_POLICY) == COSCHED_MODE_YIELD,
	      "policy: wait_mode yield -> yield");
	ep->ctrl->wait_mode = COSCHED_WAIT_BUSY;
	check(ep_mode(ep, COSCHED_MODE_POLICY) == COSCHED_MODE_POLL,
	      "policy: wait_mode busy -> poll");
	check(ep_mode(ep, COSCHED_MODE_BLOCK) == COSCHED_MODE_BLOCK,
	      "an explicit mode wins");
	unsetenv("COSCHED_RECV_MODE");
	fake_free(ep);
}

static void test_self_send(void)
{
	struct cosched_ep *ep = fake_ep(COSCHED_POLICY_LOCAL, COSCHED_WAIT_BUSY);
	struct cosched_ep_stats st;
	char out[64] = { 0 };
	uint32_t src = 9;
	size_t len = 0;

	check(cosched_max_msg(ep, 0) == 4096 / 2 - 16, "max message of own ring");
	check(cosched_send(ep, 0, "hello", 5) == 0,
	      "send to self under local: no system call");
	check(cosched_probe(ep, &src, &len) == 0 && src == 0 && len == 5,
	      "probe: source and length");
	check(cosched_recv(ep, &src, out, 4, COSCHED_MODE_POLL) == -EMSGSIZE,
	      "recv into a short buffer: -EMSGSIZE");
	check(cosched_recv(ep, &src, out, sizeof(out), COSCHED_MODE_POLL) == 5 &&
	      !memcmp(out, "hello", 5) && src == 0, "recv: the message");
	check(cosched_probe(ep, &src, &len) == -EAGAIN, "probe empty: -EAGAIN");
	check(cosched_send(ep, 2, "x", 1) == -EINVAL, "send beyond size: -EINVAL");
	check(cosched_send(ep, 0, out, 4096 / 2 - 15) == -EMSGSIZE,
	      "send max+1: -EMSGSIZE");
	check(cosched_recv(ep, &src, out, sizeof(out), 77) == -EINVAL,
	      "recv with a bad mode: -EINVAL");
	check(cosched_stats(ep, &st) == -ENOTTY && st.sends == 1 &&
	      st.doorbells == 0 && st.receives == 1,
	      "stats: 1 send, 0 doorbells, 1 receive (module part: -ENOTTY)");
	/* consumed: the arrivals read before the ring was found empty. */
	ep->ctrl->arrivals = 7;
	cosched_send(ep, 0, "a", 1);
	cosched_send(ep, 0, "b", 1);
	cosched_recv(ep, &src, out, sizeof(out), COSCHED_MODE_POLL);
	check(ep->ctrl->consumed == 0, "one of two taken: consumed stays");
	cosched_recv(ep, &src, out, sizeof(out), COSCHED_MODE_POLL);
	check(ep->ctrl->consumed == 7, "ring drained: consumed = arrivals");
	ep->own.v.hdr->flags = COSCHED_RING_CLOSED;
	check(cosched_send(ep, 0, "x", 1) == -EPIPE,
	      "send to a closed endpoint: -EPIPE");
	ep->own.v.hdr->flags = COSCHED_RING_LOST;
	check(cosched_send(ep, 0, "x", 1) == -EPIPE,
	      "send to a lost endpoint: -EPIPE");
	ep->own.v.hdr->flags = 0;
	fake_free(ep);
}

static void test_lost_peer(void)
{
	struct cosched_ep *ep = fake_ep(COSCHED_POLICY_LOCAL, COSCHED_WAIT_BUSY);
	char out[8];

	ep->ctrl->peers_lost = 1;
	check(cosched_recv(ep, NULL, out, sizeof(out), COSCHED_MODE_POLL) ==
	      -ECONNRESET && ep->ctrl->lost_seen == 1,
	      "a lost peer fails the wait once: -ECONNRESET, lost_seen set");
	cosched_send(ep, 0, "m", 1);
	check(cosched_recv(ep, NULL, out, sizeof(out), COSCHED_MODE_POLL) == 1,
	      "the next receive works");
	ep->ctrl->peers_lost = 2;
	cosched_send(ep, 0, "m", 1);
	check(cosched_recv(ep, NULL, out, sizeof(out), COSCHED_MODE_POLL) == 1,
	      "a message already there comes before the news of a loss");
	fake_free(ep);
}

static void test_spin(void)
{
	struct cosched_ep *ep = fake_ep(COSCHED_POLICY_SB, COSCHED_WAIT_BLOCK);

	check(cosched_get_spin(ep) == 10, "spin: the module's by default");
	check(cosched_set_spin(ep, 5) == 0 && cosched_get_spin(ep) == 5,
	      "spin: set to 5 us");
	check(cosched_set_spin(ep, COSCHED_SPIN_MAX_US + 1) == -ERANGE &&
	      cosched_get_spin(ep) == 5, "spin: beyond the maximum: -ERANGE");
	check(cosched_set_spin(ep, -3) == -EINVAL, "spin: -3: -EINVAL");
	check(cosched_set_spin(ep, COSCHED_SPIN_AUTO) < 0 &&
	      cosched_get_spin(ep) == 5,
	      "spin auto without a working module: error, unchanged");
	check(cosched_set_spin(ep, COSCHED_SPIN_MODULE) == 0 &&
	      cosched_get_spin(ep) == 10, "spin: back to the module's");
	setenv("COSCHED_SPIN_US", "12", 1);
	check(ep_spin_from_env(ep) == 0 && cosched_get_spin(ep) == 12,
	      "COSCHED_SPIN_US=12");
	setenv("COSCHED_SPIN_US", "12x", 1);
	check(ep_spin_from_env(ep) == -EINVAL, "COSCHED_SPIN_US=12x: -EINVAL");
	unsetenv("COSCHED_SPIN_US");
	check(ep_spin_from_env(ep) == 0 && cosched_get_spin(ep) == 10,
	      "COSCHED_SPIN_US unset: the module's");
	fake_free(ep);
}

struct got {
	int n, errors;
	uint32_t src[4];
	char text[4][8];
};

static void on_msg(void *arg, int status, uint32_t src, const void *buf,
		   size_t len)
{
	struct got *g = arg;

	if (status) {
		g->errors++;
		return;
	}
	if (g->n < 4 && len < 8) {
		g->src[g->n] = src;
		memcpy(g->text[g->n], buf, len);
	}
	__atomic_fetch_add(&g->n, 1, __ATOMIC_RELEASE);
}

static void test_callback(void)
{
	struct cosched_ep *ep = fake_ep(COSCHED_POLICY_LOCAL, COSCHED_WAIT_BUSY);
	struct got g = { 0 };
	struct timespec ts = { 0, 1000000 };
	char out[8];
	int i;

	check(cosched_recv_callback(ep, on_msg, &g, 99) == -EINVAL,
	      "callback: bad mode -EINVAL");
	check(cosched_recv_callback(ep, on_msg, &g, COSCHED_MODE_POLL) == 0,
	      "callback mode on");
	check(cosched_recv_callback(ep, on_msg, &g, COSCHED_MODE_POLL) ==
	      -EBUSY, "callback mode twice: -EBUSY");
	check(cosched_recv(ep, NULL, out, sizeof(out), COSCHED_MODE_POLL) ==
	      -EBUSY, "recv while in callback mode: -EBUSY");
	cosched_send(ep, 0, "one", 4);
	cosched_send(ep, 0, "two", 4);
	cosched_send(ep, 0, "three", 6);
	for (i = 0; i < 5000 && __atomic_load_n(&g.n, __ATOMIC_ACQUIRE) < 3; i++)
		nanosleep(&ts, NULL);
	check(g.n == 3 && !strcmp(g.text[0], "one") &&
	      !strcmp(g.text[2], "three") && g.src[1] == 0 && !g.errors,
	      "callback: three messages in order, from rank 0");
	check(cosched_recv_callback(ep, NULL, NULL, 0) == 0, "callback mode off");
	cosched_send(ep, 0, "four", 5);
	check(cosched_recv(ep, NULL, out, sizeof(out), COSCHED_MODE_POLL) == 5 &&
	      g.n == 3, "after it: recv gets the next message, not the callback");
	fake_free(ep);
}

struct later {
	struct cosched_ep *ep;
	int flag;
};

static void *send_later(void *p)
{
	struct later *l = p;
	struct timespec ts = { 0, 20000000 };

	nanosleep(&ts, NULL);
	cosched_send(l->ep, 0, "late", 4);
	__atomic_store_n(&l->flag, 1, __ATOMIC_RELEASE);
	return NULL;
}

static bool flag_set(void *p)
{
	return __atomic_load_n(&((struct later *)p)->flag, __ATOMIC_ACQUIRE);
}

static void test_waits(void)
{
	struct cosched_ep *ep = fake_ep(COSCHED_POLICY_LOCAL, COSCHED_WAIT_BUSY);
	struct cosched_ep_stats st;
	struct later l = { ep, 0 };
	char out[16];
	pthread_t th;
	uint32_t src;

	pthread_create(&th, NULL, send_later, &l);
	check(cosched_recv(ep, &src, out, sizeof(out), COSCHED_MODE_POLICY) == 4,
	      "policy local: recv polls until the message comes");
	pthread_join(th, NULL);
	l.flag = 0;
	pthread_create(&th, NULL, send_later, &l);
	check(cosched_wait(ep, flag_set, &l, COSCHED_MODE_POLL) == 0 && l.flag,
	      "cosched_wait poll: returns once ready() is true");
	pthread_join(th, NULL);
	cosched_recv(ep, &src, out, sizeof(out), COSCHED_MODE_POLL);
	cosched_stats(ep, &st);
	check(st.spin_hits == 2 && st.blocks == 0, "two spin hits, no block");
	/* Blocking reaches COSCHED_IOC_WAIT (-ENOTTY here) armed, then disarms. */
	ep->ctrl->policy = COSCHED_POLICY_SB;
	ep->ctrl->wait_mode = COSCHED_WAIT_BLOCK;
	check(cosched_recv(ep, &src, out, sizeof(out), COSCHED_MODE_DEFAULT) ==
	      -ENOTTY, "policy sb: empty ring -> spin, then COSCHED_IOC_WAIT");
	cosched_stats(ep, &st);
	check(st.blocks == 1 && ep->ctrl->armed == COSCHED_ARMED_NONE &&
	      ep->own.v.hdr->armed == COSCHED_ARMED_NONE &&
	      ep->ctrl->waiting == 0, "one block; armed and waiting cleared after");
	ep->ctrl->wait_mode = COSCHED_WAIT_YIELD;
	check(cosched_recv(ep, &src, out, sizeof(out), COSCHED_MODE_DEFAULT) ==
	      -ENOTTY, "policy sy: empty ring -> spin, then COSCHED_IOC_YIELD");
	check(cosched_send(ep, 0, "now", 3) == 0 &&
	      cosched_recv(ep, &src, out, sizeof(out), COSCHED_MODE_BLOCK) == 3,
	      "a message already there is taken without entering the kernel");
	fake_free(ep);
}

/*
 * consumed in every mode: a doorbell counted after its message was taken
 * (the sender rings after publishing) is consumed by the next look that
 * finds nothing, whichever mode made it; never backwards, never beyond
 * the arrivals.
 */
static void test_consumed(void)
{
	struct cosched_ep *ep = fake_ep(COSCHED_POLICY_PB, COSCHED_WAIT_BUSY);
	char out[16];
	int ret, fd;

	cosched_send(ep, 0, "a", 1);
	cosched_recv(ep, NULL, out, sizeof(out), COSCHED_MODE_POLL);
	ep->ctrl->arrivals = 1;		/* its doorbell, late */
	ret = cosched_probe(ep, NULL, NULL);
	check(ret == -EAGAIN && ep->ctrl->consumed == 1,
	      "an empty probe publishes consumed = arrivals (%llu)",
	      (unsigned long long)ep->ctrl->consumed);
	ep->ctrl->arrivals = 2;
	ret = (int)cosched_recv(ep, NULL, out, sizeof(out), COSCHED_MODE_YIELD);
	check(ret == -ENOTTY && ep->ctrl->consumed == 2,
	      "yield mode: the empty look before the yield publishes (%llu)",
	      (unsigned long long)ep->ctrl->consumed);
	ep->ctrl->arrivals = 3;
	ret = (int)cosched_recv(ep, NULL, out, sizeof(out), COSCHED_MODE_BLOCK);
	check(ret == -ENOTTY && ep->ctrl->consumed == 3,
	      "block mode: the empty look before the block publishes (%llu)",
	      (unsigned long long)ep->ctrl->consumed);
	ep->ctrl->arrivals = 9;
	check(cosched_arrivals(ep) == 9, "cosched_arrivals: the count");
	cosched_consumed(ep, 5);
	check(ep->ctrl->consumed == 5, "cosched_consumed: the caller's snapshot");
	cosched_consumed(ep, 4);
	check(ep->ctrl->consumed == 5, "cosched_consumed: never backwards");
	cosched_send(ep, 0, "b", 1);
	cosched_consumed(ep, 8);
	check(ep->ctrl->consumed == 5,
	      "cosched_consumed: not while our ring holds a message");
	cosched_recv(ep, NULL, out, sizeof(out), COSCHED_MODE_POLL);
	check(ep->ctrl->consumed == 9, "taking the last message: consumed 9");
	cosched_consumed(ep, 50);
	ep->ctrl->consumed = 0;
	cosched_consumed(ep, 50);
	check(ep->ctrl->consumed == 9,
	      "cosched_consumed: capped at the arrivals (%llu)",
	      (unsigned long long)ep->ctrl->consumed);
	check(cosched_get_policy(ep) == COSCHED_POLICY_PB,
	      "cosched_get_policy: the page's policy");
	ep->ctrl->policy = COSCHED_POLICY_LOCAL;	/* an admin's change */
	check(cosched_get_policy(ep) == COSCHED_POLICY_LOCAL,
	      "cosched_get_policy: follows the page");
	check(cosched_get_wait_mode(ep, COSCHED_MODE_POLICY) == COSCHED_MODE_POLL,
	      "cosched_get_wait_mode: the page's busy wait");
	ep->ctrl->wait_mode = COSCHED_WAIT_BLOCK;
	check(cosched_get_wait_mode(ep, COSCHED_MODE_POLICY) == COSCHED_MODE_BLOCK,
	      "cosched_get_wait_mode: the page's block");
	check(cosched_get_wait_mode(ep, COSCHED_MODE_YIELD) == COSCHED_MODE_YIELD,
	      "cosched_get_wait_mode: the caller's mode wins");
	check(cosched_get_wait_mode(ep, COSCHED_MODE_YIELD + 1) == -EINVAL &&
	      cosched_get_wait_mode(ep, -1) == -EINVAL,
	      "cosched_get_wait_mode: an unknown mode is EINVAL");
	ep->default_mode = COSCHED_MODE_POLICY;		/* COSCHED_RECV_MODE unset */
	check(cosched_get_wait_mode(ep, COSCHED_MODE_DEFAULT) == COSCHED_MODE_BLOCK,
	      "cosched_get_wait_mode: DEFAULT follows the policy");
	ep->default_mode = COSCHED_MODE_YIELD;		/* COSCHED_RECV_MODE=yield */
	check(cosched_get_wait_mode(ep, COSCHED_MODE_DEFAULT) == COSCHED_MODE_YIELD,
	      "cosched_get_wait_mode: DEFAULT follows COSCHED_RECV_MODE");
	fd = ep->fd;
	ep->fd = -1;					/* no module */
	check(cosched_get_wait_mode(ep, COSCHED_MODE_BLOCK) == COSCHED_MODE_POLL,
	      "cosched_get_wait_mode: without the module, always a poll");
	ep->fd = fd;
	fake_free(ep);
}

/* ready() of cosched_wait: true at its 200th call. */
static bool ready_at_200(void *p)
{
	return ++*(int *)p >= 200;
}

/*
 * cosched_progress_begin/end: while another thread counts itself the
 * waiter does not sleep, and a waiter that stays armed is rung once.
 */
static void test_progress(void)
{
	struct cosched_ep *ep = fake_ep(COSCHED_POLICY_SB, COSCHED_WAIT_BLOCK);
	struct cosched_ring *h = ep->own.v.hdr;
	int i, calls, db, r;

	ep->spin_ns = 0;
	db = n_doorbell_ioctls;
	cosched_progress_begin(ep);
	cosched_progress_end(ep);
	check(n_doorbell_ioctls == db, "progress, waiter not armed: no doorbell");

	h->armed = COSCHED_ARMED_YIELD;
	for (i = 0; i < 1000; i++) {
		cosched_progress_begin(ep);
		cosched_progress_end(ep);
	}
	check(n_doorbell_ioctls == db + 1,
	      "1000 calls while the waiter stays armed: one doorbell (%d)",
	      n_doorbell_ioctls - db);
	h->armed = COSCHED_ARMED_NONE;

	cosched_progress_begin(ep);
	calls = 0;
	db = n_wait_ioctls;
	r = cosched_wait(ep, ready_at_200, &calls, COSCHED_MODE_BLOCK);
	check(r == 0 && calls >= 200 && n_wait_ioctls == db,
	      "block mode while another thread makes progress: spins, never sleeps (%d, %d waits)",
	      r, n_wait_ioctls - db);
	check(ep_progress_held(ep), "the count is up until the end");
	cosched_progress_end(ep);
	calls = 0;
	r = cosched_wait(ep, ready_at_200, &calls, COSCHED_MODE_BLOCK);
	check(n_wait_ioctls > db && !ep_progress_held(ep),
	      "after the end: the waiter goes to sleep again (%d)", r);
	fake_free(ep);
}

/* What happens while test_missed_wakeups()'s waiter sleeps. */
static struct cosched_ep *sleeper;
static bool flag;

static bool flag_up(void *p)
{
	return *(bool *)p;
}

/* Another thread completes the wait outside any progress bracket. */
static void set_flag(void)
{
	flag = true;
}

/* The peer's message comes, and the module counts it. */
static void set_flag_and_arrive(void)
{
	flag = true;
	sleeper->ctrl->arrivals++;
}

/* A slow peer: its message comes during the third sleep. */
static void arrive_third(void)
{
	if (n_wait_ioctls == 3)
		sleeper->ctrl->arrivals++;
}

static bool arrived(void *p)
{
	return sleeper->ctrl->arrivals != *(uint64_t *)p;
}

/* Looks after the first sleep; true at the second (MPI needing two calls). */
static int looks_after_sleep;

static bool second_look_after_sleep(void *p)
{
	(void)p;
	return n_wait_ioctls && ++looks_after_sleep >= 2;
}

/* After the sleep a local sender publishes into our ring (no doorbell). */
static bool ring_message_after_sleep(void *p)
{
	struct cosched_ring *h = sleeper->own.v.hdr;

	(void)p;
	if (!n_wait_ioctls)
		return false;
	if (!looks_after_sleep++) {
		__atomic_fetch_add(&h->tail, 64, __ATOMIC_RELEASE);
		return false;
	}
	return true;
}

/* Every look finds a new arrival (traffic for others); true at the 500th. */
static bool arrivals_at_every_look(void *p)
{
	sleeper->ctrl->arrivals++;
	return ++*(int *)p >= 500;
}

/*
 * A slow peer's quiet sleep, then an arrival for another request, then
 * a second quiet sleep during which the wait's condition turns true.
 */
static bool arrival_between_sleeps(void *p)
{
	(void)p;
	if (n_wait_ioctls == 1 && !looks_after_sleep++)
		sleeper->ctrl->arrivals++;
	return flag;
}

static void flag_at_second_sleep(void)
{
	if (n_wait_ioctls == 2)
		flag = true;
}

/*
 * One wait of test_missed_wakeups(): during() runs in each sleep (which
 * ends by its timeout); the wait must have slept `sleeps` times and
 * counted `missed` missed wake-ups.
 */
static void missed_case(struct cosched_ep *ep, void (*during)(void),
			bool (*ready)(void *), void *arg, int sleeps,
			uint64_t missed, const char *what)
{
	uint64_t n0 = cosched_missed_wakeups(ep);
	int r;

	in_wait = during;
	looks_after_sleep = 0;
	flag = false;
	n_wait_ioctls = 0;
	r = cosched_wait(ep, ready, arg, COSCHED_MODE_BLOCK);
	check(r == 0 && n_wait_ioctls == sleeps &&
	      cosched_missed_wakeups(ep) - n0 == missed,
	      "%s (%d sleeps, %llu missed)", what, n_wait_ioctls,
	      (unsigned long long)(cosched_missed_wakeups(ep) - n0));
}

/*
 * cosched_missed_wakeups: a sleep that ran out its timeout with nothing
 * arrived, after which the wait completed with still nothing come, is a
 * lost wake-up, whichever look completed it; a sleep during which an
 * arrival was counted is not, nor are a slow peer's timeouts (nothing
 * completes until its message arrives), nor a message published into
 * our own ring after the sleep.  And an arrival after the latest spin
 * look began keeps the waiter spinning, once between two sleeps: the
 * last look may take it in without completing.
 */
static void test_missed_wakeups(void)
{
	struct cosched_ep *ep = fake_ep(COSCHED_POLICY_SB, COSCHED_WAIT_BLOCK);
	uint64_t start, tail, spin_ons, n;
	int calls = 0, r;

	sleeper = ep;
	ep->spin_ns = 0;
	wait_timeout = true;
	missed_case(ep, set_flag, flag_up, &flag, 1, 1,
		    "a timeout with no arrival, then the condition held: missed");
	missed_case(ep, NULL, second_look_after_sleep, NULL, 1, 1,
		    "... also when the second look after it completes the wait");
	missed_case(ep, set_flag_and_arrive, flag_up, &flag, 1, 0,
		    "an arrival counted during the sleep: not missed");
	start = ep->ctrl->arrivals;
	missed_case(ep, arrive_third, arrived, &start, 3, 0,
		    "a slow peer's timeouts: not missed");
	missed_case(ep, flag_at_second_sleep, arrival_between_sleeps, NULL, 2, 1,
		    "an arrival between two quiet sleeps, the second one missed");
	tail = ep->own.v.hdr->tail;
	missed_case(ep, NULL, ring_message_after_sleep, NULL, 1, 0,
		    "a message published into our ring after the sleep: not missed");
	ep->own.v.hdr->tail = tail;

	spin_ons = ep->cnt.spin_ons;
	missed_case(ep, NULL, flag_up, &(bool){ true }, 0, 0, "a wait that need not sleep");
	check(ep->cnt.spin_ons == spin_ons, "... never spins on");
	n = cosched_missed_wakeups(ep);
	n_wait_ioctls = 0;
	r = cosched_wait(ep, arrivals_at_every_look, &calls, COSCHED_MODE_BLOCK);
	check(r == 0 && n_wait_ioctls > 0 && ep->cnt.spin_ons > spin_ons &&
	      ep->cnt.spin_ons - spin_ons <= (uint64_t)n_wait_ioctls + 1 &&
	      cosched_missed_wakeups(ep) == n,
	      "arrivals at every look: spins on once before each sleep (%llu spin-ons, %d sleeps)",
	      (unsigned long long)(ep->cnt.spin_ons - spin_ons), n_wait_ioctls);
	wait_timeout = false;
	in_wait = NULL;
	fake_free(ep);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_doorbell_rule();
	test_modes();
	test_self_send();
	test_waits();
	test_lost_peer();
	test_spin();
	test_callback();
	test_consumed();
	test_progress();
	test_missed_wakeups();
	printf("1..%d\n", n_test);
	return n_fail ? 1 : 0;
}
