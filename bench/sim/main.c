// SPDX-License-Identifier: GPL-2.0
/*
 * cosched-sim: the command line (Documentation/simulator.rst).
 *
 *   cosched-sim --nodes N --mix M --policy P [--kernel 6.1|6.12]
 *               [--seconds S] [--seed X] [--cpus C] [--max-time S]
 *               [--dilate F] [--set KEY=VALUE]
 *   cosched-sim --validate [--measured runs.csv] [--seeds K] [--tol F]
 *   cosched-sim --sweep [--mixes 5,7] [--policies ...] [--node-list ...]
 *               [--seeds K] [-o out.csv]
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#ifndef SIM_ROOT
#define SIM_ROOT "."
#endif

static void usage(FILE *f)
{
	const struct policy *p;

	fprintf(f,
		"usage: cosched-sim --nodes N --mix M --policy P [options]\n"
		"       cosched-sim --validate [--measured CSV] [--seeds K] [--tol F]\n"
		"       cosched-sim --sweep [--mixes LIST] [--policies LIST] [--node-list LIST] [-o CSV]\n"
		"options:\n"
		"  --kernel 6.1|6.12   CFS or EEVDF fair class and that kernel's costs (6.12)\n"
		"  --seconds S         each job's standalone size, as run-mix -t (2)\n"
		"  --seed X            random seed (1)\n"
		"  --cpus C            nodes (CPUs) per host sharing one module's budgets (2)\n"
		"  --max-time S        stop after S simulated seconds (default: 40 x ideal)\n"
		"  --params FILE       calibration (%s/bench/sim/params.conf)\n"
		"  --mixes-dir DIR     mix files (%s/bench/mixes)\n"
		"  --seeds K           seeds per cell (--validate, --sweep: 3)\n"
		"  --set KEY=VALUE     change one calibration parameter (repeatable)\n"
		"  --dilate F          model a calibrated guest of dilation F: its\n"
		"                      measured costs in native-equivalent time\n"
		"policies:", SIM_ROOT, SIM_ROOT);
	for (p = policies; p->name; p++)
		fprintf(f, " %s", p->name);
	fprintf(f, "\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nodes", 1, 0, 'n' }, { "mix", 1, 0, 'm' },
		{ "policy", 1, 0, 'p' }, { "kernel", 1, 0, 'k' },
		{ "seconds", 1, 0, 's' }, { "seed", 1, 0, 'S' },
		{ "cpus", 1, 0, 'c' }, { "max-time", 1, 0, 'T' },
		{ "params", 1, 0, 'P' }, { "mixes-dir", 1, 0, 'D' },
		{ "validate", 0, 0, 'V' }, { "measured", 1, 0, 'M' },
		{ "seeds", 1, 0, 'K' }, { "tol", 1, 0, 't' },
		{ "sweep", 0, 0, 'W' }, { "mixes", 1, 0, 'x' },
		{ "policies", 1, 0, 'y' }, { "node-list", 1, 0, 'z' },
		{ "output", 1, 0, 'o' }, { "help", 0, 0, 'h' },
		{ "set", 1, 0, 'e' }, { "dilate", 1, 0, 'd' },
		{ 0 }
	};
	const char *params = SIM_ROOT "/bench/sim/params.conf";
	const char *mixdir = SIM_ROOT "/bench/mixes";
	const char *measured = SIM_ROOT "/Documentation/results/mix-6.12/runs.csv";
	const char *kernel = "6.12", *mixname = NULL, *polname = NULL;
	const char *mixes = "5,7,8,12", *pols = NULL, *nodelist = "4,8,16,64,256,1024";
	const char *outpath = NULL, *sets[32];
	int nsets = 0;
	double seconds = 2, maxtime = 0, tol = 0.15, dilate = 0;
	int nodes = 2, cpus = 2, seeds = 3, mode = 0, o, j, seconds_set = 0;
	uint64_t seed = 1;
	struct params p;
	struct mix m;
	struct result r;
	struct run_cfg cfg;

	while ((o = getopt_long(argc, argv, "n:m:p:k:s:o:h", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			nodes = atoi(optarg);
			break;
		case 'm':
			mixname = optarg;
			break;
		case 'p':
			polname = optarg;
			break;
		case 'k':
			kernel = optarg;
			break;
		case 's':
			seconds = atof(optarg);
			seconds_set = 1;
			break;
		case 'S':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'c':
			cpus = atoi(optarg);
			break;
		case 'T':
			maxtime = atof(optarg);
			break;
		case 'P':
			params = optarg;
			break;
		case 'D':
			mixdir = optarg;
			break;
		case 'V':
			mode = 'V';
			break;
		case 'M':
			measured = optarg;
			break;
		case 'K':
			seeds = atoi(optarg);
			break;
		case 't':
			tol = atof(optarg);
			break;
		case 'W':
			mode = 'W';
			break;
		case 'x':
			mixes = optarg;
			break;
		case 'y':
			pols = optarg;
			break;
		case 'z':
			nodelist = optarg;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'e':
			if (nsets < 32)
				sets[nsets++] = optarg;
			break;
		case 'd':
			dilate = atof(optarg);
			if (dilate < 1) {
				fprintf(stderr, "cosched-sim: --dilate F: F >= 1\n");
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (strcmp(kernel, "6.1") && strcmp(kernel, "6.12")) {
		fprintf(stderr, "cosched-sim: --kernel 6.1 or 6.12\n");
		return 2;
	}
	if (params_load(&p, params, kernel))
		return 2;
	if (dilate)
		params_dilate(&p, dilate);
	for (j = 0; j < nsets; j++)
		if (params_set(&p, sets[j])) {
			fprintf(stderr, "cosched-sim: --set %s: no such key=number\n",
				sets[j]);
			return 2;
		}
	if (mode == 'V') {
		int miss = validate(&p, measured, mixdir, kernel,
				    seconds_set ? seconds : 0, seeds, tol,
				    dilate ? dilate : 1);

		return miss ? 1 : 0;
	}
	if (mode == 'W') {
		FILE *out = outpath ? fopen(outpath, "w") : stdout;
		int rc;

		if (!out) {
			perror(outpath);
			return 2;
		}
		rc = sweep(&p, mixdir, kernel, mixes,
			   pols ? pols : "local,sb,sy,dcs,dcs-sb,dcs-sy,pb,pbt,pb-sb,pb-sy,pba,pba-sb,pba-sy,busy-poll,mpi-yield,gang",
			   nodelist, seconds, seeds, cpus, out);
		if (out != stdout)
			fclose(out);
		return rc ? 2 : 0;
	}
	if (!mixname || !polname || nodes < 1 || cpus < 1) {
		usage(stderr);
		return 2;
	}
	if (mix_load(&m, mixname, mixdir))
		return 2;
	memset(&cfg, 0, sizeof(cfg));
	cfg.mix = &m;
	cfg.pol = policy_find(polname);
	if (!cfg.pol) {
		fprintf(stderr, "cosched-sim: no policy '%s'\n", polname);
		return 2;
	}
	cfg.kernel = kernel;
	cfg.nodes = nodes;
	cfg.cpus_per_host = cpus;
	cfg.seconds = seconds;
	cfg.limit_s = maxtime > 0 ? maxtime : 40 * seconds * m.njobs + 10;
	cfg.seed = seed;
	cfg.only_job = -1;
	if (sim_mix(&p, &cfg, &r))
		return 2;
	printf("mix=%s policy=%s kernel=%s nodes=%d cpus_per_host=%d seconds=%g seed=%llu\n",
	       m.name, polname, kernel, nodes, cpus, seconds,
	       (unsigned long long)seed);
	printf("slowdown=%.3f completion_s=%.3f ideal_s=%.3f%s\n", r.slowdown,
	       r.completion_s, r.ideal_s,
	       r.timed_out ? " timed_out=1 (stopped at --max-time)" : "");
	printf("job label time_s alone_s cpu_share\n");
	for (j = 0, o = 0; j < m.njobs; j++) {
		if (m.jobs[j].kind == WL_HOG)
			continue;
		printf("%d %s %.3f %.3f %.3f\n", j + 1, m.jobs[j].label,
		       r.job_s[o], r.alone_s[o], r.share[o]);
		o++;
	}
	printf("boosts=%ld boosted_s=%.3f budget_exhausted=%ld blocks=%ld wakeups=%ld yields=%ld switches=%ld messages=%ld\n",
	       r.ctr.boosts, r.ctr.boosted_ns / 1e9, r.ctr.budget_exhausted,
	       r.ctr.blocks, r.ctr.wakeups, r.ctr.yields, r.ctr.switches,
	       r.ctr.messages);
	if (cfg.pol->repay)
		printf("debt_charged_s=%.3f debt_repaid_s=%.3f debt_forgiven_s=%.3f repay_refused=%ld\n",
		       r.ctr.debt_charged_ns / 1e9, r.ctr.debt_repaid_ns / 1e9,
		       r.ctr.debt_forgiven_ns / 1e9, r.ctr.repay_refused);
	printf("fairness: job label share_of_fair vs_fair (until the first job ends; completion / processor sharing's)\n");
	for (j = 0, o = 0; j < m.njobs; j++) {
		if (o >= r.nfair)
			break;
		printf("fair %d %s %.3f %.3f\n", j + 1, m.jobs[j].label,
		       r.share_of_fair[o], r.vs_fair[o]);
		o++;
	}
	printf("events=%ld simulated_s=%.3f wall_s=%.3f\n", r.ctr.events,
	       r.sim_s, r.wall_s);
	return 0;
}
