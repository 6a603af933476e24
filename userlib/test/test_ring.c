// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_ring - host unit tests of the ring record format on plain memory:
 * no module, no /dev/cosched.  TAP output.
 */
#define _GNU_SOURCE
#include "ring.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "util.h"


/* A ring on the heap: the header page and a data area, both zeroed. */
struct tring {
	struct cosched_ring *hdr;
	void *data;
	struct ring_view v;
};

static void tring_init(struct tring *t, uint32_t size)
{
	t->hdr = aligned_alloc(4096, 4096);
	t->data = aligned_alloc(4096, size < 4096 ? 4096 : size);
	if (!t->hdr || !t->data)
		abort();
	memset(t->hdr, 0, 4096);
	memset(t->data, 0, size);
	t->hdr->data_size = size;
	t->hdr->data_offset = 4096;
	if (ring_view_init(&t->v, t->hdr, t->data))
		abort();
}

static void tring_free(struct tring *t)
{
	free(t->hdr);
	free(t->data);
}

/* Deterministic payload: byte i of message seq. */
static bool all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

static void test_view(void)
{
	struct cosched_ring h = { .data_size = 1000 };
	struct ring_view v;
	char d[64];

	check(ring_view_init(&v, &h, d) == -EINVAL, "view: size not a power of two");
	h.data_size = 32;
	check(ring_view_init(&v, &h, d) == -EINVAL, "view: size too small");
	h.data_size = 64;
	check(ring_view_init(&v, &h, d) == 0 && v.max_msg == 16,
	      "view: 64-byte area, max message 16");
}

static void test_sizes(void)
{
	static unsigned char in[4096], out[4096];
	struct tring t;
	size_t sizes[8], i;
	struct ring_msg m;
	ssize_t r;
	uint32_t max;

	tring_init(&t, 4096);
	max = t.v.max_msg;
	check(max == 4096 / 2 - 16, "max message is data_size/2 - 16 (%u)", max);
	sizes[0] = 0; sizes[1] = 1; sizes[2] = 15; sizes[3] = 16;
	sizes[4] = 17; sizes[5] = max - 1; sizes[6] = max;
	for (i = 0; i < 7; i++) {
		pattern_fill(in, (uint32_t)i, sizes[i]);
		memset(out, 0xee, sizeof(out));
		r = ring_try_put(&t.v, 3, in, sizes[i]);
		check(r == 0, "size %zu: send", sizes[i]);
		r = ring_get(&t.v, &m, out, sizeof(out));
		check(r == (ssize_t)sizes[i] && m.src == 3 &&
		      pattern_check(out, (uint32_t)i, sizes[i]) &&
		      out[sizes[i]] == 0xee,
		      "size %zu: received intact, nothing past the end", sizes[i]);
	}
	check(ring_try_put(&t.v, 3, in, max + 1) == -EMSGSIZE,
	      "size max+1: -EMSGSIZE");
	check(t.hdr->tail == t.hdr->head, "size max+1 reserved nothing");
	check(ring_get(&t.v, &m, out, sizeof(out)) == -EAGAIN, "empty: -EAGAIN");
	check(ring_peek(&t.v, &m) == -EAGAIN, "empty peek: -EAGAIN");
	check(all_zero(t.data, 4096), "consumed records are zeroed");
	ring_stamp(&t.v);
	check(t.hdr->last_send_ns != 0, "ring_stamp sets last_send_ns");
	tring_free(&t);
}

static void test_peek_and_small_buf(void)
{
	unsigned char in[64], out[64];
	struct tring t;
	struct ring_msg m;

	tring_init(&t, 256);
	pattern_fill(in, 9, 40);
	ring_try_put(&t.v, 70000, in, 40);
	check(ring_peek(&t.v, &m) == 0 && m.len == 40 && m.src == 70000,
	      "peek: len and a src beyond 16 bits");
	check(ring_get(&t.v, &m, out, 39) == -EMSGSIZE,
	      "buffer too small: -EMSGSIZE");
	check(ring_get(&t.v, &m, out, 40) == 40 && pattern_check(out, 9, 40),
	      "message stays after -EMSGSIZE");
	tring_free(&t);
}

static void test_wrap_padding(void)
{
	unsigned char in[128], out[128];
	struct tring t;
	struct ring_msg m;
	ssize_t r;
	int round;
	bool ok = true;

	tring_init(&t, 256);
	/* 100 bytes = a 128-byte record; 40 bytes = 64. */
	pattern_fill(in, 1, 100);
	ring_try_put(&t.v, 1, in, 100);
	ring_get(&t.v, &m, out, sizeof(out));
	pattern_fill(in, 2, 40);
	ring_try_put(&t.v, 1, in, 40);
	ring_get(&t.v, &m, out, sizeof(out));
	check(t.hdr->tail == 192 && t.hdr->head == 192, "tail at offset 192");
	pattern_fill(in, 3, 100);
	check(ring_try_put(&t.v, 1, in, 100) == 0,
	      "record that would straddle the end is sent");
	check(t.hdr->tail == 384, "64 bytes of padding, record at 256 (tail %llu)",
	      (unsigned long long)t.hdr->tail);
	check(((uint32_t *)t.data)[2] == 100 &&
	      ((uint32_t *)((char *)t.data + 192))[2] == UINT32_MAX,
	      "padding record at 192, message at offset 0");
	r = ring_get(&t.v, &m, out, sizeof(out));
	check(r == 100 && pattern_check(out, 3, 100) && t.hdr->head == 384,
	      "receiver skips the padding, gets the message");
	/* Many laps with a size that never divides the area evenly. */
	for (round = 0; round < 1000 && ok; round++) {
		size_t len = 1 + (size_t)(round * 37) % 112;

		pattern_fill(in, (uint32_t)round, len);
		ok = ring_try_put(&t.v, 2, in, len) == 0 &&
		     ring_get(&t.v, &m, out, sizeof(out)) == (ssize_t)len &&
		     pattern_check(out, (uint32_t)round, len);
	}
	check(ok && t.hdr->head > 100 * 256, "1000 messages over %llu laps",
	      (unsigned long long)(t.hdr->head / 256));
	check(all_zero(t.data, 256), "area all zero when empty");
	tring_free(&t);
}

static void test_full(void)
{
	unsigned char in[64], out[64];
	struct tring t;
	struct ring_msg m;
	uint32_t n = 0, i;
	bool ok = true;

	tring_init(&t, 256);
	/* 20-byte payloads: 48-byte records, 5 fit in 256 (240 bytes). */
	for (;;) {
		pattern_fill(in, n, 20);
		if (ring_try_put(&t.v, 0, in, 20))
			break;
		n++;
	}
	check(n == 5, "5 records of 48 bytes fit in 256 bytes (got %u)", n);
	/* The 16 bytes left at the end become padding, never a record. */
	check(t.hdr->tail == 256, "full: only padding reserved (tail %llu)",
	      (unsigned long long)t.hdr->tail);
	check(ring_try_put(&t.v, 0, in, 0) == -EAGAIN &&
	      t.hdr->tail == 256, "full: even a 0-byte record is refused");
	ring_get(&t.v, &m, out, sizeof(out));
	pattern_fill(in, n, 20);
	check(ring_try_put(&t.v, 0, in, 20) == 0,
	      "after one receive: room again");
	for (i = 1; i <= n && ok; i++)
		ok = ring_get(&t.v, &m, out, sizeof(out)) == 20 &&
		     pattern_check(out, i, 20);
	check(ok, "nothing overwritten: messages 1..5 in order");
	tring_free(&t);
}

struct blocked_arg {
	struct tring *t;
	int ret;
	bool full;
};

static void *put_thread(void *p)
{
	struct blocked_arg *a = p;
	unsigned char in[64];

	pattern_fill(in, 99, 50);
	a->ret = ring_put(&a->t->v, 1, in, 50, NULL, NULL, &a->full);
	return NULL;
}

static void test_full_waits(void)
{
	unsigned char in[128], out[128];
	struct timespec ms = { 0, 20000000 };
	struct blocked_arg a;
	struct ring_msg m;
	struct tring t;
	pthread_t th;
	uint64_t tail;

	tring_init(&t, 256);
	pattern_fill(in, 5, 100);
	ring_try_put(&t.v, 0, in, 100);
	ring_try_put(&t.v, 0, in, 100);
	tail = t.hdr->tail;
	a.t = &t;
	a.ret = 1;
	pthread_create(&th, NULL, put_thread, &a);
	nanosleep(&ms, NULL);
	check(__atomic_load_n(&a.ret, __ATOMIC_RELAXED) == 1 &&
	      __atomic_load_n(&t.hdr->tail, __ATOMIC_RELAXED) == tail,
	      "sender waits on a full ring, reserves nothing");
	ring_get(&t.v, &m, out, sizeof(out));
	pthread_join(th, NULL);
	check(a.ret == 0 && a.full, "sender completes once there is room");
	check(ring_get(&t.v, &m, out, sizeof(out)) == 100 && pattern_check(out, 5, 100) &&
	      ring_get(&t.v, &m, out, sizeof(out)) == 50 && pattern_check(out, 99, 50),
	      "both the old and the waiting message arrive");
	tring_free(&t);
}

#define NTHREADS	4
#define PER_THREAD	100000

struct sender {
	struct tring *t;
	uint32_t id;
	unsigned int seed;
};

/* Payload: u32 sequence, then pattern bytes; length from the seed. */
static void *sender_thread(void *p)
{
	struct sender *s = p;
	unsigned char buf[256];
	uint32_t seq;
	bool full;
	size_t len;

	for (seq = 0; seq < PER_THREAD; seq++) {
		len = 4 + rand_r(&s->seed) % 200;
		memcpy(buf, &seq, 4);
		pattern_fill(buf + 4, seq ^ s->id, len - 4);
		if (ring_put(&s->t->v, s->id, buf, len, NULL, NULL, &full))
			abort();
	}
	return NULL;
}

static void test_concurrent(void)
{
	struct sender s[NTHREADS];
	uint32_t next[NTHREADS] = { 0 }, seq;
	unsigned char buf[256];
	pthread_t th[NTHREADS];
	uint64_t got = 0, bad_order = 0, bad_data = 0, bad_src = 0;
	struct ring_msg m;
	struct tring t;
	ssize_t r;
	int i;

	tring_init(&t, 1 << 14);
	for (i = 0; i < NTHREADS; i++) {
		s[i] = (struct sender){ &t, (uint32_t)i, 1234u + (unsigned)i };
		pthread_create(&th[i], NULL, sender_thread, &s[i]);
	}
	while (got < (uint64_t)NTHREADS * PER_THREAD) {
		r = ring_get(&t.v, &m, buf, sizeof(buf));
		if (r == -EAGAIN)
			continue;
		if (r < 4 || m.src >= NTHREADS) {
			bad_src++;
			break;
		}
		memcpy(&seq, buf, 4);
		if (seq != next[m.src])
			bad_order++;
		next[m.src] = seq + 1;
		if (!pattern_check(buf + 4, seq ^ m.src, (size_t)r - 4))
			bad_data++;
		got++;
	}
	for (i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	check(got == (uint64_t)NTHREADS * PER_THREAD && !bad_src,
	      "concurrent: %llu messages from %d senders",
	      (unsigned long long)got, NTHREADS);
	check(!bad_order, "concurrent: per-sender order kept, none lost or twice (%llu out of order)",
	      (unsigned long long)bad_order);
	check(!bad_data, "concurrent: contents intact (%llu bad)",
	      (unsigned long long)bad_data);
	check(ring_get(&t.v, &m, buf, sizeof(buf)) == -EAGAIN &&
	      t.hdr->head == t.hdr->tail, "concurrent: empty at the end");
	tring_free(&t);
}

static void test_fuzz(void)
{
	static unsigned char in[1024], out[1024];
	uint32_t sent = 0, recvd = 0, seed = 42;
	size_t lens[64];
	struct ring_msg m;
	struct tring t;
	bool ok = true;
	int step;
	ssize_t r;

	tring_init(&t, 1024);
	srand(seed);
	for (step = 0; step < 200000 && ok; step++) {
		if (rand() % 2) {
			size_t len = (size_t)rand() % (t.v.max_msg + 1);

			pattern_fill(in, sent, len);
			r = ring_try_put(&t.v, 7, in, len);
			if (r == 0)
				lens[sent++ % 64] = len;
			else
				ok = r == -EAGAIN && sent - recvd < 64;
		} else {
			r = ring_get(&t.v, &m, out, sizeof(out));
			if (r == -EAGAIN)
				ok = sent == recvd;
			else
				ok = r == (ssize_t)lens[recvd % 64] &&
				     pattern_check(out, recvd++, (size_t)r) &&
				     m.src == 7;
		}
	}
	check(ok, "fuzz (seed %u): %u sent, %u received, all intact",
	      seed, sent, recvd);
	tring_free(&t);
}

static void test_malformed(void)
{
	unsigned char out[512];
	struct ring_msg m;
	struct tring t;
	uint64_t *tag;
	uint32_t *w;

	tring_init(&t, 512);
	ring_try_put(&t.v, 0, out, 10);
	ring_get(&t.v, &m, out, sizeof(out));	/* head = 32 */
	tag = (uint64_t *)((char *)t.data + 32);
	w = (uint32_t *)(tag + 1);
	t.hdr->tail = 32 + 64;
	*tag = 33;
	w[0] = 1024;	/* > data area */
	check(ring_get(&t.v, &m, out, sizeof(out)) == -EBADMSG,
	      "len > data area: -EBADMSG");
	check(ring_get(&t.v, &m, out, sizeof(out)) == -EBADMSG &&
	      ring_peek(&t.v, &m) == -EBADMSG && t.hdr->head == 32,
	      "malformed stays: -EBADMSG again, head unmoved");
	w[0] = t.v.max_msg + 1;
	check(ring_get(&t.v, &m, out, sizeof(out)) == -EBADMSG,
	      "len max+1: -EBADMSG");
	w[0] = t.v.max_msg;	/* fits the limit but crosses the end */
	*tag = 0;
	t.hdr->head = 512 + 480;
	t.hdr->tail = 512 + 512;
	tag = (uint64_t *)((char *)t.data + 480);
	*tag = 512 + 480 + 1;
	((uint32_t *)(tag + 1))[0] = t.v.max_msg;
	check(ring_get(&t.v, &m, out, sizeof(out)) == -EBADMSG,
	      "record crossing the end of the area: -EBADMSG");
	*tag = 0;
	tag = (uint64_t *)t.data;
	t.hdr->head = 1024;
	t.hdr->tail = 1024 + 512;
	*tag = 1025;
	((uint32_t *)(tag + 1))[0] = UINT32_MAX;
	check(ring_get(&t.v, &m, out, sizeof(out)) == -EBADMSG,
	      "padding over a whole area: -EBADMSG");
	*tag = 1000;
	check(ring_get(&t.v, &m, out, sizeof(out)) == -EAGAIN,
	      "stale tag: not ready");
	tring_free(&t);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_view();
	test_sizes();
	test_peek_and_small_buf();
	test_wrap_padding();
	test_full();
	test_full_waits();
	test_concurrent();
	test_fuzz();
	test_malformed();
	printf("1..%d\n", n_test);
	return n_fail ? 1 : 0;
}
