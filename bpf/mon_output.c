// SPDX-License-Identifier: GPL-2.0
/*
 * mon_output.c - one interval's counters as CSV rows (for the bench and
 * plots of CPU share per node over time) or as a live terminal view.
 */
#include "mon.h"

void mon_csv_header(FILE *f)
{
	fprintf(f, "time,job,cpu,cpu_share,switches,on_cpu_ns,blocked_ns,preempted_ns,cosched_degree\n");
	fflush(f);
}

struct job_sum {
	__u64 on, blocked, preempted, switches;
};

static struct job_sum job_sum(const struct mon_snap *d, int j,
			      const struct mon_cpus *cpus)
{
	struct job_sum s = { 0 };
	int k, c;

	for (k = 0; k < cpus->n; k++) {
		c = cpus->id[k];
		s.on += d->on[j][c];
		s.blocked += d->blocked[j][c];
		s.preempted += d->preempted[j][c];
		s.switches += d->switches[j][c];
	}
	return s;
}

/*
 * One row per (job, CPU): the job's share of that CPU (a node, in the
 * emulated cluster), then a row with cpu "all": the job's share of the
 * whole machine.  The degree is the job's, repeated on each of its rows
 * so that any row can be plotted alone.
 */
void mon_csv_rows(FILE *f, double t, const struct mon_snap *d,
		  const struct mon_jobs *jobs, const struct mon_cpus *cpus)
{
	double len = (double)d->t_ns;
	int j, k, c;

	for (j = 0; j < jobs->n; j++) {
		double degree = d->all_on[j] / len;
		struct job_sum s = job_sum(d, j, cpus);

		for (k = 0; k < cpus->n; k++) {
			c = cpus->id[k];
			fprintf(f, "%.3f,%s,%d,%.4f,%llu,%llu,%llu,%llu,%.4f\n",
				t, jobs->job[j].name, c, d->on[j][c] / len,
				d->switches[j][c], d->on[j][c],
				d->blocked[j][c], d->preempted[j][c], degree);
		}
		fprintf(f, "%.3f,%s,all,%.4f,%llu,%llu,%llu,%llu,%.4f\n",
			t, jobs->job[j].name, s.on / (len * cpus->n),
			s.switches, s.on, s.blocked, s.preempted, degree);
	}
	fflush(f);
}

static double pct(__u64 part, __u64 whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

/*
 * Clear and redraw: one line per job.  run/blocked/preempted split the
 * job's thread time (on + off) three ways: "run" includes spinning, which
 * the scheduler cannot tell from work.
 */
void mon_live(FILE *f, double t, const struct mon_snap *d,
	      const struct mon_jobs *jobs, const struct mon_cpus *cpus)
{
	double len = (double)d->t_ns;
	int j, k;

	fprintf(f, "\033[H\033[2J");
	fprintf(f, "cosched-monitor  t=%.1fs  interval %.2fs  %d CPUs   (Ctrl-C to stop)\n\n",
		t, len / 1e9, cpus->n);
	fprintf(f, "%-16s %5s %7s %6s %8s %9s %9s |", "JOB", "RANKS",
		"DEGREE", "RUN%", "BLOCKED%", "PREEMPT%", "SWITCH/s");
	for (k = 0; k < cpus->n; k++)
		fprintf(f, " cpu%-3d", cpus->id[k]);
	fprintf(f, "\n");
	for (j = 0; j < jobs->n; j++) {
		struct job_sum s = job_sum(d, j, cpus);
		__u64 all = s.on + s.blocked + s.preempted;

		fprintf(f, "%-16.16s %5u %7.3f %6.1f %8.1f %9.1f %9.0f |",
			jobs->job[j].name, jobs->job[j].nranks,
			d->all_on[j] / len, pct(s.on, all), pct(s.blocked, all),
			pct(s.preempted, all), s.switches * 1e9 / len);
		for (k = 0; k < cpus->n; k++)
			fprintf(f, " %5.1f%%", 100.0 * d->on[j][cpus->id[k]] / len);
		fprintf(f, "\n");
	}
	fflush(f);
}
