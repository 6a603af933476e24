// SPDX-License-Identifier: GPL-2.0
/*
 * Fairness metrics (Documentation/results/sim/fair-dcs): a job's share
 * of the CPU while every job competes (until the first MPI job ends)
 * over its fair share, its ranks over all ranks of a node, as the
 * thesis's Figure 6.4 probes; and an MPI job's completion over its
 * completion under ideal processor sharing of the mix's standalone
 * times.  The background task is noise, not a job: left out.
 */
#include "sim.h"

/* The first MPI job has just ended: each job's CPU time so far. */
void fair_snapshot(struct world *w)
{
	int i;

	if (w->first_end)
		return;
	w->first_end = w->now;
	for (i = 0; i < w->ntasks; i++)
		w->cpu_first[w->tasks[i].job] += w->tasks[i].cpu_ns / 1e9;
	for (i = 0; i < w->nodes; i++) {	/* not accounted yet */
		struct cpu *c = &w->cpus[i];

		if (c->curr && w->now > c->last)
			w->cpu_first[c->curr->job] += (w->now - c->last) / 1e9;
	}
}

void fair_finish(struct world *w, struct result *r)
{
	double end = (w->first_end ? w->first_end : w->now) / 1e9;
	int j, all = 0;

	if (!w->first_end)
		fair_snapshot(w);
	for (j = 0; j < w->njobs; j++)
		if (w->jobs[j].spec.kind != WL_BG)
			all += w->jobs[j].ranks;
	for (j = 0, r->nfair = 0; j < w->njobs; j++) {
		const struct job *jb = &w->jobs[j];
		double fair = (double)jb->ranks / all;

		if (jb->spec.kind == WL_BG)
			continue;
		r->fair_mpi[r->nfair] = !jb->competitor;
		r->share_of_fair[r->nfair++] = end > 0 ?
			w->cpu_first[j] / (end * w->nodes) / fair : 0;
	}
}

/* After the standalone runs: completion over processor sharing's. */
void fair_vs_ps(const struct mix *m, struct result *r)
{
	int j, k, n = 0, hogs = 0;

	for (j = 0; j < m->njobs; j++)
		hogs += m->jobs[j].kind == WL_HOG;
	for (j = 0; j < r->nfair; j++) {
		double ps = hogs * r->alone_s[n];

		if (!r->fair_mpi[j]) {
			r->vs_fair[j] = 0;
			continue;
		}
		for (k = 0; k < r->njobs; k++)
			ps += r->alone_s[k] < r->alone_s[n] ? r->alone_s[k] :
				r->alone_s[n];
		r->vs_fair[j] = ps > 0 ? r->job_s[n] / ps : 0;
		n++;
	}
}
