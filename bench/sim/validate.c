// SPDX-License-Identifier: GPL-2.0
/*
 * --validate: every cell of a measured table (bench/run-mix's runs.csv:
 * one row per run, columns mix, column, status, nodes, seconds,
 * slowdown) against the simulator under the same mix, column, nodes and
 * job size.  The measured value of a cell is the median of its runs'
 * slowdowns, as bench/report's table; the simulated one the median over
 * seeds.  A cell whose simulated slowdown is off by more than TOL
 * (relative) is a miss; the return value is the number of misses.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define MAX_CELLS 256
#define MAX_RUNS 16

struct cell {
	char mix[32], column[32];
	int nodes, n, simulated;
	double seconds, v[MAX_RUNS];
	double meas, sim;	/* medians */
};

static int split(char *line, char **f, int max)
{
	int n = 0;

	line[strcspn(line, "\r\n")] = 0;
	while (n < max) {
		f[n++] = line;
		line = strchr(line, ',');
		if (!line)
			break;
		*line++ = 0;
	}
	return n;
}

static int col(char **hdr, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(hdr[i], name))
			return i;
	fprintf(stderr, "cosched-sim: measured table has no column '%s'\n", name);
	return -1;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), dcmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Ranks (1 = smallest), ties sharing their mean rank. */
static void ranks(const double *v, int n, double *r)
{
	int i, j;

	for (i = 0; i < n; i++) {
		int below = 0, same = 0;

		for (j = 0; j < n; j++) {
			below += v[j] < v[i];
			same += v[j] == v[i];
		}
		r[i] = below + (same + 1) / 2.0;
	}
}

/*
 * Per mix: does the model order the columns as the testbed did
 * (Spearman's rho of the medians), and how far off is each column once
 * both are divided by their own busy-poll cell (what a slowdown common
 * to every column, which the model lacks, cancels out of)?
 */
static void orderings(struct cell *cells, int ncell)
{
	int i, j;

	printf("\nPer mix: Spearman rank correlation of the columns' medians (measured against simulated), and the mean |error| of each column relative to its mix's busy-poll cell:\n\n");
	printf("| mix | columns | rho | mean abs error relative to busy-poll |\n|---|---|---|---|\n");
	for (i = 0; i < ncell; i++) {
		double m[64], s[64], rm[64], rs[64], d2 = 0, bm = 0, bs = 0;
		double rel = 0;
		int n = 0, seen = 0, k;

		for (j = 0; j < i; j++)
			seen |= !strcmp(cells[j].mix, cells[i].mix);
		if (seen)
			continue;
		for (j = i; j < ncell && n < 64; j++) {
			if (strcmp(cells[j].mix, cells[i].mix) || !cells[j].simulated)
				continue;
			m[n] = cells[j].meas;
			s[n] = cells[j].sim;
			if (!strcmp(cells[j].column, "busy-poll")) {
				bm = m[n];
				bs = s[n];
			}
			n++;
		}
		if (n < 3)
			continue;
		ranks(m, n, rm);
		ranks(s, n, rs);
		for (k = 0; k < n; k++) {
			d2 += (rm[k] - rs[k]) * (rm[k] - rs[k]);
			if (bm > 0 && bs > 0)
				rel += fabs((s[k] / bs) / (m[k] / bm) - 1);
		}
		printf("| %s | %d | %+.2f | ", cells[i].mix, n,
		       1 - 6 * d2 / (n * ((double)n * n - 1)));
		if (bm > 0 && bs > 0)
			printf("%.0f%% |\n", 100 * rel / n);
		else
			printf("no busy-poll cell |\n");
	}
}

static int load(const char *csv, struct cell *cells)
{
	char hline[4096], line[8192], *hdr[64], *f[64];
	int nh, ncell = 0, cm, cc, cs, cn, csec, csl;
	FILE *fp = fopen(csv, "r");

	if (!fp) {
		perror(csv);
		return -1;
	}
	if (!fgets(hline, sizeof(hline), fp)) {
		fclose(fp);
		return -1;
	}
	nh = split(hline, hdr, 64);
	cm = col(hdr, nh, "mix");
	cc = col(hdr, nh, "column");
	cs = col(hdr, nh, "status");
	cn = col(hdr, nh, "nodes");
	csec = col(hdr, nh, "seconds");
	csl = col(hdr, nh, "slowdown");
	if (cm < 0 || cc < 0 || cs < 0 || cn < 0 || csec < 0 || csl < 0) {
		fclose(fp);
		return -1;
	}
	while (fgets(line, sizeof(line), fp)) {
		int n = split(line, f, 64), i;

		if (n < nh || strcmp(f[cs], "ok") || !*f[csl])
			continue;
		for (i = 0; i < ncell; i++)
			if (!strcmp(cells[i].mix, f[cm]) &&
			    !strcmp(cells[i].column, f[cc]))
				break;
		if (i == ncell) {
			if (ncell == MAX_CELLS)
				continue;
			memset(&cells[i], 0, sizeof(cells[i]));
			snprintf(cells[i].mix, sizeof(cells[i].mix), "%s", f[cm]);
			snprintf(cells[i].column, sizeof(cells[i].column), "%s", f[cc]);
			cells[i].nodes = atoi(f[cn]);
			cells[i].seconds = atof(f[csec]);	/* "2;2;2;2" */
			ncell++;
		}
		if (cells[i].n < MAX_RUNS)
			cells[i].v[cells[i].n++] = atof(f[csl]);
	}
	fclose(fp);
	return ncell;
}

/*
 * The calibration's own check: each workload alone on its nodes, sized to
 * the measured iteration count, against its measured standalone time
 * (standalone.csv beside CSV: program, args, nodes, iters, time_s;
 * a calibrated guest's in its own time, DILATE times the model's).
 */
static void standalone(const struct params *p, const char *csv,
		       const char *kernel, int seeds, double dilate)
{
	char path[1024], hline[2048], line[4096], *hdr[32], *f[32], job[128];
	const char *slash = strrchr(csv, '/');
	int nh, cp, ca, cn, ct, ci;
	FILE *fp;

	snprintf(path, sizeof(path), "%.*sstandalone.csv",
		 slash ? (int)(slash - csv + 1) : 0, csv);
	fp = fopen(path, "r");
	if (!fp || !fgets(hline, sizeof(hline), fp)) {
		printf("# no %s: standalone times not compared\n\n", path);
		if (fp)
			fclose(fp);
		return;
	}
	nh = split(hline, hdr, 32);
	cp = col(hdr, nh, "program");
	ca = col(hdr, nh, "args");
	cn = col(hdr, nh, "nodes");
	ct = col(hdr, nh, "time_s");
	ci = col(hdr, nh, "iters");
	if (cp < 0 || ca < 0 || cn < 0 || ct < 0 || ci < 0) {
		fclose(fp);
		return;
	}
	printf("Standalone (busy polling, the measured iteration count; params.conf's stall_per_s is fitted to life -v hi's):\n\n");
	printf("| job | nodes | iters | measured s | simulated s (%d seeds) | error |\n", seeds);
	printf("|---|---|---|---|---|---|\n");
	while (fgets(line, sizeof(line), fp)) {
		struct run_cfg cfg = { 0 };
		struct mix m = { .njobs = 1, .rpn = 1 };
		double sum = 0, meas;
		int s;

		if (split(line, f, 32) < nh)
			continue;
		snprintf(job, sizeof(job), "%s %s", f[cp], f[ca]);
		if (jobspec_parse(&m.jobs[0], job))
			continue;
		meas = atof(f[ct]) / dilate;
		cfg.mix = &m;
		cfg.pol = policy_find("busy-poll");
		cfg.kernel = kernel;
		cfg.nodes = atoi(f[cn]);
		cfg.cpus_per_host = cfg.nodes;
		cfg.seconds = meas;
		cfg.iters = atol(f[ci]);
		cfg.limit_s = 100 * meas + 10;
		cfg.only_job = -1;
		for (s = 0; s < seeds; s++) {
			struct result r;

			cfg.seed = s + 1;
			sim_run(p, &cfg, &r);
			sum += r.completion_s;
		}
		printf("| %s | %s | %s | %.3f | %.3f | %+.0f%% |\n", m.jobs[0].label,
		       f[cn], f[ci], meas, sum / seeds,
		       (sum / seeds / meas - 1) * 100);
	}
	printf("\n");
	fclose(fp);
}

int validate(const struct params *p, const char *csv, const char *mixdir,
	     const char *kernel, double seconds, int seeds, double tol,
	     double dilate)
{
	static struct cell cells[MAX_CELLS];
	int ncell = load(csv, cells), i, s, k, miss = 0, done = 0;
	double sumerr = 0;

	if (ncell < 0)
		return -1;
	standalone(p, csv, kernel, seeds, dilate);
	printf("# measured: %s; simulated: kernel %s, median of %d seeds%s\n",
	       csv, kernel, seeds,
	       dilate > 1 ? ", a calibrated guest (--dilate)" : "");
	printf("| mix | column | nodes | measured (runs: min-max) | simulated (seeds: min-max) | error | within %.0f%% |\n",
	       tol * 100);
	printf("|---|---|---|---|---|---|---|\n");
	for (i = 0; i < ncell; i++) {
		struct cell *c = &cells[i];
		struct run_cfg cfg = { 0 };
		struct mix m;
		double sim[64], meas, lo, hi, med, err;

		cfg.pol = policy_find(c->column);
		if (!cfg.pol || mix_load(&m, c->mix, mixdir)) {
			printf("| %s | %s | %d | | not simulated | | |\n", c->mix,
			       c->column, c->nodes);
			continue;
		}
		cfg.mix = &m;
		cfg.kernel = kernel;
		cfg.nodes = c->nodes;
		cfg.cpus_per_host = c->nodes;	/* the guest: one host */
		cfg.seconds = seconds > 0 ? seconds : c->seconds;
		cfg.limit_s = 60 * cfg.seconds * m.njobs + 10;
		cfg.only_job = -1;
		for (s = 0; s < seeds && s < 64; s++) {
			struct result r;

			cfg.seed = s + 1;
			sim_mix(p, &cfg, &r);
			sim[s] = r.slowdown;
		}
		lo = c->v[0];
		hi = c->v[0];
		for (k = 0; k < c->n; k++) {
			lo = fmin(lo, c->v[k]);
			hi = fmax(hi, c->v[k]);
		}
		meas = median(c->v, c->n);
		med = median(sim, s);
		c->meas = meas;
		c->sim = med;
		c->simulated = 1;
		err = med / meas - 1;
		sumerr += fabs(err);
		done++;
		if (fabs(err) > tol)
			miss++;
		printf("| %s | %s | %d | %.2f (%d: %.2f-%.2f) | %.2f (%d: %.2f-%.2f) | %+.0f%% | %s |\n",
		       c->mix, c->column, c->nodes, meas, c->n, lo, hi, med, s,
		       sim[0], sim[s - 1], err * 100,
		       fabs(err) > tol ? "MISS" : "yes");
	}
	printf("\n%d cells compared, %d within %.0f%%, %d missed; mean |error| %.1f%%\n",
	       done, done - miss, tol * 100, miss, done ? 100 * sumerr / done : 0);
	orderings(cells, ncell);
	return miss;
}
