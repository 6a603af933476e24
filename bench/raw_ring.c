// SPDX-License-Identifier: GPL-2.0
/*
 * raw_ring: the floor for the message benchmarks.  The same ping-pong and
 * streaming loops as cosched_pingpong (pingpong.c), through the least a
 * shared-memory transport can do: one single-producer/single-consumer
 * byte ring per direction in shared anonymous memory, no kernel, no
 * doorbell, no multi-sender reservation.  The receiver busy-polls.
 *
 * Ring: absolute byte positions head (consumer) and tail (producer) that
 * never wrap; position p lives at data[p % RAW_DATA].  A record is an
 * 8-byte length and the payload, padded to 8 bytes, and may wrap around
 * the end of the area (two copies).  The producer copies the record in
 * and then publishes it with a release store of tail (the valid flag);
 * the consumer acquires tail, copies out, and frees the space with a
 * release store of head.  The copy in and the copy out are kept on
 * purpose: libcosched does both, and the floor should do the same work.
 *
 * usage: raw_ring [-s sizes] [-n iters] [-w warmup] [-m poll] [-t lat|bw|both]
 *                 [-B bytes] [-q]
 */
#include "msgbench.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* As big as libcosched's ring for 1 MiB messages (ring_kb=4096). */
#define RAW_DATA	(4u << 20)
#define RAW_LEN_HDR	8u
/* The largest payload: like libcosched, at most half the area. */
#define RAW_MAX_MSG	(RAW_DATA / 2 - 16)

struct raw_ring {
	uint64_t tail __attribute__((aligned(64)));	/* producer's */
	uint64_t head __attribute__((aligned(64)));	/* consumer's */
	unsigned char data[RAW_DATA] __attribute__((aligned(64)));
};

struct raw_ctx {
	struct raw_ring *ring[2];	/* ring[i]: messages to side i */
	struct raw_ring *in, *out;
};

static uint64_t rec_size(size_t len)
{
	return RAW_LEN_HDR + ((len + 7) & ~(uint64_t)7);
}

/* Copy len bytes between buf and the ring at position pos, wrapping. */
static void copy_in(struct raw_ring *r, uint64_t pos, const void *buf,
		    size_t len)
{
	size_t off = pos % RAW_DATA, first = RAW_DATA - off;

	if (first >= len) {
		memcpy(r->data + off, buf, len);
	} else {
		memcpy(r->data + off, buf, first);
		memcpy(r->data, (const unsigned char *)buf + first, len - first);
	}
}

static void copy_out(struct raw_ring *r, uint64_t pos, void *buf, size_t len)
{
	size_t off = pos % RAW_DATA, first = RAW_DATA - off;

	if (first >= len) {
		memcpy(buf, r->data + off, len);
	} else {
		memcpy(buf, r->data + off, first);
		memcpy((unsigned char *)buf + first, r->data, len - first);
	}
}

static int raw_send(void *p, const void *buf, size_t len)
{
	struct raw_ring *r = ((struct raw_ctx *)p)->out;
	uint64_t need = rec_size(len), len64 = len;
	uint64_t tail = r->tail;	/* only we write it */

	if (len > RAW_MAX_MSG)
		return -EMSGSIZE;
	/* Wait for room; acquire orders our writes after the consumer's reads. */
	while (tail + need - __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) > RAW_DATA)
		mb_relax();
	/* The length word is 8-aligned in an 8-multiple area: never split. */
	memcpy(r->data + tail % RAW_DATA, &len64, sizeof(len64));
	copy_in(r, tail + RAW_LEN_HDR, buf, len);
	__atomic_store_n(&r->tail, tail + need, __ATOMIC_RELEASE);
	return 0;
}

static long raw_recv(void *p, void *buf, size_t len)
{
	struct raw_ring *r = ((struct raw_ctx *)p)->in;
	uint64_t head = r->head;	/* only we write it */
	uint64_t mlen;

	while (__atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) == head)
		mb_relax();
	memcpy(&mlen, r->data + head % RAW_DATA, sizeof(mlen));
	if (mlen > len)
		return -EMSGSIZE;
	copy_out(r, head + RAW_LEN_HDR, buf, mlen);
	__atomic_store_n(&r->head, head + rec_size(mlen), __ATOMIC_RELEASE);
	return (long)mlen;
}

/* Before the fork, so that both processes share the rings. */
static int raw_setup(void *p)
{
	struct raw_ctx *c = p;

	c->ring[0] = mb_shared(sizeof(struct raw_ring));
	c->ring[1] = mb_shared(sizeof(struct raw_ring));
	/*
	 * Fault the pages in now: the module's rings are mapped whole at
	 * mmap() time, and the floor should not pay page faults they don't.
	 */
	memset(c->ring[0], 0, sizeof(struct raw_ring));
	memset(c->ring[1], 0, sizeof(struct raw_ring));
	return 0;
}

static int raw_open(void *p, int side)
{
	struct raw_ctx *c = p;

	c->in = c->ring[side];
	c->out = c->ring[!side];
	return 0;
}

static void raw_close(void *p)
{
	(void)p;
}

static size_t raw_max_msg(void *p)
{
	(void)p;
	return RAW_MAX_MSG;
}

static const struct mb_ops raw_ops = {
	.bench = "raw",
	.setup = raw_setup,
	.open = raw_open,
	.close = raw_close,
	.max_msg = raw_max_msg,
	.send = raw_send,
	.recv = raw_recv,
};

int main(int argc, char **argv)
{
	struct raw_ctx ctx = { 0 };
	struct mb_opts o;

	mb_parse(&o, argc, argv, "poll", "poll");
	if (strcmp(o.mode, "poll")) {
		fprintf(stderr, "raw_ring: only -m poll\n");
		return 2;
	}
	return mb_run(&o, &raw_ops, &ctx, "-");
}
