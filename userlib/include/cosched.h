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
 * Ranks on other nodes (named by $COSCHED_PEERS or $COSCHED_PEERS_FILE)
 * are reached over TCP through io_uring with the same calls.  Without the
 * module the library still works, in busy-poll mode (it says so once).
 *
 * Thread rules: any number of threads may call cosched_send() on one
 * endpoint at once.  Receiving (cosched_recv, cosched_probe, cosched_wait)
 * is for one thread at a time, and for none while callback mode runs.
 * cosched_stats(), cosched_missed_wakeups(), cosched_max_msg() and
 * cosched_progress_begin/end() may be called from any thread.
 * cosched_set_spin() and cosched_close() must not race with anything on
 * the same endpoint.  See libcosched(7).
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

/* cosched_set_spin(): the module's spin_us, or measure a block here. */
#define COSCHED_SPIN_MODULE	(-1L)
#define COSCHED_SPIN_AUTO	(-2L)
#define COSCHED_SPIN_MAX_US	100000L
/* cosched_set_wait_timeout(): at most 10 s. */
#define COSCHED_WAIT_TIMEOUT_MAX_US	10000000L

/* Callback mode: status 0 and a message, or a negative errno. */
typedef void (*cosched_msg_fn)(void *arg, int status, uint32_t src,
			       const void *buf, size_t len);

/*
 * cosched_open() flags.  COSCHED_OPEN_CALLBACK: the endpoint is for
 * callback mode (cosched_recv_callback): a library thread creates it and
 * runs the callbacks, so that the module steers the thread that waits.
 */
#define COSCHED_OPEN_CALLBACK	(1U << 0)

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

/* The endpoint's arrival count: read it before a last look at a transport. */
uint64_t cosched_arrivals(struct cosched_ep *ep);

/* That look found nothing left: arrivals up to seen are consumed. */
void cosched_consumed(struct cosched_ep *ep, uint64_t seen);

/* Deliver every message to fn from a library thread; fn NULL stops it. */
int cosched_recv_callback(struct cosched_ep *ep, cosched_msg_fn fn, void *arg,
			  int mode);

/* Spin this long (us) before blocking or yielding, or a COSCHED_SPIN_*. */
int cosched_set_spin(struct cosched_ep *ep, long us);

/* The spin in effect, in us. */
long cosched_get_spin(struct cosched_ep *ep);

/* Fill st with the library's and the module's counters of the endpoint. */
int cosched_stats(struct cosched_ep *ep, struct cosched_ep_stats *st);

/* Sleeps that ran out their timeout though the wait's condition held. */
uint64_t cosched_missed_wakeups(struct cosched_ep *ep);

/* Count data arriving on our TCP socket fd as arrivals at ep (hooks). */
int cosched_register_fd(struct cosched_ep *ep, int fd);

/* End cosched_register_fd(fd). */
int cosched_unregister_fd(struct cosched_ep *ep, int fd);

/* Wake from each block after us even without an arrival; 0: never. */
int cosched_set_wait_timeout(struct cosched_ep *ep, long us);

/*
 * Another thread is about to make (has ended) progress the module cannot
 * see but that may end the waiting thread's wait: while any is counted,
 * the waiter spins instead of sleeping or yielding.  Any thread.
 */
void cosched_progress_begin(struct cosched_ep *ep);
void cosched_progress_end(struct cosched_ep *ep);

/* The policy steering ep now: an enum cosched_policy (<linux/cosched.h>). */
int cosched_get_policy(struct cosched_ep *ep);

/* How a cosched_wait() in mode would wait now: POLL, BLOCK or YIELD. */
int cosched_get_wait_mode(struct cosched_ep *ep, int mode);

#ifdef __cplusplus
}
#endif

#endif /* COSCHED_H */
