// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ring.c - the record format of a receive ring (multi-producer, single
 * consumer), on whatever memory the caller hands in.
 *
 * The kernel owns the header page (struct cosched_ring) and gives every
 * ring a zeroed data area of data_size bytes (a power of two) at
 * data_offset.  tail and head are absolute byte positions that never wrap;
 * a position p lives at data[p & (data_size - 1)].
 *
 * Record, aligned to 16 bytes, never straddling the end of the area:
 *
 *	u64 tag        position of the record + 1, stored last (release)
 *	u32 len        payload bytes, or UINT32_MAX for a padding record
 *	u32 src_rank   the sender's rank
 *	u8  payload[len], then zeroes up to the next 16-byte boundary
 *
 * Send: reserve need = 16 + round_up(len, 16) bytes by a compare-and-swap
 * on tail, allowed only while tail + need - head <= data_size (otherwise
 * the ring is full and the sender waits: nothing is ever overwritten or
 * dropped).  If the record would cross the end of the area, the sender
 * reserves the rest of the area instead, publishes it as a padding record
 * and starts again at offset 0.  It copies the payload, writes len and
 * src_rank, then the tag with release order (the valid flag is written
 * last).  The sender may then stamp last_send_ns (ring_stamp()).
 *
 * Receive: the record at head is ready when its tag reads head + 1
 * (acquire).  The receiver copies it out, zeroes it and advances head by
 * its size (release).  So every byte outside [head, tail) is zero, and a
 * tag slot that a sender has reserved but not yet published reads 0, never
 * a stale payload word that could look like a tag.  A ready record whose
 * len exceeds the data area or the largest message (data_size / 2 - 16) or
 * that would cross the end of the area is malformed: -EBADMSG, every time,
 * and it is left in place (the ring is writable by the whole job, so the
 * reader checks, and it never skips data silently).
 */
#include "ring.h"

#include <errno.h>
#include <string.h>
#include <time.h>

struct rec_hdr {
	uint64_t tag;
	uint32_t len;
	uint32_t src;
};

_Static_assert(sizeof(struct rec_hdr) == RING_HDR, "record header is 16 bytes");

uint64_t cosched_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int ring_view_init(struct ring_view *v, struct cosched_ring *hdr, void *data)
{
	uint32_t size = hdr->data_size;

	/* Room for at least one 16-byte header plus a 16-byte payload. */
	if (size < 4 * RING_ALIGN || (size & (size - 1)))
		return -EINVAL;
	v->hdr = hdr;
	v->data = data;
	v->size = size;
	v->max_msg = size / 2 - RING_HDR;
	return 0;
}

static struct rec_hdr *rec_at(struct ring_view *v, uint64_t pos)
{
	return (struct rec_hdr *)(v->data + (pos & (v->size - 1)));
}

/*
 * Reserve need bytes (or the rest of the area if the record would cross
 * its end: *pad tells which).  head is read before tail, so head <= tail
 * holds for the two values and the subtraction cannot wrap; the acquire
 * on head orders our writes to the space after the receiver's zeroing.
 *
 * The receiver's head lives on a cache line it writes for every message,
 * so senders work from the head they saw last (head only grows: an old
 * value only understates the room) and read it again only when that
 * says the record does not fit.
 */
static int reserve(struct ring_view *v, uint64_t need, uint64_t *pos,
		   bool *pad)
{
	struct cosched_ring *h = v->hdr;
	uint64_t head, tail, rsv, room;
	bool fresh = false;

	head = __atomic_load_n(&v->head_seen, __ATOMIC_ACQUIRE);
	for (;;) {
		tail = __atomic_load_n(&h->tail, __ATOMIC_RELAXED);
		room = v->size - (tail & (v->size - 1));
		*pad = room < need;
		rsv = *pad ? room : need;
		if (tail - head + rsv > v->size) {
			if (fresh)
				return -EAGAIN;
			/* Reload both: tail must not be older than head. */
			head = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE);
			__atomic_store_n(&v->head_seen, head, __ATOMIC_RELEASE);
			fresh = true;
			continue;
		}
		if (__atomic_compare_exchange_n(&h->tail, &tail, tail + rsv,
						true, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			break;
	}
	*pos = tail;
	return 0;
}

static void publish(struct rec_hdr *r, uint64_t pos, uint32_t len,
		    uint32_t src)
{
	r->len = len;
	r->src = src;
	__atomic_store_n(&r->tag, pos + 1, __ATOMIC_RELEASE);
}

int ring_try_put(struct ring_view *v, uint32_t src, const void *buf,
		 size_t len)
{
	uint64_t need, pos;
	struct rec_hdr *r;
	bool pad;
	int err;

	if (len > v->max_msg)
		return -EMSGSIZE;
	need = ring_rec_size(len);
	for (;;) {
		err = reserve(v, need, &pos, &pad);
		if (err)
			return err;
		r = rec_at(v, pos);
		if (!pad)
			break;
		publish(r, pos, RING_PAD_LEN, 0);
	}
	if (len)
		memcpy(r + 1, buf, len);
	publish(r, pos, (uint32_t)len, src);
	return 0;
}

int ring_put(struct ring_view *v, uint32_t src, const void *buf, size_t len,
	     int (*check)(void *), void *arg, bool *full)
{
	struct timespec nap = { 0, 50000 };
	uint64_t t0 = 0;
	int err;

	*full = false;
	while ((err = ring_try_put(v, src, buf, len)) == -EAGAIN) {
		/* Full: spin 50 us for the receiver, then nap 50 us a time. */
		if (!*full) {
			*full = true;
			t0 = cosched_now_ns();
		}
		if (cosched_now_ns() - t0 < 50000) {
			cosched_cpu_relax();
			continue;
		}
		err = check ? check(arg) : 0;
		if (err)
			return err;
		nanosleep(&nap, NULL);
	}
	return err;
}

/*
 * Consume padding; find the record at head: 0, -EAGAIN or -EBADMSG.  The
 * header is read once into *m: peers can scribble on the ring, and a len
 * checked here must be the len used.
 */
static int next(struct ring_view *v, struct rec_hdr **rp, struct ring_msg *m)
{
	uint32_t len, src;
	struct cosched_ring *h = v->hdr;
	uint64_t head, off;
	struct rec_hdr *r;

	for (;;) {
		head = __atomic_load_n(&h->head, __ATOMIC_RELAXED);
		off = head & (v->size - 1);
		r = rec_at(v, head);
		if (__atomic_load_n(&r->tag, __ATOMIC_ACQUIRE) != head + 1)
			return -EAGAIN;
		len = __atomic_load_n(&r->len, __ATOMIC_RELAXED);
		if (len != RING_PAD_LEN)
			break;
		if (off == 0)
			return -EBADMSG;	/* nobody pads a whole area */
		/* The rest of a padding record is zero already. */
		memset(r, 0, sizeof(*r));
		__atomic_store_n(&h->head, head + (v->size - off),
				 __ATOMIC_RELEASE);
	}
	if (len > v->size || len > v->max_msg ||
	    off + ring_rec_size(len) > v->size)
		return -EBADMSG;
	src = __atomic_load_n(&r->src, __ATOMIC_RELAXED);
	m->len = len;
	m->src = src;
	*rp = r;
	return 0;
}

int ring_peek(struct ring_view *v, struct ring_msg *m)
{
	struct rec_hdr *r;

	return next(v, &r, m);
}

ssize_t ring_get(struct ring_view *v, struct ring_msg *m, void *buf,
		 size_t len)
{
	struct rec_hdr *r;
	uint64_t size;
	int err = next(v, &r, m);

	if (err)
		return err;
	if (m->len > len)
		return -EMSGSIZE;
	if (m->len)
		memcpy(buf, r + 1, m->len);
	size = ring_rec_size(m->len);
	/* Zero it so that no stale word can pass for a future tag. */
	memset(r, 0, size);
	__atomic_store_n(&v->hdr->head,
			 __atomic_load_n(&v->hdr->head, __ATOMIC_RELAXED) + size,
			 __ATOMIC_RELEASE);
	return m->len;
}
