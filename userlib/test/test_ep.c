// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_ep - host unit tests of the endpoint layer (send, recv, probe,
 * wait modes, doorbell decision, counters) on a fake endpoint whose
 * control page and own ring are plain memory and whose file is -1: no
 * module.  Anything that reaches the kernel fails with -EBADF, which the
 * tests use to see that it was (or was not) reached.  TAP output.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tap.h"

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
	ep->fd = -1;
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
	pthread_mutex_destroy(&ep->map_lock);
	free(ep);
}

static void test_doorbell_rule(void)
{
	static const struct {
		uint32_t policy, wait_mode;
		bool rings;
		const char *name;
	} t[] = {
		{ COSCHED_POLICY_LOCAL, COSCHED_WAIT_BUSY, false, "local" },
		{ COSCHED_POLICY_SB, COSCHED_WAIT_BLOCK, true, "sb" },
		{ COSCHED_POLICY_SY, COSCHED_WAIT_YIELD, true, "sy" },
		{ COSCHED_POLICY_DCS, COSCHED_WAIT_BUSY, true, "dcs" },
		{ COSCHED_POLICY_DCS_SB, COSCHED_WAIT_BLOCK, true, "dcs-sb" },
		{ COSCHED_POLICY_DCS_SY, COSCHED_WAIT_YIELD, true, "dcs-sy" },
		{ COSCHED_POLICY_PB, COSCHED_WAIT_BUSY, false, "pb" },
		{ COSCHED_POLICY_PBT, COSCHED_WAIT_BUSY, false, "pbt" },
		{ COSCHED_POLICY_PB_SB, COSCHED_WAIT_BLOCK, true, "pb-sb" },
		{ COSCHED_POLICY_PB_SY, COSCHED_WAIT_YIELD, true, "pb-sy" },
	};
	struct cosched_ctrl c;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memset(&c, 0, sizeof(c));
		c.policy = t[i].policy;
		c.wait_mode = t[i].wait_mode;
		check(ep_policy_rings(&c) == t[i].rings, "doorbell under %s: %s",
		      t[i].name, t[i].rings ? "rings" : "silent");
	}
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
	check(cosched_stats(ep, &st) == -EBADF && st.sends == 1 &&
	      st.doorbells == 0 && st.receives == 1,
	      "stats: 1 send, 0 doorbells, 1 receive (module part: -EBADF)");
	check(ep->ctrl->consumed == 0, "unannounced message not counted consumed");
	/* A sender that rang marks the record; the receiver counts it. */
	ring_try_put(&ep->own.v, 1, true, "abc", 3);
	check(cosched_recv(ep, &src, out, sizeof(out), COSCHED_MODE_POLL) == 3 &&
	      src == 1 && ep->ctrl->consumed == 1,
	      "announced message counted in ctrl->consumed");
	ep->ctrl->policy = COSCHED_POLICY_SB;
	ep->ctrl->wait_mode = COSCHED_WAIT_BLOCK;
	check(cosched_send(ep, 0, "bell", 4) == -EBADF,
	      "under sb the send rings (reaches the kernel)");
	check(cosched_recv(ep, &src, out, sizeof(out), COSCHED_MODE_POLL) == 4 &&
	      ep->ctrl->consumed == 2, "rung message delivered and counted");
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
	/* Blocking reaches COSCHED_IOC_WAIT (-EBADF here) armed, then disarms. */
	ep->ctrl->policy = COSCHED_POLICY_SB;
	ep->ctrl->wait_mode = COSCHED_WAIT_BLOCK;
	check(cosched_recv(ep, &src, out, sizeof(out), COSCHED_MODE_DEFAULT) ==
	      -EBADF, "policy sb: empty ring -> spin, then COSCHED_IOC_WAIT");
	cosched_stats(ep, &st);
	check(st.blocks == 1 && ep->ctrl->armed == COSCHED_ARMED_NONE &&
	      ep->ctrl->waiting == 0, "one block; armed and waiting cleared after");
	ep->ctrl->wait_mode = COSCHED_WAIT_YIELD;
	check(cosched_recv(ep, &src, out, sizeof(out), COSCHED_MODE_DEFAULT) ==
	      -EBADF, "policy sy: empty ring -> spin, then COSCHED_IOC_YIELD");
	check(cosched_send(ep, 0, "now", 3) == -EBADF &&
	      cosched_recv(ep, &src, out, sizeof(out), COSCHED_MODE_BLOCK) == 3,
	      "a message already there is taken without entering the kernel");
	fake_free(ep);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_doorbell_rule();
	test_modes();
	test_self_send();
	test_waits();
	printf("1..%d\n", n_test);
	return n_fail ? 1 : 0;
}
