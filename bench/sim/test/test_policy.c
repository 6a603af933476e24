// SPDX-License-Identifier: GPL-2.0
/*
 * Policy sanity, each able to fail: with one job per node nothing
 * competes, so every column is within 5% of the ideal; with four
 * fine-grain LIFE jobs on 8 nodes, dcs beats local by more than 10%; gang
 * scheduling stays within 10% of the ideal it approximates; no job gains
 * more boosted time than the budgets allow.
 */
#include <string.h>

#include "tap.h"

static double run(const struct params *p, const struct mix *m,
		  const char *pol, int nodes, struct result *r)
{
	struct run_cfg c = {
		.mix = m, .pol = policy_find(pol), .kernel = "6.12",
		.nodes = nodes, .cpus_per_host = 2, .seconds = 1,
		.limit_s = 200, .seed = 1, .only_job = -1,
	};

	sim_mix(p, &c, r);
	return r->slowdown;
}

int main(void)
{
	const struct policy *pol;
	struct params p;
	struct mix one, four;
	struct result r;
	double local, dcs, s;

	tap_params(&p, "6.12");
	tap_mix(&one, "alone", 1, "life -v hi");
	for (pol = policies; pol->name; pol++) {
		s = run(&p, &one, pol->name, 4, &r);
		ok(s > 0.95 && s < 1.05, "one job on 4 nodes under %s: slowdown %.3f within 5%% of 1",
		   pol->name, s);
	}
	tap_mix(&four, "mix05", 4, "life -v hi");
	local = run(&p, &four, "local", 8, &r);
	dcs = run(&p, &four, "dcs", 8, &r);
	ok(dcs < 0.9 * local, "4 x LIFE hi on 8 nodes: dcs %.2f beats local %.2f by > 10%%",
	   dcs, local);
	s = run(&p, &four, "gang", 8, &r);
	ok(s < 1.1, "4 x LIFE hi on 8 nodes: gang %.2f within 10%% of ideal", s);
	run(&p, &four, "dcs", 2, &r);
	/*
	 * The job budget is 30% of one CPU per host, doubled for boosts that
	 * span a window; one host of 2 CPUs, 4 jobs.
	 */
	ok(r.ctr.boosted_ns / 1e9 <= 4 * 2 * p.budget_pct / 100 * r.completion_s &&
	   r.ctr.boosted_ns / 1e9 <= 2 * p.user_budget_pct / 100 * r.completion_s,
	   "dcs on 2 nodes: boosted %.2f s in %.2f s, within the budgets",
	   r.ctr.boosted_ns / 1e9, r.completion_s);
	return tap_done();
}
