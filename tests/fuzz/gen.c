// SPDX-License-Identifier: GPL-2.0
/*
 * Random numbers and argument generators.  Everything a thread does is
 * drawn from its own generator, so a seed replays the same sequence.
 */
#define _GNU_SOURCE
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* splitmix64: small, fast, and every seed is a good one. */
u64 rng_next(struct rng *r)
{
	u64 z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

u64 rng_below(struct rng *r, u64 n)
{
	return n ? rng_next(r) % n : 0;
}

bool rng_chance(struct rng *r, u32 percent)
{
	return rng_below(r, 100) < percent;
}

u64 seed_mix(u64 base, u64 a, u64 b)
{
	struct rng r = { base ^ (a * 0x100000001b3ull) ^ (b << 40) };

	rng_next(&r);
	return rng_next(&r);
}

static const u64 edges[] = {
	0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x100, 0xfff, 0x1000, 0xffff, 0x10000,
	0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
	0x7fffffffffffffffull, 0x8000000000000000ull, 0xfffffffffffffffeull,
	0xffffffffffffffffull, COSCHED_MAX_RANKS - 1, COSCHED_MAX_RANKS,
	COSCHED_MAX_DOORBELL, COSCHED_MAX_DOORBELL + 1,
};

u64 gen_u64(struct rng *r)
{
	switch (rng_below(r, 4)) {
	case 0:
		return edges[rng_below(r, sizeof(edges) / sizeof(edges[0]))];
	case 1:
		return rng_below(r, 16);
	case 2:
		return edges[rng_below(r, sizeof(edges) / sizeof(edges[0]))] +
		       rng_below(r, 3) - 1;
	default:
		return rng_next(r);
	}
}

u32 gen_u32(struct rng *r)
{
	return (u32)gen_u64(r);
}

/* Jobs 1-6 are shared by all processes, so the uids collide in them. */
u64 gen_job(struct rng *r)
{
	if (rng_chance(r, 85))
		return 1 + rng_below(r, 6);
	return gen_u64(r);
}

u32 gen_rank(struct rng *r)
{
	if (rng_chance(r, 85))
		return (u32)rng_below(r, 12);
	return gen_u32(r);
}

u64 gen_timeout(struct rng *r)
{
	switch (rng_below(r, 10)) {
	case 0:
		return 0;		/* no timeout: intr_arm() ends it */
	case 1:
		return gen_u64(r);	/* huge, above INT64_MAX too */
	case 2:
		return 1;
	default:
		return rng_below(r, 2000000);
	}
}

u32 gen_size(struct rng *r, u32 real)
{
	switch (rng_below(r, 10)) {
	case 0:
		return 0;
	case 1:
		return (u32)rng_below(r, real + 1);
	case 2:
		return real ? real - 1 : 1;
	case 3:
		return real + 8 * (u32)(1 + rng_below(r, 4));	/* <= 16383 */
	case 4:
		return (u32)rng_below(r, 1u << 14);	/* _IOC_SIZEBITS */
	case 5:
		return (1u << 14) - 1;
	default:
		return real;
	}
}

/*
 * An inaccessible page, and a page that ends where it begins.  The guard
 * stays mapped (PROT_NONE): an unmapped hole would be reused by the next
 * mapping (a thread's stack and TLS), and the kernel would write ioctl
 * results there.
 */
static void *guard, *edge_page;

void gen_init(void)
{
	char *p = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	mprotect(p + page_size, page_size, PROT_NONE);
	guard = p + page_size;
	edge_page = p;
	memset(p, 0, page_size);
}

void *gen_ptr(struct rng *r, void *buf, u32 size)
{
	switch (rng_below(r, 16)) {
	case 0:
		return NULL;
	case 1:
		return guard;
	case 2:
		/*
		 * The struct's last bytes fall in the PROT_NONE page; its
		 * start stays in edge_page, or the kernel would write over
		 * whatever lies below it.
		 */
		return (char *)edge_page + page_size - 1 -
		       rng_below(r, size && size < page_size ? size : page_size - 1);
	case 3:
		return (void *)0xffff888000000000ull;	/* kernel address */
	case 4:
		return (void *)(uintptr_t)rng_next(r);
	case 5:
		return (char *)buf + 1;			/* misaligned */
	default:
		return buf;
	}
}

size_t gen_maplen(struct rng *r, size_t ring)
{
	switch (rng_below(r, 12)) {
	case 0:
		return 0;
	case 1:
		return 1 + rng_below(r, page_size);
	case 2:
		return 2 * page_size;
	case 3:
		return ring;
	case 4:
		return ring + page_size;
	case 5:
		return ring - page_size;
	case 6:
		return (size_t)1 << (12 + rng_below(r, 20));
	case 7:
		return ring * 2;
	default:
		return rng_chance(r, 50) ? page_size : ring;
	}
}

int gen_prot(struct rng *r)
{
	static const int prots[] = {
		PROT_READ | PROT_WRITE, PROT_READ, PROT_WRITE, PROT_NONE,
		PROT_READ | PROT_EXEC, PROT_READ | PROT_WRITE | PROT_EXEC,
		PROT_EXEC,
	};

	if (rng_chance(r, 60))
		return PROT_READ | PROT_WRITE;
	return prots[rng_below(r, sizeof(prots) / sizeof(prots[0]))];
}

int gen_mapflags(struct rng *r)
{
	switch (rng_below(r, 12)) {
	case 0:
		return MAP_PRIVATE;
	case 1:
		return MAP_SHARED | MAP_POPULATE;
	case 2:
		return MAP_SHARED | MAP_LOCKED;
	case 3:
		return MAP_SHARED_VALIDATE | MAP_SYNC;
	case 4:
		return MAP_PRIVATE | MAP_POPULATE;
	case 5:
		return MAP_SHARED | MAP_NORESERVE;
	default:
		return MAP_SHARED;
	}
}

/*
 * Some tunables are valid over a range that would take the guest down
 * (ring_kb: every endpoint gets a ring that big): valid values stay
 * below these caps, invalid ones go anywhere.
 */
static const struct {
	const char *name;
	u64 cap;
} caps[] = {
	{ "ring_kb", 1024 },
	{ "boost_us", 20000 },
};

static u64 cap_of(const char *name)
{
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		if (!strcmp(caps[i].name, name))
			return caps[i].cap;
	return ~0ull;
}

/* A word of a "a [b] c" list, brackets stripped. */
static bool pick_word(struct rng *r, const char *list, char *out, size_t size)
{
	const char *p = list;
	int n = 0, k;

	for (const char *q = list; *q; q++)
		if ((q == list || q[-1] == ' ') && *q != ' ')
			n++;
	if (!n)
		return false;
	k = (int)rng_below(r, n);
	for (;;) {
		while (*p == ' ')
			p++;
		if (!k--)
			break;
		while (*p && *p != ' ')
			p++;
	}
	if (*p == '[')
		p++;
	size_t len = strcspn(p, " ]\n");

	if (len >= size)
		len = size - 1;
	memcpy(out, p, len);
	out[len] = 0;
	return true;
}

void gen_sysfs_value(struct rng *r, const char *name, const char *cur,
		     char *out, size_t size)
{
	static const char *const junk[] = {
		"", "\n", " ", "-1", "+5", "0x10", "1e3", "12abc", "4294967296",
		"18446744073709551616", "99999999999999999999999", "\n\n",
		"local\nlocal", "[dcs]", "dcs ", " dcs", "DCS", "fifo\n\n",
	};
	bool named = strchr(cur, '[') != NULL;
	u64 v, cap = cap_of(name);

	switch (rng_below(r, 10)) {
	case 0:
		snprintf(out, size, "%s", junk[rng_below(r, sizeof(junk) / sizeof(junk[0]))]);
		return;
	case 1:
		snprintf(out, size, "%llu", (unsigned long long)gen_u64(r));
		if (!named && strtoull(out, NULL, 10) > cap)
			snprintf(out, size, "-%llu", (unsigned long long)gen_u64(r));
		return;
	case 2:	/* a long line of digits */
		v = 1 + rng_below(r, size - 1);
		memset(out, '7', v);
		out[v] = 0;
		return;
	default:
		break;
	}
	if (named) {
		if (!pick_word(r, cur, out, size))
			out[0] = 0;
		if (rng_chance(r, 50))
			strncat(out, "\n", size - strlen(out) - 1);
		return;
	}
	v = strtoull(cur, NULL, 10);
	switch (rng_below(r, 4)) {
	case 0:
		v = rng_below(r, 2 * v + 16);
		break;
	case 1:
		v = rng_below(r, 11);
		break;
	case 2:
		v = (u64)1 << rng_below(r, 20);
		break;
	default:
		break;
	}
	if (v > cap)
		v = cap;
	snprintf(out, size, rng_chance(r, 50) ? "%llu\n" : "%llu",
		 (unsigned long long)v);
}
