// SPDX-License-Identifier: GPL-2.0
/*
 * Mappings: the control page (offset 0) and receive rings (offset
 * COSCHED_RING_OFFSET(rank)) of valid, invalid and absent ranks, with
 * every protection, private mappings and wrong lengths; reads and forged
 * writes of the mapped fields; munmap in pieces, mprotect, madvise,
 * mremap.  Every access is guarded: a fault is a result, not a crash.
 */
#define _GNU_SOURCE
#include "ops.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

static int map_add(struct ctx *c, void *addr, size_t len, int prot, int kind)
{
	int i;

	for (i = 0; i < NMAPS; i++)
		if (!c->maps[i].addr)
			break;
	if (i == NMAPS) {	/* full: drop a random one */
		i = (int)rng_below(&c->r, NMAPS);
		munmap(c->maps[i].addr, c->maps[i].len);
	}
	c->maps[i] = (struct map){ addr, len, prot, kind };
	return i;
}

static struct map *map_pick(struct ctx *c)
{
	struct map *m = &c->maps[rng_below(&c->r, NMAPS)];

	return m->addr ? m : NULL;
}

static int do_mmap(struct ctx *c, u64 off, size_t len, int kind, u64 *a, u64 *b)
{
	int fd = slot_fd(c), prot = gen_prot(&c->r), flags = gen_mapflags(&c->r);
	void *p;

	*a = off;
	*b = (u64)len << 16 | (u64)prot << 8 | (u64)(flags & 0xff);
	if (!len)
		len = 0;
	p = mmap(NULL, len, prot, flags, fd, (off_t)off);
	if (p == MAP_FAILED)
		return errno;
	map_add(c, p, len, prot, kind);
	return 0;
}

OP(mmap_ctrl)
{
	size_t len = rng_chance(&c->r, 70) ? page_size : gen_maplen(&c->r, ring_size);
	u64 off = 0;

	if (rng_chance(&c->r, 10))
		off = page_size * (1 + rng_below(&c->r, 4));
	return do_mmap(c, off, len, MAP_CTRL, a, b);
}

OP(mmap_ring)
{
	struct pub_ep *p = &sh->pub[rng_below(&c->r, MAX_PUB)];
	u32 rank = __atomic_load_n(&p->valid, __ATOMIC_ACQUIRE) &&
		   rng_chance(&c->r, 70) ? p->rank : gen_rank(&c->r);
	u64 off = COSCHED_RING_OFFSET(rank);
	size_t len = rng_chance(&c->r, 50) ? page_size : gen_maplen(&c->r, ring_size);

	switch (rng_below(&c->r, 12)) {
	case 0:
		off += page_size * (1 + rng_below(&c->r, 8));	/* inside a ring */
		break;
	case 1:
		off = COSCHED_RING_OFFSET(COSCHED_MAX_RANKS + rng_below(&c->r, 3));
		break;
	case 2:
		off = (u64)rng_below(&c->r, 1ull << 40) * page_size;
		break;
	case 3:
		off = COSCHED_RING_OFFSET(0xffffffffull) - page_size;
		break;
	default:
		break;
	}
	return do_mmap(c, off, len, MAP_RING, a, b);
}

OP(munmap)
{
	struct map *m = map_pick(c);
	char *base;
	size_t pages, k;

	if (!m)
		return ENOENT;
	base = m->addr;
	pages = (m->len + page_size - 1) / page_size;
	*a = (u64)(uintptr_t)base;
	*b = m->len;
	if (pages < 2 || rng_chance(&c->r, 60)) {
		m->addr = NULL;
		return munmap(base, m->len) ? errno : 0;
	}
	/* Cut one page off the front or the back: the VMA splits. */
	k = rng_chance(&c->r, 50) ? 0 : pages - 1;
	if (munmap(base + k * page_size, page_size))
		return errno;
	if (!k)
		m->addr = base + page_size;
	m->len = (pages - 1) * page_size;
	return 0;
}

/* A random aligned offset, mostly in the first (header) page. */
static size_t field_off(struct ctx *c, struct map *m, size_t width)
{
	size_t span = rng_chance(&c->r, 80) && m->len > page_size ?
		      page_size : m->len;

	return rng_below(&c->r, span / width) * width;
}

OP(mem_read)
{
	struct map *m = map_pick(c);
	volatile u64 *p;
	u64 v = 0;
	int r = 0;

	if (!m)
		return ENOENT;
	p = (volatile u64 *)((char *)m->addr + field_off(c, m, 8));
	*a = (u64)((char *)p - (char *)m->addr);
	GUARDED(r, v = *p);
	*b = v;
	return r;
}

OP(mem_write)
{
	struct map *m = map_pick(c);
	volatile u64 *p;
	u64 v = gen_u64(&c->r);
	int r = 0;

	if (!m)
		return ENOENT;
	p = (volatile u64 *)((char *)m->addr + field_off(c, m, 8));
	*a = (u64)((char *)p - (char *)m->addr);
	*b = v;
	if (rng_chance(&c->r, 30)) {
		/* Forge the owner's or senders' fields with near-real values. */
		volatile u64 *arr = m->addr;

		GUARDED(r, v = arr[0] + rng_below(&c->r, 5) - 2; *p = v);
	} else {
		GUARDED(r, *p = v);
	}
	return r;
}

OP(mprotect)
{
	struct map *m = map_pick(c);
	int prot = gen_prot(&c->r);

	if (!m)
		return ENOENT;
	*a = (u64)m->kind;
	*b = (u64)prot;
	if (mprotect(m->addr, m->len, prot))
		return errno;
	m->prot = prot;
	return 0;
}

OP(madvise)
{
	/* Never MADV_HWPOISON or MADV_SOFT_OFFLINE: they break the guest. */
	static const int adv[] = {
		MADV_DONTNEED, MADV_WILLNEED, MADV_DONTFORK, MADV_DOFORK,
		MADV_WIPEONFORK, MADV_KEEPONFORK, MADV_COLD, MADV_PAGEOUT,
		MADV_REMOVE, MADV_FREE, MADV_MERGEABLE, MADV_HUGEPAGE,
		MADV_DONTDUMP, 22 /* POPULATE_READ */, 23 /* POPULATE_WRITE */,
		MADV_SEQUENTIAL, MADV_RANDOM,
	};
	struct map *m = map_pick(c);
	int advice = adv[rng_below(&c->r, sizeof(adv) / sizeof(adv[0]))];

	if (!m)
		return ENOENT;
	*a = (u64)m->kind;
	*b = (u64)advice;
	return madvise(m->addr, m->len, advice) ? errno : 0;
}

OP(mremap)
{
	struct map *m = map_pick(c);
	size_t len;
	void *p;

	if (!m)
		return ENOENT;
	switch (rng_below(&c->r, 3)) {
	case 0:
		len = m->len + page_size;
		break;
	case 1:
		len = m->len > page_size ? m->len - page_size : m->len;
		break;
	default:
		len = m->len;	/* a move */
		break;
	}
	*a = (u64)m->kind;
	*b = len;
	p = mremap(m->addr, m->len, len, MREMAP_MAYMOVE);
	if (p == MAP_FAILED)
		return errno;
	m->addr = p;
	m->len = len;
	return 0;
}
