// SPDX-License-Identifier: GPL-2.0
/*
 * The gang baseline (bench/workloads/gang.c): whole jobs take turns,
 * SIGCONT for a slice while the others stay SIGSTOPped, on every node at
 * once (one gang process signals all ranks).  A stop and the next
 * continue are gang_switch_us apart: gang walks /proc for each job's
 * processes and signals them one by one.  A job that ends hands over at
 * once (gang sees SIGCHLD).
 */
#include "sim.h"

static void set_stopped(struct world *w, int job, int stopped)
{
	int i;

	for (i = 0; i < w->ntasks; i++) {
		struct task *t = &w->tasks[i];

		if (t->job == job && t->stopped != stopped) {
			t->stopped = stopped;
			task_sync_rq(w, t);
		}
	}
}

static int next_job(struct world *w, int from)
{
	int k;

	for (k = 1; k <= w->njobs; k++) {
		int j = (from + k) % w->njobs;

		if (!w->jobs[j].competitor && w->jobs[j].finish < 0)
			return j;
	}
	return -1;
}

void gang_init(struct world *w)
{
	int j;

	w->gang_cur = next_job(w, w->njobs - 1);
	for (j = 0; j < w->njobs; j++)
		if (j != w->gang_cur && !w->jobs[j].competitor)
			set_stopped(w, j, 1);
	evq_push(&w->q, MS(w->p->gang_slice_ms), EV_GANG, -1, 0, w->gang_gen);
}

/* kind EV_GANG: the slice is over; EV_GANG_CONT: continue job b; -1: a job ended. */
void gang_event(struct world *w, int kind)
{
	int next;

	if (kind == EV_GANG_CONT) {
		next = w->gang_cur;
		set_stopped(w, next, 0);
		evq_push(&w->q, w->now + MS(w->p->gang_slice_ms), EV_GANG, -1,
			 0, ++w->gang_gen);
		return;
	}
	if (kind < 0 && w->jobs[w->gang_cur].finish < 0)
		return;		/* not the running job: nothing to hand over */
	w->gang_gen++;		/* forget the pending slice end */
	next = next_job(w, w->gang_cur);
	if (next < 0)
		return;
	if (next == w->gang_cur && w->jobs[next].finish < 0)
		return;		/* alone: runs to its end */
	if (w->jobs[w->gang_cur].finish < 0)
		set_stopped(w, w->gang_cur, 1);
	w->gang_cur = next;
	evq_push(&w->q, w->now + US(w->p->gang_switch_us), EV_GANG_CONT, -1,
		 0, w->gang_gen);
}
