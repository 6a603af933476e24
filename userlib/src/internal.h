/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libcosched internals shared by the source files. */
#ifndef COSCHED_INTERNAL_H
#define COSCHED_INTERNAL_H

#include "cosched.h"
#include "net.h"
#include "ring.h"

#include <pthread.h>

#define PUBLIC __attribute__((visibility("default")))

/* A mapped ring: the mapping and the view into it. */
struct ep_ring {
	void *map;
	size_t map_len;
	struct ring_view v;
	bool lost;		/* without the module: its owner died */
	struct ep_ring *retired;	/* older mappings of the same rank */
};

/* Library counters; sends may come from several threads. */
struct ep_counters {
	uint64_t sends, doorbells, send_full;
	uint64_t receives, spin_hits, blocks, yields, missed_wakeups;
	uint64_t spin_ons;	/* block() spun on instead of arming (tests) */
};

struct ep_callback;
struct ep_owner;

struct cosched_ep {
	int fd;				/* /dev/cosched; -1 without the module */
	pid_t pid;			/* the process that opened it */
	uint64_t job;
	uint32_t rank;
	uint32_t size;
	int default_mode;		/* COSCHED_MODE_* for MODE_DEFAULT */
	int64_t spin_ns;		/* own spin, or -1: the module's spin_us */
	uint64_t wait_timeout_ns;	/* bound of one block; 0: none */
	struct cosched_ctrl *ctrl;	/* our control page (private memory
					 * without the module) */
	size_t ctrl_len;
	struct ep_ring own;		/* our receive ring */
	struct ep_ring **peers;		/* [size], mapped on first send */
	pthread_mutex_t map_lock;	/* serialises peer mappings */
	struct net *net;		/* ranks on other nodes, or NULL */
	uint64_t net_fetched;		/* arrivals at the last net_fetch() */
	struct ep_callback *cb;		/* callback mode, or NULL */
	struct ep_owner *owner;		/* COSCHED_OPEN_CALLBACK's thread */
	uint64_t next_lost_check_ns;	/* without the module */
	int progress;			/* threads in cosched_progress_begin() */
	bool progress_rung;		/* one of them rang since the last arm */
	struct ep_counters cnt;
};

/* Is the module behind this endpoint? */
static inline bool ep_has_module(const struct cosched_ep *ep)
{
	return ep->fd >= 0;
}

/* A counter any sending thread may bump: an atomic add. */
#define COUNT(ep, field) \
	__atomic_fetch_add(&(ep)->cnt.field, 1, __ATOMIC_RELAXED)
/* A counter only the receiving thread bumps: no locked instruction. */
#define COUNT_RX(ep, field) \
	__atomic_store_n(&(ep)->cnt.field, \
			 __atomic_load_n(&(ep)->cnt.field, __ATOMIC_RELAXED) + 1, \
			 __ATOMIC_RELAXED)

/*
 * Everything announced up to seen is consumed: seen is the arrival count
 * read before the owner's last look at its sources, and that look found
 * nothing left.  An arrival counted after seen stays pending.  One load
 * of our own line, and a store only when it moves forward: the fast
 * path of every receive, no system call.
 */
static inline void ep_consumed(struct cosched_ep *ep, uint64_t seen)
{
	if (seen > __atomic_load_n(&ep->ctrl->consumed, __ATOMIC_RELAXED))
		__atomic_store_n(&ep->ctrl->consumed, seen, __ATOMIC_RELAXED);
}

/* endpoint.c: map a ring at off of fd (header page, then the whole ring). */
int ep_ring_map(int fd, off_t off, struct ep_ring *r);
void ep_ring_unmap(struct ep_ring *r);
/* endpoint.c: the ring of rank, mapped on first use; NULL + *err. */
struct ep_ring *ep_peer(struct cosched_ep *ep, uint32_t rank, int *err);

/* wait.c: resolve COSCHED_MODE_DEFAULT/POLICY to POLL, BLOCK or YIELD. */
int ep_mode(struct cosched_ep *ep, int mode);
/* wait.c: parse $COSCHED_RECV_MODE (COSCHED_MODE_POLICY if unset). */
int ep_env_mode(void);
/* wait.c: cosched_wait() for our own ring: a bounded sleep if nobody rings. */
int ep_wait_ring(struct cosched_ep *ep, bool (*ready)(void *), void *arg,
		 int mode);
/* wait.c: -ECONNRESET once per peer lost since the last call, else 0. */
int ep_check_lost(struct cosched_ep *ep);

/* progress.c: may the waiter not sleep yet (progress it cannot see)? */
bool ep_progress_held(struct cosched_ep *ep);

/* send.c: ring rank's doorbell (announce one arrival). */
int ep_doorbell(struct cosched_ep *ep, uint32_t rank);

/* shm.c: the endpoint without the module, in POSIX shared memory. */
int shm_ep_create(struct cosched_ep *ep);
int shm_ring_map(struct cosched_ep *ep, uint32_t rank, struct ep_ring *r);
void shm_ep_destroy(struct cosched_ep *ep);
/* shm.c: unmap a fork()ed child's copy; the parent's ring stays open. */
void shm_ep_forget(struct cosched_ep *ep);
/* shm.c: count peers that died without closing into ctrl->peers_lost. */
void shm_find_lost(struct cosched_ep *ep);
/* shm.c: has the owner of r gone away (closed or died)? */
bool shm_ring_gone(const struct cosched_ep *ep, const struct ep_ring *r);

/* recv.c: one receive attempt for cosched_recv() and the callback thread */
struct recv_arg {
	struct cosched_ep *ep;
	uint32_t *src;
	void *buf;
	size_t len;
	ssize_t ret;
	const bool *stop;	/* callback mode: ends the wait, -ECANCELED */
	bool more;		/* the TCP transport offered a second message */
};
bool ep_try_recv(void *p);

/* spin.c: $COSCHED_SPIN_US into ep->spin_ns. */
int ep_spin_from_env(struct cosched_ep *ep);

/* endpoint.c: the module's endpoint, created by the calling thread. */
int ep_create(struct cosched_ep *ep);

/*
 * owner.c: COSCHED_OPEN_CALLBACK's thread: create the endpoint from it,
 * run a session on it (-EBUSY while one runs), wait for the session to
 * end, destroy the endpoint from it and end it.
 */
int ep_owner_create(struct cosched_ep *ep);
/* owner.c: a library thread, every signal blocked; 0 or -errno. */
int ep_spawn(pthread_t *t, void *(*fn)(void *), void *arg);
int ep_owner_run(struct cosched_ep *ep, void (*job)(struct cosched_ep *));
void ep_owner_wait_idle(struct cosched_ep *ep);
void ep_owner_destroy(struct cosched_ep *ep);

/* callback.c: end callback mode (cosched_close). */
void ep_callback_stop(struct cosched_ep *ep);

/* A fork()ed child's copies of the library threads' state, freed unjoined. */
void ep_callback_forget(struct cosched_ep *ep);
void ep_owner_forget(struct cosched_ep *ep);

#endif /* COSCHED_INTERNAL_H */
