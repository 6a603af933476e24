/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libcosched internals shared by the source files. */
#ifndef COSCHED_INTERNAL_H
#define COSCHED_INTERNAL_H

#include "cosched.h"
#include "ring.h"

#include <pthread.h>

#define PUBLIC __attribute__((visibility("default")))

/* A mapped ring: the mapping and the view into it. */
struct ep_ring {
	void *map;
	size_t map_len;
	struct ring_view v;
};

/* Library counters; sends may come from several threads. */
struct ep_counters {
	uint64_t sends, doorbells, send_full;
	uint64_t receives, spin_hits, blocks, yields;
};

struct cosched_ep {
	int fd;
	uint64_t job;
	uint32_t rank;
	uint32_t size;
	int default_mode;		/* COSCHED_MODE_* for MODE_DEFAULT */
	struct cosched_ctrl *ctrl;	/* our control page */
	size_t ctrl_len;
	struct ep_ring own;		/* our receive ring */
	struct ep_ring **peers;		/* [size], mapped on first send */
	pthread_mutex_t map_lock;	/* serialises peer mappings */
	struct ep_counters cnt;
};

#define COUNT(ep, field) \
	__atomic_fetch_add(&(ep)->cnt.field, 1, __ATOMIC_RELAXED)

/* endpoint.c: map rank's ring (header page, then the whole ring). */
int ep_ring_map(struct cosched_ep *ep, uint32_t rank, struct ep_ring *r);
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
/* wait.c: do senders ring the doorbell under the active policy? */
bool ep_policy_rings(const struct cosched_ctrl *c);

#endif /* COSCHED_INTERNAL_H */
