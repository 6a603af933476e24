// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * endpoint.c - cosched_open() and cosched_close(): the endpoint, its
 * control page, its own ring, and the peers' rings mapped lazily.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * The kernel accepts a mapping of exactly one page or one page plus
 * data_size; data_size is in the header, so map the header alone first.
 */
int ep_ring_map(int fd, off_t off, struct ep_ring *r)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct cosched_ring *h;
	uint32_t data_size, data_off;
	void *p;
	int err;

	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
	if (p == MAP_FAILED)
		return -errno;
	h = p;
	data_size = h->data_size;
	data_off = h->data_offset;
	munmap(p, page);
	if (data_off != page)
		return -EPROTO;	/* ABI 1: the data follows the header page */
	r->map_len = page + data_size;
	p = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off);
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

static bool ring_left(const struct ep_ring *r)
{
	return __atomic_load_n(&r->v.hdr->flags, __ATOMIC_ACQUIRE) &
	       (COSCHED_RING_CLOSED | COSCHED_RING_LOST);
}

static struct ep_ring *map_peer(struct cosched_ep *ep, uint32_t rank,
				int *err)
{
	struct ep_ring *r = calloc(1, sizeof(*r));

	*err = !r ? -ENOMEM : !ep_has_module(ep) ?
		shm_ring_map(ep, rank, r) :
		ep_ring_map(ep->fd, (off_t)COSCHED_RING_OFFSET(rank), r);
	if (!*err && ring_left(r)) {
		ep_ring_unmap(r);
		*err = -ENOENT;
	}
	if (*err) {
		free(r);
		r = NULL;
	}
	return r;
}

/*
 * Map rank's ring on first use.  If its owner has left, look once more:
 * a new process may have taken the rank.  The old mapping stays until
 * close (another sender may be using it), and keeps answering -EPIPE.
 */
struct ep_ring *ep_peer(struct cosched_ep *ep, uint32_t rank, int *err)
{
	struct ep_ring *r, *fresh;

	if (rank >= ep->size) {
		*err = -EINVAL;
		return NULL;
	}
	if (rank == ep->rank)
		return &ep->own;
	r = __atomic_load_n(&ep->peers[rank], __ATOMIC_ACQUIRE);
	if (r && !ring_left(r))
		return r;
	pthread_mutex_lock(&ep->map_lock);
	r = ep->peers[rank];
	if (!r || ring_left(r)) {
		fresh = map_peer(ep, rank, err);
		if (fresh) {
			fresh->retired = r;
			/* Fully set up before other senders can see it. */
			__atomic_store_n(&ep->peers[rank], fresh,
					 __ATOMIC_RELEASE);
			r = fresh;
		}
	}
	pthread_mutex_unlock(&ep->map_lock);
	return r;
}

/* The module's endpoint; -ENODEV and friends when there is no module. */
int ep_create(struct cosched_ep *ep)
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
	return ep_ring_map(ep->fd, (off_t)COSCHED_RING_OFFSET(ep->rank),
			   &ep->own);
}

/*
 * No device, or a module of another ABI (or none at all: ENOTTY from a
 * different driver behind the name): go on without coscheduling, in
 * busy-poll mode, and say so once per process.
 */
static bool module_missing(int err)
{
	return err == -ENOENT || err == -ENODEV || err == -ENXIO ||
	       err == -EPROTO || err == -ENOTTY;
}

static void say_fallback_once(int err)
{
	static int said;

	if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		return;
	fprintf(stderr,
		"libcosched: %s: %s; busy-poll mode without coscheduling\n",
		COSCHED_DEVICE, strerror(-err));
}

static void ep_unmap_module(struct cosched_ep *ep)
{
	ep_ring_unmap(&ep->own);
	if (ep->ctrl)
		munmap(ep->ctrl, ep->ctrl_len);
	ep->ctrl = NULL;
	if (ep->fd >= 0)
		close(ep->fd);
	ep->fd = -1;
}

static int ep_open_local(struct cosched_ep *ep, unsigned int flags)
{
	int err = flags & COSCHED_OPEN_CALLBACK ? ep_owner_create(ep) :
						  ep_create(ep);

	if (!err || !module_missing(err))
		return err;
	ep_unmap_module(ep);
	say_fallback_once(err);
	return shm_ep_create(ep);
}

/*
 * Let the module see data arrive on our TCP connections (its arrival
 * hooks, Documentation/hooks.rst), so that dcs and pb act on them as on
 * ring messages.  The sockets, not our io_uring: that also carries the
 * poll of our own file, whose every doorbell would come back as a second
 * arrival.  A module without hooks (ENOTTY, EINVAL) just leaves TCP
 * arrivals unseen by the policies; the waits still work.
 */
static void ep_hook_sockets(struct cosched_ep *ep)
{
	struct cosched_hook_reg reg = { .kind = COSCHED_HOOK_TCP };
	uint32_t r;

	for (r = 0; r < ep->size; r++) {
		reg.fd = net_socket(ep->net, r);
		if (reg.fd < 0)
			continue;
		if (ioctl(ep->fd, COSCHED_IOC_REGISTER, &reg) && errno != EEXIST)
			return;
	}
}

/* Ranks on other nodes, if the launcher gave an address list. */
static int ep_open_net(struct cosched_ep *ep)
{
	char **addrs;
	int err;

	err = net_peers_from_env(ep->size, &addrs);
	if (err || !addrs)
		return err;
	err = net_open(&ep->net, ep->rank, ep->size, addrs, ep->fd,
		       ep->own.v.max_msg);
	net_peers_free(addrs, ep->size);
	if (!err && ep_has_module(ep))
		ep_hook_sockets(ep);
	return err;
}

PUBLIC int cosched_open(struct cosched_ep **epp, uint64_t job, uint32_t rank,
			uint32_t size, unsigned int flags)
{
	struct cosched_ep *ep;
	int err;

	*epp = NULL;
	if ((flags & ~COSCHED_OPEN_CALLBACK) || !job || !size || rank >= size ||
	    size > COSCHED_MAX_RANKS)
		return -EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -ENOMEM;
	ep->fd = -1;
	ep->pid = getpid();
	ep->job = job;
	ep->rank = rank;
	ep->size = size;
	ep->default_mode = ep_env_mode();
	pthread_mutex_init(&ep->map_lock, NULL);
	ep->peers = calloc(size, sizeof(*ep->peers));
	err = ep->peers ? ep_open_local(ep, flags) : -ENOMEM;
	if (!err)
		err = ep_spin_from_env(ep);
	if (!err)
		err = ep_open_net(ep);
	if (err) {
		cosched_close(ep);
		return err;
	}
	*epp = ep;
	return 0;
}

/* Unmap and free the peers' rings. */
static void ep_free_peers(struct cosched_ep *ep)
{
	uint32_t i;

	for (i = 0; ep->peers && i < ep->size; i++) {
		while (ep->peers[i]) {
			struct ep_ring *r = ep->peers[i];

			ep->peers[i] = r->retired;
			ep_ring_unmap(r);
			free(r);
		}
	}
	free(ep->peers);
}

/*
 * In a fork()ed child: the endpoint, its connections and its threads
 * are the parent's (the file and the sockets are shared).  Release this
 * process's copies only: no DESTROY, no goodbye, no unlink, no join.
 */
static void ep_forget(struct cosched_ep *ep)
{
	ep_callback_forget(ep);
	ep_owner_forget(ep);
	net_forget(ep->net);
	ep_free_peers(ep);
	if (ep_has_module(ep))
		ep_unmap_module(ep);
	else
		shm_ep_forget(ep);
	free(ep);
}

PUBLIC void cosched_close(struct cosched_ep *ep)
{
	if (!ep)
		return;
	if (ep->pid != getpid()) {
		ep_forget(ep);
		return;
	}
	ep_callback_stop(ep);
	/* First the goodbyes: peers see an orderly close, not a loss. */
	if (ep->net)
		net_close(ep->net);
	if (ep->owner)
		ep_owner_destroy(ep);
	else if (ep->fd >= 0)
		ioctl(ep->fd, COSCHED_IOC_DESTROY);
	ep_free_peers(ep);
	if (ep_has_module(ep))
		ep_unmap_module(ep);
	else
		shm_ep_destroy(ep);
	pthread_mutex_destroy(&ep->map_lock);
	free(ep);
}
