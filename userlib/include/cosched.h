/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcosched: user-level messaging between the processes of one job and
 * the cosched receive modes (poll, spin then block, spin then yield).
 *
 * Every process of a job opens one endpoint with cosched_open().  Each
 * endpoint has a receive ring that the cosched module allocates; a sender
 * writes straight into the receiver's ring (no system call) and rings the
 * module's doorbell only when the active policy needs it.  Functions
 * return 0 (or a length) on success and a negative errno on failure; they
 * never set errno.
 *
 * Thread safety: any number of threads may send through one endpoint;
 * one thread at a time may receive (the ring has a single consumer).
 */
#ifndef COSCHED_H
#define COSCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/cosched.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cosched_ep;

/* How cosched_recv() and cosched_wait() wait for a message. */
enum cosched_mode {
	COSCHED_MODE_DEFAULT = 0,	/* $COSCHED_RECV_MODE, else POLICY */
	COSCHED_MODE_POLICY,		/* the module's ctrl->wait_mode */
	COSCHED_MODE_POLL,		/* busy poll, never enter the kernel */
	COSCHED_MODE_BLOCK,		/* spin ctrl->spin_us, then block */
	COSCHED_MODE_YIELD,		/* spin, then yield, keep spinning */
};

/* Library counters of one endpoint plus the module's own (cosched_stats). */
struct cosched_ep_stats {
	uint64_t sends;		/* messages published by cosched_send() */
	uint64_t doorbells;	/* sends that rang COSCHED_IOC_DOORBELL */
	uint64_t send_full;	/* sends that found the peer's ring full */
	uint64_t receives;	/* messages consumed by cosched_recv() */
	uint64_t spin_hits;	/* receives that found a message while spinning */
	uint64_t blocks;	/* COSCHED_IOC_WAIT calls that were made */
	uint64_t yields;	/* COSCHED_IOC_YIELD calls that lowered us */
	struct cosched_stats module;	/* COSCHED_IOC_STATS of the endpoint */
};

/* Open /dev/cosched and create the endpoint of rank in job (size ranks). */
int cosched_open(struct cosched_ep **ep, uint64_t job, uint32_t rank,
		 uint32_t size, unsigned int flags);

/* Destroy the endpoint, unmap every ring and free ep (NULL is a no-op). */
void cosched_close(struct cosched_ep *ep);

/* Largest payload cosched_send() accepts to rank (-errno if unmappable). */
ssize_t cosched_max_msg(struct cosched_ep *ep, uint32_t rank);

/* Copy len bytes into rank's ring; waits while the ring is full. */
int cosched_send(struct cosched_ep *ep, uint32_t rank, const void *buf,
		 size_t len);

/* Wait (per mode) for the next message; copy it out; return its length. */
ssize_t cosched_recv(struct cosched_ep *ep, uint32_t *src_rank, void *buf,
		     size_t len, int mode);

/* Non-blocking: source and length of the next message, -EAGAIN if none. */
int cosched_probe(struct cosched_ep *ep, uint32_t *src, size_t *len);

/* Wait per mode until ready(arg) is true, woken by the endpoint's arrivals. */
int cosched_wait(struct cosched_ep *ep, bool (*ready)(void *), void *arg,
		 int mode);

/* Fill st with the library's and the module's counters of the endpoint. */
int cosched_stats(struct cosched_ep *ep, struct cosched_ep_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* COSCHED_H */
