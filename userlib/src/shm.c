// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shm.c - endpoints without the module: the same rings, in POSIX shared
 * memory named after the user, job and rank, and a private control page
 * that says "local, busy wait".  Nothing steers the scheduler, nobody
 * rings, and every wait busy-polls; but the messages flow the same way.
 *
 * The ring's endpoint_id holds the owner's pid, so that a peer that died
 * without closing is seen (kill(pid, 0) fails with ESRCH) and its stale
 * ring is taken over by the next process of that rank.  A ring is made
 * under a private name and linked to its real one only when whole; a
 * ring file that is not the user's own (mode 0600) is never used.
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
/* Where glibc's shm_open() keeps its names. */
#define SHM_DIR		"/dev/shm"

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
 * Whether a ring file can be used: ours alone (another user could have
 * made the name first, to read what we send or to make us fault), whole
 * (a maker that died half-way leaves a short file or a zero header), and
 * the size we make.  0, -EACCES (someone else's or not a ring), -ENOENT
 * (not whole), or mmap()'s error.
 */
static int ring_check(int fd)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct cosched_ring *h;
	struct stat st;
	int err = 0;

	if (fstat(fd, &st))
		return -errno;
	if (st.st_uid != geteuid() || (st.st_mode & 077))
		return -EACCES;
	if ((size_t)st.st_size < page + SHM_RING_DATA)
		return -ENOENT;
	h = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return -errno;
	if (!__atomic_load_n(&h->data_offset, __ATOMIC_ACQUIRE))
		err = -ENOENT;
	else if (h->data_size != SHM_RING_DATA)
		err = -EACCES;
	munmap(h, page);
	return err;
}

/*
 * A ring left by a process that died, or a file its maker never finished:
 * mark it lost, so that senders that still map it get -EPIPE instead of
 * writing into it, and take the name.
 */
static int take_stale(const char *name)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct cosched_ring *h;
	int fd = shm_open(name, O_RDWR, 0);
	int err;

	if (fd < 0)
		return -errno;
	err = ring_check(fd);
	if (err == -ENOENT) {
		close(fd);
		return shm_unlink(name) ? -errno : 0;
	}
	h = err ? MAP_FAILED :
	    mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (err)
		return err;
	if (h == MAP_FAILED)
		return -errno;
	err = -EEXIST;
	if ((h->flags & COSCHED_RING_CLOSED) || owner_dead(h)) {
		__atomic_fetch_or(&h->flags, COSCHED_RING_LOST,
				  __ATOMIC_RELEASE);
		err = shm_unlink(name) ? -errno : 0;
	}
	munmap(h, page);
	return err;
}

/* What the module would have written into a new ring's header. */
static int ring_fill(int fd, const struct cosched_ep *ep)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct cosched_ring *h;

	if (ftruncate(fd, (off_t)(page + SHM_RING_DATA)))
		return -errno;
	h = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		return -errno;
	h->data_size = SHM_RING_DATA;
	h->rank = ep->rank;
	h->endpoint_id = (uint64_t)getpid();
	h->data_offset = (uint32_t)page;
	munmap(h, page);
	return 0;
}

/*
 * Give the whole ring its name: link() into glibc's shm_open() directory
 * either publishes it complete or fails with EEXIST, so no peer ever maps
 * a ring being made.  A stale one under the name is taken over, once.
 */
static int ring_publish(const char *tmp, const char *name)
{
	char from[128], to[128];
	int err, tries;

	snprintf(from, sizeof(from), SHM_DIR "%s", tmp);
	snprintf(to, sizeof(to), SHM_DIR "%s", name);
	for (tries = 0;; tries++) {
		if (!link(from, to))
			return 0;
		if (errno != EEXIST || tries)
			return -errno;
		err = take_stale(name);
		if (err)
			return err;
	}
}

static int shm_ring_create(struct cosched_ep *ep)
{
	static unsigned int made;
	char name[64], tmp[96];
	int fd, err;

	shm_name(ep, ep->rank, name, sizeof(name));
	/* Private until whole: this process's own name, never a peer's. */
	snprintf(tmp, sizeof(tmp), "%s.new-%d-%u", name, (int)getpid(),
		 __atomic_fetch_add(&made, 1, __ATOMIC_RELAXED));
	shm_unlink(tmp);	/* left by a dead process that had our pid */
	fd = shm_open(tmp, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return -errno;
	err = ring_fill(fd, ep);
	if (!err)
		err = ring_publish(tmp, name);
	shm_unlink(tmp);
	if (!err) {
		err = ep_ring_map(fd, 0, &ep->own);
		if (err)
			shm_unlink(name);
	}
	close(fd);
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
	err = ring_check(fd);
	if (!err)
		err = ep_ring_map(fd, 0, r);
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

void shm_ep_forget(struct cosched_ep *ep)
{
	ep_ring_unmap(&ep->own);
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
