// SPDX-License-Identifier: GPL-2.0
/*
 * dcs-fair repays boosted time (repay.c): a compute-bound job (ep) beside
 * a DCS-boosted communicating job (LIFE hi) on 8 quiet nodes.  With the
 * repayment off (dcs) or disabled in dcs-fair (repay_nice 0: the owing
 * rank keeps its weight; repay_max_debt_us 0: it is boosted anyway) ep
 * gets less than 90% of its fair share; with it on, at least 90% on
 * EEVDF and CFS, with the lowering alone too, and LIFE stays within 1.5x
 * of its processor-sharing completion.
 */
#include <string.h>

#include "tap.h"

static void run(const struct params *p, const struct mix *m, const char *pol,
		const char *kernel, struct result *r)
{
	struct run_cfg c = {
		.mix = m, .pol = policy_find(pol), .kernel = kernel,
		.nodes = 8, .cpus_per_host = 2, .seconds = 1,
		.limit_s = 100, .seed = 1, .only_job = -1,
	};

	sim_mix(p, &c, r);
}

int main(void)
{
	struct params p, p61, off, lower;
	struct mix m;
	struct result dcs, fair, r;

	tap_params(&p, "6.12");
	tap_params(&p61, "6.1");
	memset(&m, 0, sizeof(m));
	snprintf(m.name, sizeof(m.name), "life-ep");
	m.njobs = 2;
	m.rpn = 1;
	if (jobspec_parse(&m.jobs[0], "life -v hi") ||
	    jobspec_parse(&m.jobs[1], "ep")) {
		printf("Bail out! jobs\n");
		return 1;
	}
	run(&p, &m, "dcs", "6.12", &dcs);
	ok(dcs.share_of_fair[1] < 0.9,
	   "dcs (no repayment): ep gets %.3f of its fair share, < 0.9",
	   dcs.share_of_fair[1]);
	off = p;
	off.repay_nice = 0;
	off.repay_max_debt_us = 0;
	run(&off, &m, "dcs-fair", "6.12", &r);
	ok(r.share_of_fair[1] < 0.9,
	   "dcs-fair, repayment disabled (nice 0, no refusal): ep %.3f, < 0.9",
	   r.share_of_fair[1]);
	run(&p, &m, "dcs-fair", "6.12", &fair);
	ok(fair.share_of_fair[1] >= 0.9,
	   "dcs-fair: ep gets %.3f of its fair share, >= 0.9",
	   fair.share_of_fair[1]);
	ok(fair.vs_fair[0] > 0 && fair.vs_fair[0] <= 1.5,
	   "dcs-fair: LIFE hi completes in %.3f x its fair-share time, <= 1.5 (dcs %.3f)",
	   fair.vs_fair[0], dcs.vs_fair[0]);
	lower = p;
	lower.repay_max_debt_us = 0;
	run(&lower, &m, "dcs-fair", "6.12", &r);
	ok(r.share_of_fair[1] >= 0.9,
	   "dcs-fair, lowering alone (no refusal): ep %.3f, >= 0.9",
	   r.share_of_fair[1]);
	run(&p61, &m, "dcs", "6.1", &r);
	ok(r.share_of_fair[1] < 0.9, "CFS (6.1), dcs: ep %.3f, < 0.9",
	   r.share_of_fair[1]);
	run(&p61, &m, "dcs-fair", "6.1", &r);
	ok(r.share_of_fair[1] >= 0.9 && r.vs_fair[0] <= 1.5,
	   "CFS (6.1), dcs-fair: ep %.3f, >= 0.9; LIFE hi %.3f x, <= 1.5",
	   r.share_of_fair[1], r.vs_fair[0]);
	return tap_done();
}
