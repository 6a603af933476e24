// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * endpoint.c - cosched_open() and cosched_close(): the endpoint, its
 * control page, its own ring, and the peers' rings mapped lazily.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * The kernel accepts a mapping of exactly one page or one page plus
 * data_size; data_size is in the header, so map the header alone first.
 */
int ep_ring_map(struct cosched_ep *ep, uint32_t rank, struct ep_ring *r)
{
	off_t off = (off_t)COSCHED_RING_OFFSET(rank);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct cosched_ring *h;
	uint32_t data_size, data_off;
	void *p;
	int err;

	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, ep->fd, off);
	if (p == MAP_FAILED)
		return -errno;
	h = p;
	data_size = h->data_size;
	data_off = h->data_offset;
	munmap(p, page);
	if (data_off != page)
		return -EPROTO;	/* ABI 1: the data follows the header page */
	r->map_len = page + data_size;
	p = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, ep->fd,
		 off);
	if (p == MAP_FAILED)
		return -errno;
	r->map = p;
	err = ring_view_init(&r->v, p, (unsigned char *)p + data_off);
	if (err)
		munmap(p, r->map_len);
	return err;
}

void ep_ring_unmap(struct ep_ring *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	r->map = NULL;
}

struct ep_ring *ep_peer(struct cosched_ep *ep, uint32_t rank, int *err)
{
	struct ep_ring *r;

	if (rank >= ep->size) {
		*err = -EINVAL;
		return NULL;
	}
	if (rank == ep->rank)
		return &ep->own;
	r = __atomic_load_n(&ep->peers[rank], __ATOMIC_ACQUIRE);
	if (r)
		return r;
	pthread_mutex_lock(&ep->map_lock);
	r = ep->peers[rank];
	if (!r) {
		r = calloc(1, sizeof(*r));
		*err = r ? ep_ring_map(ep, rank, r) : -ENOMEM;
		if (*err) {
			free(r);
			r = NULL;
		} else {
			/* Fully set up before other senders can see it. */
			__atomic_store_n(&ep->peers[rank], r, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&ep->map_lock);
	return r;
}

static int ep_create(struct cosched_ep *ep)
{
	struct cosched_create cr = {
		.abi_version = COSCHED_ABI_VERSION,
		.job_id = ep->job,
		.rank = ep->rank,
	};
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	ep->fd = open(COSCHED_DEVICE, O_RDWR | O_CLOEXEC);
	if (ep->fd < 0)
		return -errno;
	if (ioctl(ep->fd, COSCHED_IOC_CREATE, &cr))
		return -errno;
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, ep->fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	ep->ctrl = p;
	ep->ctrl_len = page;
	return ep_ring_map(ep, ep->rank, &ep->own);
}

PUBLIC int cosched_open(struct cosched_ep **epp, uint64_t job, uint32_t rank,
			uint32_t size, unsigned int flags)
{
	struct cosched_ep *ep;
	int err;

	*epp = NULL;
	if (flags || !job || !size || rank >= size || size > COSCHED_MAX_RANKS)
		return -EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -ENOMEM;
	ep->fd = -1;
	ep->job = job;
	ep->rank = rank;
	ep->size = size;
	ep->default_mode = ep_env_mode();
	pthread_mutex_init(&ep->map_lock, NULL);
	ep->peers = calloc(size, sizeof(*ep->peers));
	err = ep->peers ? ep_create(ep) : -ENOMEM;
	if (err) {
		cosched_close(ep);
		return err;
	}
	*epp = ep;
	return 0;
}

PUBLIC void cosched_close(struct cosched_ep *ep)
{
	uint32_t i;

	if (!ep)
		return;
	for (i = 0; ep->peers && i < ep->size; i++) {
		if (ep->peers[i]) {
			ep_ring_unmap(ep->peers[i]);
			free(ep->peers[i]);
		}
	}
	free(ep->peers);
	ep_ring_unmap(&ep->own);
	if (ep->ctrl)
		munmap(ep->ctrl, ep->ctrl_len);
	/* Closing the file destroys the endpoint; waiters get -EIDRM. */
	if (ep->fd >= 0)
		close(ep->fd);
	pthread_mutex_destroy(&ep->map_lock);
	free(ep);
}
