// SPDX-License-Identifier: GPL-2.0
/*
 * cosched_pingpong: one-way latency, bandwidth and CPU time per message
 * through libcosched between two processes of one job (ranks 0 and 1,
 * pinned to CPUs 0 and 1), with the loops of pingpong.c that raw_ring
 * also runs.  Needs cosched.ko loaded; runs under whatever policy is
 * active (/sys/kernel/cosched/policy) and prints it.  Each line also
 * gives the fraction of sends that rang the doorbell and the receives
 * that blocked in the kernel, from cosched_stats() of both endpoints.
 *
 * With $COSCHED_PEERS naming two hosts (say 127.0.0.1 and 127.0.0.2) the
 * two ranks are on different "nodes" and talk TCP through libcosched's
 * io_uring transport; the lines then say bench=cosched-tcp.
 *
 * -m picks the receive mode passed to cosched_recv(): poll, block,
 * yield, or policy (the active policy's wait mode, what an application
 * gets by default).  Sizes above cosched_max_msg() print n/a: raise
 * /sys/kernel/cosched/ring_kb before running for 1 MiB (4096).
 *
 * usage: cosched_pingpong [-s sizes] [-n iters] [-w warmup]
 *                         [-m poll|block|yield|policy] [-t lat|bw|both]
 *                         [-B bytes] [-q]
 */
#include <cosched.h>

#include "msgbench.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cs_ctx {
	uint64_t job;
	int mode;
	struct cosched_ep *ep;
	uint32_t peer;
};

static int cs_open(void *p, int side)
{
	struct cs_ctx *c = p;

	c->peer = !side;
	return cosched_open(&c->ep, c->job, (uint32_t)side, 2, 0);
}

static void cs_close(void *p)
{
	cosched_close(((struct cs_ctx *)p)->ep);
}

static size_t cs_max_msg(void *p)
{
	struct cs_ctx *c = p;
	ssize_t m = cosched_max_msg(c->ep, c->peer);

	return m < 0 ? 0 : (size_t)m;
}

static int cs_send(void *p, const void *buf, size_t len)
{
	struct cs_ctx *c = p;

	return cosched_send(c->ep, c->peer, buf, len);
}

static long cs_recv(void *p, void *buf, size_t len)
{
	struct cs_ctx *c = p;

	return (long)cosched_recv(c->ep, NULL, buf, len, c->mode);
}

static void cs_counters(void *p, struct mb_counters *m)
{
	struct cs_ctx *c = p;
	struct cosched_ep_stats st;

	if (cosched_stats(c->ep, &st))
		return;
	m->sends = st.sends;
	m->doorbells = st.doorbells;
	m->blocks = st.blocks;
}

static const struct mb_ops cs_ops = {
	.bench = "cosched",
	.open = cs_open,
	.close = cs_close,
	.max_msg = cs_max_msg,
	.send = cs_send,
	.recv = cs_recv,
	.counters = cs_counters,
};

/* The active policy's name: the bracketed word of the sysfs file. */
static void active_policy(char *name, size_t len)
{
	char buf[256], *a, *b;
	int fd = open(COSCHED_SYSFS_DIR "/policy", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	snprintf(name, len, "?");
	if (n <= 0)
		return;
	buf[n] = 0;
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : NULL;
	if (b) {
		*b = 0;
		snprintf(name, len, "%s", a + 1);
	}
}

int main(int argc, char **argv)
{
	static const char *const names[] = {
		[COSCHED_MODE_POLICY] = "policy",
		[COSCHED_MODE_POLL] = "poll",
		[COSCHED_MODE_BLOCK] = "block",
		[COSCHED_MODE_YIELD] = "yield",
	};
	struct cs_ctx ctx = { 0 };
	struct mb_ops ops = cs_ops;
	struct mb_opts o;
	char policy[32];
	int i;

	mb_parse(&o, argc, argv, "poll|block|yield|policy", "policy");
	for (i = COSCHED_MODE_POLICY; i <= COSCHED_MODE_YIELD; i++)
		if (!strcmp(o.mode, names[i]))
			ctx.mode = i;
	if (!ctx.mode) {
		fprintf(stderr, "cosched_pingpong: unknown mode %s\n", o.mode);
		return 2;
	}
	/* A job of our own: runs one after another never share one. */
	ctx.job = 0xbe7c000000000000ull | (uint64_t)getpid();
	active_policy(policy, sizeof(policy));
	if (getenv("COSCHED_PEERS"))
		ops.bench = "cosched-tcp";
	return mb_run(&o, &ops, &ctx, policy);
}
