// SPDX-License-Identifier: GPL-2.0
/*
 * ring: the receive rings the module allocates for every endpoint and
 * maps for the processes of the endpoint's job.
 *
 * Checks the header the kernel fills, every rejected mapping with its
 * errno, that two endpoints of one job share a ring's memory, that the
 * periodic examiner sees a message left in a ring with no doorbell (the
 * thesis's PB inspecting the NIC's queues), and that a mapping keeps a
 * ring alive after its endpoint is gone, and the module loaded.
 */
#define _GNU_SOURCE
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define JOB_A	0x41a9ull
#define JOB_B	0x41b9ull

static size_t page;

/* mmap() of rank's ring through fd: the mapping, or NULL with errno. */
static void *ring_map(int fd, u32 rank, size_t len, int prot, int flags,
		      off_t extra)
{
	void *p = mmap(NULL, len, prot, flags, fd,
		       (off_t)COSCHED_RING_OFFSET(rank) + extra);

	return p == MAP_FAILED ? NULL : p;
}

static int map_errno(int fd, u32 rank, size_t len, int prot, int flags,
		     off_t extra)
{
	void *p = ring_map(fd, rank, len, prot, flags, extra);

	if (!p)
		return errno;
	munmap(p, len);
	return 0;
}

#define RW (PROT_READ | PROT_WRITE)

static u64 boosts(int fd)
{
	struct cosched_stats st;

	if (ep_stats(fd, &st))
		bail("STATS");
	return st.boosts;
}

int main(void)
{
	struct ep a0, a1, a5, b0;
	struct cosched_ring *own, *peer;
	struct cosched_info info;
	size_t size;
	int bare;
	u64 before;

	page = (size_t)sysconf(_SC_PAGESIZE);
	ep_must_open(&a0, JOB_A, 0);
	ep_must_open(&a1, JOB_A, 1);
	ep_must_open(&a5, JOB_A, 5);
	ep_must_open(&b0, JOB_B, 0);
	if (cs_info(a0.fd, &info))
		bail("INFO");
	size = info.ring_size;
	expect_eq(size, page + 256 * 1024, "INFO: default ring is a page + 256 KiB");

	/* The header alone, then the whole ring. */
	own = ring_map(a0.fd, 0, page, PROT_READ, MAP_SHARED, 0);
	ok(own != NULL, "the owner maps its ring's header page");
	if (!own)
		return t_done();
	expect_eq(own->data_size, size - page, "header: data_size");
	expect_eq(own->data_offset, page, "header: data_offset is one page");
	expect_eq(own->rank, 0, "header: rank");
	expect_eq(own->endpoint_id, a0.id, "header: endpoint_id");
	expect_eq(own->tail, 0, "header: empty");
	munmap(own, page);
	own = ring_map(a0.fd, 0, size, RW, MAP_SHARED, 0);
	ok(own != NULL, "the owner maps its whole ring");

	/* Rejected mappings. */
	expect_eq(map_errno(a0.fd, 0, 2 * page, RW, MAP_SHARED, 0), EINVAL,
		  "another length -> EINVAL");
	expect_eq(map_errno(a0.fd, 0, page, RW, MAP_SHARED, page), EINVAL,
		  "an offset inside the ring's window -> EINVAL");
	expect_eq(map_errno(a0.fd, 0, page, RW, MAP_PRIVATE, 0), EINVAL,
		  "MAP_PRIVATE -> EINVAL");
	expect_eq(map_errno(a0.fd, 0, page, RW | PROT_EXEC, MAP_SHARED, 0),
		  EPERM, "PROT_EXEC -> EPERM");
	expect_eq(map_errno(a0.fd, 7, page, RW, MAP_SHARED, 0), ENOENT,
		  "a rank the job does not have -> ENOENT");
	expect_eq(map_errno(b0.fd, 5, page, RW, MAP_SHARED, 0), ENOENT,
		  "job B cannot reach job A's rank 5 -> ENOENT");
	bare = dev_open();
	expect_eq(map_errno(bare, 0, page, RW, MAP_SHARED, 0), ENXIO,
		  "a file without an endpoint -> ENXIO");
	close(bare);

	/* A peer of the same job writes; the owner sees it. */
	peer = ring_map(a1.fd, 0, size, RW, MAP_SHARED, 0);
	ok(peer != NULL, "rank 1 maps rank 0's ring");
	if (!peer || !own)
		return t_done();
	memset((char *)peer + page, 0x5a, 64);
	WR(peer->last_send_ns, now_ns());
	WR(peer->tail, 64);
	expect_eq(RD(own->tail), 64, "the owner sees the peer's tail");
	ok(((unsigned char *)own)[page + 63] == 0x5a,
	   "the owner sees the peer's bytes");

	/* The examiner sees the ring's message: no doorbell was rung. */
	sysfs_set_u64("budget_pct", 100);
	sysfs_set_u64("pb_period_us", 10000);
	before = boosts(a0.fd);
	policy_set("pb");
	ok(poll_until(boosts(a0.fd) > before, 200),
	   "pb boosts an endpoint whose ring holds a message");
	WR(own->head, RD(own->tail));
	sleep_ns(30 * 1000000ull);
	before = boosts(a0.fd);
	sleep_ns(60 * 1000000ull);
	expect_eq(boosts(a0.fd), before, "an empty ring is not pending");
	policy_set("local");

	/* A mapping outlives its endpoint, and pins the module. */
	ep_close(&a5);
	munmap(peer, size);
	peer = ring_map(a1.fd, 5, size, RW, MAP_SHARED, 0);
	ok(peer == NULL && errno == ENOENT, "a destroyed rank's ring is gone");
	peer = ring_map(a1.fd, 1, size, RW, MAP_SHARED, 0);
	ok(peer != NULL, "rank 1 maps its own ring");
	/* A mapping holds its file, so only DESTROY ends these endpoints. */
	expect_neg(ep_destroy(a0.fd), 0, "DESTROY rank 0 while its ring is mapped");
	expect_neg(ep_destroy(a1.fd), 0, "DESTROY rank 1 while its ring is mapped");
	ep_close(&a0);
	ep_close(&a1);
	ep_close(&b0);
	ok(poll_until(sysfs_u64("stats/endpoints") == 0, 1000),
	   "no endpoint left");
	if (peer) {
		WR(peer->tail, 16);
		expect_eq(RD(peer->tail), 16,
			  "the mapping still works after its endpoint is gone");
	}
	expect_neg(module_unload(), EWOULDBLOCK,
		   "rmmod refused while a ring is mapped");
	if (peer)
		munmap(peer, size);
	if (own)
		munmap(own, size);
	expect_neg(module_unload(), 0, "rmmod once the rings are unmapped");
	expect_neg(module_load(NULL), 0, "and the module loads again");
	return t_done();
}
