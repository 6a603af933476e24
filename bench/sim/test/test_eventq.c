// SPDX-License-Identifier: GPL-2.0
/* The event queue: time order, insertion order among equal times, growth. */
#include "tap.h"

int main(void)
{
	struct eventq q;
	struct event e, prev = { 0 };
	struct rng r;
	int i, n = 0, sorted = 1, fifo = 1;

	rng_seed(&r, 7);
	evq_init(&q);
	for (i = 0; i < 100000; i++)	/* few distinct times: many ties */
		evq_push(&q, (sim_ns)(rng_next(&r) % 1000), EV_TICK, i, 0, 0);
	while (evq_pop(&q, &e)) {
		if (n && e.t < prev.t)
			sorted = 0;
		if (n && e.t == prev.t && e.a < prev.a)
			fifo = 0;
		prev = e;
		n++;
	}
	ok(n == 100000, "every pushed event comes out once (%d)", n);
	ok(sorted, "events come out in time order");
	ok(fifo, "events at the same time come out in push order");
	ok(!evq_pop(&q, &e), "an empty queue pops nothing");
	evq_push(&q, 5, EV_CPU, 1, 0, 0);
	evq_push(&q, 3, EV_CPU, 2, 0, 0);
	evq_pop(&q, &e);
	ok(e.t == 3 && e.a == 2, "the earliest of two comes first");
	evq_free(&q);
	return tap_done();
}
