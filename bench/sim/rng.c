// SPDX-License-Identifier: GPL-2.0
/* splitmix64: small, seedable, good enough for jitter and phases. */
#include "sim.h"

void rng_seed(struct rng *r, uint64_t seed)
{
	r->s = seed * 0x9e3779b97f4a7c15ULL + 1;
}

uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double rng_unit(struct rng *r)
{
	return (rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}
