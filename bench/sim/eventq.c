// SPDX-License-Identifier: GPL-2.0
/*
 * The event queue: a binary min-heap on (time, insertion number), so that
 * events at the same time come out in the order they were pushed and a
 * run is reproducible.  Cancelling is the caller's: events carry a
 * generation that the handler compares with its target's.
 */
#include <stdlib.h>

#include "sim.h"

void evq_init(struct eventq *q)
{
	q->n = 0;
	q->cap = 1024;
	q->seq = 0;
	q->h = malloc(q->cap * sizeof(*q->h));
	if (!q->h)
		abort();
}

void evq_free(struct eventq *q)
{
	free(q->h);
	q->h = NULL;
	q->n = q->cap = 0;
}

static int before(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void evq_push(struct eventq *q, sim_ns t, unsigned int kind, int a, int b,
	      uint32_t gen)
{
	struct event e = { .t = t, .seq = q->seq++, .kind = kind, .gen = gen,
			   .a = a, .b = b };
	size_t i;

	if (q->n == q->cap) {
		q->cap *= 2;
		q->h = realloc(q->h, q->cap * sizeof(*q->h));
		if (!q->h)
			abort();
	}
	i = q->n++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (!before(&e, &q->h[parent]))
			break;
		q->h[i] = q->h[parent];
		i = parent;
	}
	q->h[i] = e;
}

int evq_pop(struct eventq *q, struct event *out)
{
	struct event last;
	size_t i = 0;

	if (!q->n)
		return 0;
	*out = q->h[0];
	last = q->h[--q->n];
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < q->n && before(&q->h[l], &last))
			m = l;
		if (l + 1 < q->n && before(&q->h[l + 1], m == i ? &last : &q->h[l]))
			m = l + 1;
		if (m == i)
			break;
		q->h[i] = q->h[m];
		i = m;
	}
	if (q->n)
		q->h[i] = last;
	return 1;
}
