// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shm.c - endpoints without the module: the same rings, in POSIX shared
 * memory named after the user, job and rank, and a private control page
 * that says "local, busy wait".  Nothing steers the scheduler, nobody
 * rings, and every wait busy-polls; but the messages flow the same way.
 *
 * The ring's endpoint_id holds the owner's pid, so that a peer that died
 * without closing is seen (kill(pid, 0) fails with ESRCH) and its stale
 * ring is taken over by the next process of that rank.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Data bytes of a ring: the module's default (ring_kb = 256). */
#define SHM_RING_DATA	(256u * 1024u)

static void shm_name(const struct cosched_ep *ep, uint32_t rank, char *buf,
		     size_t len)
{
	snprintf(buf, len, "/cosched-%u-%llu-%u", (unsigned int)geteuid(),
		 (unsigned long long)ep->job, rank);
}

static bool owner_dead(const struct cosched_ring *h)
{
	return kill((pid_t)h->endpoint_id, 0) && errno == ESRCH;
}

bool shm_ring_gone(const struct cosched_ep *ep, const struct ep_ring *r)
{
	/* With the module, endpoint_id is no pid: its flags say it all. */
	return !ep_has_module(ep) && owner_dead(r->v.hdr);
}

/*
 * Whether the owner has finished making its ring: between its shm_open()
 * and its last header store the file is short (touching it would raise
 * SIGBUS) or the header is still zero.
 */
static bool ring_ready(int fd)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct cosched_ring *h;
	struct stat st;
	bool ready;

	if (fstat(fd, &st) || (size_t)st.st_size < page + SHM_RING_DATA)
		return false;
	h = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return false;
	ready = __atomic_load_n(&h->data_offset, __ATOMIC_ACQUIRE) != 0;
	munmap(h, page);
	return ready;
}

/*
 * A ring left by a process that died: mark it lost, so that senders that
 * still map it get -EPIPE instead of writing into it, and take the name.
 */
static int take_stale(const char *name)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct cosched_ring *h;
	int fd = shm_open(name, O_RDWR, 0);
	int err = -EEXIST;

	if (fd < 0)
		return -errno;
	/* One being made right now is not stale: its maker is alive. */
	h = !ring_ready(fd) ? MAP_FAILED :
	    mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (h == MAP_FAILED)
		return -EEXIST;
	if ((h->flags & COSCHED_RING_CLOSED) || owner_dead(h)) {
		__atomic_fetch_or(&h->flags, COSCHED_RING_LOST,
				  __ATOMIC_RELEASE);
		err = shm_unlink(name) ? -errno : 0;
	}
	munmap(h, page);
	return err;
}

static int shm_ring_create(struct cosched_ep *ep)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct cosched_ring *h;
	char name[64];
	int fd, err, tries;

	shm_name(ep, ep->rank, name, sizeof(name));
	for (tries = 0;; tries++) {
		fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
		if (fd >= 0 || errno != EEXIST || tries)
			break;
		err = take_stale(name);
		if (err)
			return err;
	}
	if (fd < 0)
		return -errno;
	err = ftruncate(fd, (off_t)(page + SHM_RING_DATA)) ? -errno : 0;
	h = err ? MAP_FAILED : mmap(NULL, page, PROT_READ | PROT_WRITE,
				    MAP_SHARED, fd, 0);
	if (!err && h == MAP_FAILED)
		err = -errno;
	if (!err) {
		/*
		 * What the module would have written.  data_offset goes last,
		 * with release: a peer that sees it sees the rest.
		 */
		h->data_size = SHM_RING_DATA;
		h->rank = ep->rank;
		h->endpoint_id = (uint64_t)getpid();
		__atomic_store_n(&h->data_offset, (uint32_t)page,
				 __ATOMIC_RELEASE);
		munmap(h, page);
		err = ep_ring_map(fd, 0, &ep->own);
	}
	close(fd);
	if (err)
		shm_unlink(name);
	return err;
}

int shm_ep_create(struct cosched_ep *ep)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	ep->ctrl = aligned_alloc(page, page);
	if (!ep->ctrl)
		return -ENOMEM;
	memset(ep->ctrl, 0, page);
	ep->ctrl->policy = COSCHED_POLICY_LOCAL;
	ep->ctrl->wait_mode = COSCHED_WAIT_BUSY;
	ep->ctrl->on_cpu = 1;
	ep->ctrl_len = page;
	return shm_ring_create(ep);
}

int shm_ring_map(struct cosched_ep *ep, uint32_t rank, struct ep_ring *r)
{
	char name[64];
	int fd, err;

	shm_name(ep, rank, name, sizeof(name));
	fd = shm_open(name, O_RDWR, 0);
	if (fd < 0)
		return -errno;
	/* Half made: to the sender, not there yet. */
	err = ring_ready(fd) ? ep_ring_map(fd, 0, r) : -ENOENT;
	close(fd);
	return err;
}

void shm_ep_destroy(struct cosched_ep *ep)
{
	char name[64];

	if (ep->own.map) {
		__atomic_fetch_or(&ep->own.v.hdr->flags, COSCHED_RING_CLOSED,
				  __ATOMIC_RELEASE);
		ep_ring_unmap(&ep->own);
		shm_name(ep, ep->rank, name, sizeof(name));
		shm_unlink(name);
	}
	free(ep->ctrl);
	ep->ctrl = NULL;
}

void shm_find_lost(struct cosched_ep *ep)
{
	struct ep_ring *r;
	uint32_t rank;
	int err;

	for (rank = 0; rank < ep->size; rank++) {
		if (rank == ep->rank)
			continue;
		r = ep_peer(ep, rank, &err);
		if (!r || r->lost ||
		    (r->v.hdr->flags & COSCHED_RING_CLOSED) ||
		    !owner_dead(r->v.hdr))
			continue;
		/* Every process counts each loss once, for itself. */
		r->lost = true;
		__atomic_fetch_add(&ep->ctrl->peers_lost, 1, __ATOMIC_RELAXED);
	}
}
