// SPDX-License-Identifier: GPL-2.0
/*
 * A rank: it runs its workload's operations on its CPU, and when a
 * receive finds nothing it waits the way its column says: busy polling
 * (local, dcs, pb, the baselines), spin then block (*sb), spin then the
 * module's yield (*sy: lower itself to nice 19, boost the newest pending
 * neighbour; dcs-fair: sleep off a debt, then spin again), or Open MPI's
 * yield mode (poll, sched_yield, poll ...).
 */
#include <math.h>
#include <stdlib.h>

#include "sim.h"

static struct srcctr *src_ctr(struct task *t, int src)
{
	int i;

	for (i = 0; i < t->nsrc; i++)
		if (t->src[i].src == src)
			return &t->src[i];
	if (t->nsrc == MAX_SRC) {
		fprintf(stderr, "cosched-sim: more than %d sources\n", MAX_SRC);
		abort();
	}
	t->src[t->nsrc] = (struct srcctr){ .src = src };
	return &t->src[t->nsrc++];
}

int msg_avail(const struct task *t, int src)
{
	int i;

	for (i = 0; i < t->nsrc; i++)
		if (t->src[i].src == src)
			return t->src[i].arrived > t->src[i].consumed;
	return 0;
}

static sim_ns jitter(struct world *w, sim_ns ns)
{
	double j = w->p->jitter;

	if (j <= 0)
		return ns;
	return (sim_ns)(ns * (1 + j * (2 * rng_unit(&w->rng) - 1)));
}

static void emit(struct world *w, struct task *t)
{
	const struct params *p = w->p;
	struct task *dst = &w->tasks[w->jobs[t->job].first + t->send_to];
	sim_ns lat = US(p->net_us) + (sim_ns)(t->send_bytes * p->byte_net_ns);

	if (dst->host != t->host)
		lat += US(p->remote_extra_us);
	evq_push(&w->q, w->now + lat, EV_ARRIVE, dst->id, t->rank, 0);
	w->ctr.messages++;
	t->send_to = -1;
}

/* The end of a receive's wait: the rank sees the message and goes on. */
static void wait_done(struct world *w, struct task *t)
{
	t->waiting = 0;
	if (t->lowered) {
		t->lowered = 0;
		task_set_weight(w, t, t->own_weight);
	}
	/* one more pass of the progress loop (the glue's is dearer) */
	t->work = US(w->pol->glue ? w->p->glue_poll_us : w->p->poll_us);
}

static void block(struct world *w, struct task *t)
{
	boost_stop(w, t, 0);	/* a boost ends when its owner blocks */
	t->state = T_BLOCKED;
	w->ctr.blocks++;
	rq_del(w, t);
}

/* A round of the glue's wait: spin spin_us, then block or yield. */
static void spin_round(struct world *w, struct task *t)
{
	t->wait_seq++;
	t->spun_out = 0;
	evq_push(&w->q, w->now + US(w->p->spin_us), EV_SPIN_END, t->id, 0,
		 t->wait_seq);
}

/*
 * dcs-fair's YIELD (cosched_repay_wait()): a boost still running has
 * done its work; a rank that owes sleeps for a time its debt sets, ended
 * by its message only if it owes little (a message it sleeps through
 * boosts it as under dcs, so it may wake boosted), and checks and spins
 * again when it runs; one that owes nothing goes on spinning.
 */
static void repay_yield(struct world *w, struct task *t)
{
	int through = 0;
	sim_ns due;

	if (t->fifo)
		boost_stop(w, t, 0);
	due = repay_due(w, t, &through);
	if (!due) {
		spin_round(w, t);
		cpu_plan(w, cpu_of(w, t));	/* the boost's end may preempt */
		return;
	}
	w->ctr.blocks++;
	t->state = T_SLEEPING;
	t->slept = 1;
	t->sleep_through = through;
	t->sleep_start = w->now;
	t->sleep_end = w->now + due;
	rq_del(w, t);
	evq_push(&w->q, t->sleep_end, EV_WAKE, t->id, 0, t->wait_seq);
}

static void spun_out(struct world *w, struct task *t)
{
	if (w->pol->repay)
		repay_yield(w, t);
	else if (w->pol->wait == W_SB)
		block(w, t);
	else if (w->pol->wait == W_SY && !t->lowered)
		sy_yield(w, t);
}

static void wait_begin(struct world *w, struct task *t, int src)
{
	t->waiting = 1;
	t->wait_src = src;
	switch (w->pol->wait) {
	case W_SB:
	case W_SY:
		spin_round(w, t);
		break;
	case W_YIELD:
		t->yield_next = w->now + US(w->p->yield_loop_us);
		break;
	default:
		break;
	}
}

static void task_exit(struct world *w, struct task *t)
{
	struct job *j = &w->jobs[t->job];

	boost_stop(w, t, 0);
	t->state = T_DONE;
	rq_del(w, t);
	if (++j->done_ranks == j->ranks) {
		j->finish = w->now;
		if (!j->competitor) {
			fair_snapshot(w);
			w->mpi_left--;
			if (w->pol->gang)
				gang_event(w, -1);
		}
	}
}

void task_advance(struct world *w, struct task *t)
{
	struct cpu *c = cpu_of(w, t);
	const struct params *p = w->p;
	struct op op;

	while (c->curr == t && t->on_rq && !t->work && !t->waiting) {
		if (t->send_to >= 0) {
			emit(w, t);
			continue;
		}
		job_op(&w->jobs[t->job], t->rank, t->pc, &op);
		switch (op.kind) {
		case OP_COMPUTE:
			t->work = jitter(w, op.ns);
			t->pc++;
			break;
		case OP_SEND:
			t->work = US(p->send_cpu_us) +
				  (sim_ns)(op.bytes * p->byte_send_ns);
			t->send_to = op.peer;
			t->send_bytes = op.bytes;
			t->pc++;
			break;
		case OP_RECV:
			if (msg_avail(t, op.peer)) {
				src_ctr(t, op.peer)->consumed++;
				/* the glue publishes what it has seen */
				t->ep_consumed = t->arrived;
				t->work = US(p->recv_cpu_us);
				t->pc++;
			} else {
				wait_begin(w, t, op.peer);
			}
			break;
		case OP_NOP:
			t->pc++;
			break;
		case OP_SLEEP:	/* background: exponential sleeps */
			t->pc++;
			t->state = T_WAKING;
			evq_push(&w->q, w->now + (sim_ns)(-log(1 - rng_unit(&w->rng)) *
							  op.ns),
				 EV_WAKE, t->id, 0, 0);
			rq_del(w, t);
			return;
		default:
			task_exit(w, t);
			return;
		}
	}
	if (c->curr == t)
		cpu_plan(w, c);
}

/* T has just been given its CPU. */
void task_on_cpu(struct world *w, struct task *t)
{
	if (t->slept) {	/* back from a repaying sleep: credited, a new round */
		t->slept = 0;
		repay_slept(w, t, w->now - t->sleep_start);
		spin_round(w, t);
	}
	if (t->waiting) {
		if (msg_avail(t, t->wait_src))
			wait_done(w, t);
		else if (t->spun_out)
			spun_out(w, t);
	}
	if (cpu_of(w, t)->curr == t)
		task_advance(w, t);
	else
		cpu_plan(w, cpu_of(w, t));
}

void task_arrive(struct world *w, struct task *t, int src)
{
	struct cpu *c = cpu_of(w, t);

	src_ctr(t, src)->arrived++;
	t->arrived++;
	t->last_arrival = w->now;
	if (t->state == T_DONE)
		return;
	if (t->waiting && t->wait_src == src) {
		if (c->curr == t && t->on_rq) {
			cpu_account(w, c);
			wait_done(w, t);
			cpu_plan(w, c);
		} else {
			if (t->lowered) {
				t->lowered = 0;
				task_set_weight(w, t, t->own_weight);
			}
			if (t->state == T_BLOCKED ||
			    (t->state == T_SLEEPING && !t->sleep_through)) {
				t->state = T_WAKING;
				w->ctr.wakeups++;
				evq_push(&w->q, w->now + US(w->p->wake_us),
					 EV_WAKE, t->id, 0, 0);
			}
		}
	}
	policy_on_arrival(w, t);
}

void task_spin_end(struct world *w, struct task *t, uint32_t seq)
{
	struct cpu *c = cpu_of(w, t);

	if (!t->waiting || seq != t->wait_seq)
		return;
	t->spun_out = 1;
	if (c->curr == t && t->on_rq) {
		cpu_account(w, c);
		spun_out(w, t);
	}
}

void task_sync_rq(struct world *w, struct task *t)
{
	int want = t->state == T_RUN && !t->stopped;

	if (want && !t->on_rq)
		rq_add(w, t, 1);
	else if (!want && t->on_rq)
		rq_del(w, t);
}

/* GEN: a repaying sleep's wait_seq (a later sleep is not this one's) */
void task_wake(struct world *w, struct task *t, uint32_t gen)
{
	if (t->state != T_WAKING &&
	    (t->state != T_SLEEPING || gen != t->wait_seq))
		return;
	t->state = T_RUN;
	task_sync_rq(w, t);
}
