/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The record format of a receive ring, on plain memory so that the host
 * tests can drive it without the module.  See ring.c for the format.
 */
#ifndef COSCHED_RING_H
#define COSCHED_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/cosched.h>

#define RING_ALIGN	16u
#define RING_HDR	16u
#define RING_PAD_LEN	UINT32_MAX

/* CLOCK_MONOTONIC in ns. */
uint64_t cosched_now_ns(void);

/* A header page and the data area it describes, as this process sees them. */
struct ring_view {
	struct cosched_ring *hdr;
	unsigned char *data;
	uint32_t size;		/* data_size, a power of two */
	uint32_t max_msg;	/* largest payload: size / 2 - RING_HDR */
	uint64_t head_seen;	/* senders: a head read earlier, <= head */
};

struct ring_msg {
	uint32_t src;
	uint32_t len;
};

/* Check the header's data_size and set up v; -EINVAL if unusable. */
int ring_view_init(struct ring_view *v, struct cosched_ring *hdr, void *data);

/* Bytes a record with a payload of len takes in the data area. */
static inline uint64_t ring_rec_size(uint64_t len)
{
	return RING_HDR + ((len + RING_ALIGN - 1) & ~(uint64_t)(RING_ALIGN - 1));
}

/* One attempt: 0 published, -EAGAIN ring full, -EMSGSIZE too big. */
int ring_try_put(struct ring_view *v, uint32_t src, const void *buf,
		 size_t len);

/*
 * ring_try_put(), spinning then napping while full; *full set if it was.
 * While napping it asks check(arg), if given, whether to go on: a
 * non-zero answer is returned (the receiver is gone, say).
 */
int ring_put(struct ring_view *v, uint32_t src, const void *buf, size_t len,
	     int (*check)(void *), void *arg, bool *full);

/* A hint for the module's choice of the newest pending endpoint. */
static inline void ring_stamp(struct ring_view *v)
{
	__atomic_store_n(&v->hdr->last_send_ns, cosched_now_ns(),
			 __ATOMIC_RELAXED);
}

/* Does the ring hold a record its owner has not consumed? */
static inline bool ring_busy(const struct ring_view *v)
{
	return __atomic_load_n(&v->hdr->tail, __ATOMIC_ACQUIRE) !=
	       __atomic_load_n(&v->hdr->head, __ATOMIC_ACQUIRE);
}

/* The next message without consuming it: 0, -EAGAIN or -EBADMSG. */
int ring_peek(struct ring_view *v, struct ring_msg *m);

/* Consume the next message into buf: its length, -EAGAIN, -EBADMSG, or
 * -EMSGSIZE (buf too small; the message stays in the ring). */
ssize_t ring_get(struct ring_view *v, struct ring_msg *m, void *buf,
		 size_t len);

/* Tell the CPU we are spinning (frees the sibling hyperthread). */
static inline void cosched_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}


#endif /* COSCHED_RING_H */
