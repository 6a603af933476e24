// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler model: two CPU hogs share a CPU evenly on both fair
 * classes; a FIFO boost preempts a fair task the moment it starts; a
 * blocked waiter runs again exactly the network latency plus the wake-up
 * cost after its peer's send ends; under autogroup a 2-rank job beside a
 * hog on each CPU gets a third of each; grain's step is one ring
 * exchange.
 */
#include <math.h>
#include <string.h>

#include "tap.h"

static void cfg_init(struct run_cfg *c, struct mix *m, const char *pol,
		     const char *kernel, int nodes)
{
	memset(c, 0, sizeof(*c));
	c->mix = m;
	c->pol = policy_find(pol);
	c->kernel = kernel;
	c->nodes = nodes;
	c->cpus_per_host = 2;
	c->seconds = 1;
	c->limit_s = 1000;
	c->seed = 3;
	c->only_job = -1;
}

/* Two hogs on one CPU for 10 s: each within 1% of half the CPU. */
static void hogs(const char *kernel)
{
	struct params p;
	struct mix m;
	struct run_cfg c;
	struct world w;
	double a, b;

	tap_params(&p, kernel);
	tap_mix(&m, "hogs", 2, "hog");
	cfg_init(&c, &m, "busy-poll", kernel, 1);
	sim_init(&w, &p, &c);
	w.mpi_left = 1;		/* hogs alone would end the run at once */
	w.limit = SEC(10);
	while (sim_step(&w))
		;
	a = w.tasks[0].cpu_ns / 1e9;
	b = w.tasks[1].cpu_ns / 1e9;
	ok(a + b > 9.99 && a / (a + b) > 0.495 && a / (a + b) < 0.505,
	   "%s: two hogs on one CPU share it 50/50 within 1%% (%.3f s / %.3f s)",
	   kernel, a, b);
	sim_finish(&w, &(struct result){ 0 });
}

/* A boost request on the hog that is not running: it runs at boost start. */
static void fifo_preempts(const char *kernel)
{
	struct params p;
	struct mix m;
	struct run_cfg c;
	struct world w;
	struct task *t;
	sim_ns start;

	tap_params(&p, kernel);
	/* long slices: no fair reschedule can coincide with the boost */
	p.eevdf_slice_us = 50000;
	p.cfs_latency_us = 100000;
	p.cfs_min_gran_us = 50000;
	tap_mix(&m, "hogs", 2, "hog");
	cfg_init(&c, &m, "dcs", kernel, 1);
	sim_init(&w, &p, &c);
	w.mpi_left = 1;
	w.limit = SEC(2);
	while (w.now < MS(1010) && sim_step(&w))
		;
	t = w.cpus[0].curr == &w.tasks[0] ? &w.tasks[1] : &w.tasks[0];
	ok(w.cpus[0].curr && w.cpus[0].curr != t && t->on_rq,
	   "%s: one hog runs, the other waits", kernel);
	boost_request(&w, t);
	start = w.now + US(p.boost_latency_us);
	while (w.q.n && w.q.h[0].t <= start && sim_step(&w))
		;
	ok(w.now == start && w.cpus[0].curr == t && t->fifo,
	   "%s: the boosted hog is on the CPU at the boost's start (%.1f us after the request)",
	   kernel, p.boost_latency_us);
	while (w.q.n && w.q.h[0].t < start + US(p.boost_us) - US(1) &&
	       sim_step(&w))
		;
	ok(w.cpus[0].curr == t, "%s: and keeps it for boost_us (%.0f us)",
	   kernel, p.boost_us);
	sim_finish(&w, &(struct result){ 0 });
}

/*
 * barrier -n 1 -d 5000 on two nodes under sb with spin_us 0: in the late
 * barrier rank 0 blocks at once; rank 1 computes 5 ms and sends.  Rank 0
 * must be runnable net_us + wake_us after that send's CPU work ends.
 */
static void block_wake(const char *kernel)
{
	struct params p;
	struct mix m;
	struct run_cfg c;
	struct world w;
	struct task *r0, *r1;
	sim_ns sent = -1, woke = -1;
	int was_blocked = 0;

	tap_params(&p, kernel);
	p.spin_us = 0;
	p.jitter = 0;
	tap_mix(&m, "late", 1, "barrier -n 1 -d 5000");
	cfg_init(&c, &m, "sb", kernel, 2);
	sim_init(&w, &p, &c);
	r0 = &w.tasks[0];
	r1 = &w.tasks[1];
	while (sim_step(&w)) {
		if (r0->state == T_BLOCKED && r0->pc >= 3)
			was_blocked = 1;
		/* rank 1's send of the second barrier ended: message in flight */
		if (sent < 0 && r1->pc >= 5 && r1->send_to < 0 && was_blocked)
			sent = w.now;
		if (was_blocked && woke < 0 && r0->state == T_RUN)
			woke = w.now;
	}
	ok(was_blocked && sent > 0 && woke - sent == US(p.net_us) + US(p.wake_us),
	   "%s: a blocked waiter runs net_us + wake_us after the send (%.1f us, expected %.1f)",
	   kernel, (woke - sent) / 1e3, p.net_us + p.wake_us);
	sim_finish(&w, &(struct result){ 0 });
}

/*
 * A 2-rank busy-polling job (always runnable) beside a hog on each of
 * two CPUs for 5 s: half of each CPU, or a third under autogroup (the
 * job's session weighs as much as one hog's, spread over two CPUs).
 */
static void autogroup(const char *kernel, int on)
{
	double want = on ? 1.0 / 3 : 0.5, a, b;
	struct params p;
	struct mix m = { .name = "grain-hog", .njobs = 2, .rpn = 1 };
	struct run_cfg c;
	struct world w;

	tap_params(&p, kernel);
	p.autogroup = on;
	if (jobspec_parse(&m.jobs[0], "grain -c 1000") ||
	    jobspec_parse(&m.jobs[1], "hog"))
		exit(1);
	cfg_init(&c, &m, "busy-poll", kernel, 2);
	c.seconds = 100;	/* longer than the run */
	sim_init(&w, &p, &c);
	w.limit = SEC(5);
	while (sim_step(&w))
		;
	a = w.tasks[0].cpu_ns / 5e9;
	b = w.tasks[1].cpu_ns / 5e9;
	ok(fabs(a - want) < 0.02 && fabs(b - want) < 0.02,
	   "%s: autogroup %s: each rank beside a hog gets %.3f of its CPU (%.3f, %.3f)",
	   kernel, on ? "on" : "off", want, a, b);
	sim_finish(&w, &(struct result){ 0 });
}

/*
 * grain -c 100, 2 ranks, 1 s: 10,000 steps, one message per rank each.
 * The two ranks exchange at once, so a step costs its computation and
 * one message's send, flight and receive: 10% over that is left for
 * the polls and switches around it; a model that sent and received one
 * after the other (two messages a step) would take 1.9 s.
 */
static void grain_steps(void)
{
	struct params p;
	struct mix m;
	struct run_cfg c;
	struct result r;
	double exchange_s;

	tap_params(&p, "6.12");
	tap_mix(&m, "grain", 1, "grain -c 100");
	cfg_init(&c, &m, "busy-poll", "6.12", 2);
	sim_run(&p, &c, &r);
	exchange_s = 10000 * (p.send_cpu_us + p.net_us + p.recv_cpu_us) * 1e-6;
	ok(r.ctr.messages == 20000 && r.completion_s >= 1.0 + exchange_s &&
	   r.completion_s < 1.0 + 1.1 * exchange_s,
	   "grain -c 100 for 1 s: 20000 messages (%ld), 1 s of steps and one exchange each (%.3f s, %.3f s of exchanges)",
	   r.ctr.messages, r.completion_s, exchange_s);
}

int main(void)
{
	hogs("6.1");
	hogs("6.12");
	fifo_preempts("6.1");
	fifo_preempts("6.12");
	block_wake("6.1");
	block_wake("6.12");
	autogroup("6.1", 0);
	autogroup("6.12", 0);
	autogroup("6.1", 1);
	autogroup("6.12", 1);
	grain_steps();
	return tap_done();
}
