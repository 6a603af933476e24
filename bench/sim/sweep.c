// SPDX-License-Identifier: GPL-2.0
/*
 * --sweep: the predictions, one CSV row per (mix, policy, nodes, seed),
 * with the cost of each run (events, wall-clock seconds) beside it.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static int next_item(const char **s, char *out, size_t n)
{
	size_t k = strcspn(*s, ",");

	if (!**s)
		return 0;
	snprintf(out, n, "%.*s", (int)k, *s);
	*s += k + ((*s)[k] == ',');
	return 1;
}

int sweep(const struct params *p, const char *mixdir, const char *kernel,
	  const char *mixes, const char *pols, const char *nodes,
	  double seconds, int seeds, int cpus, FILE *out)
{
	char mname[64], pname[32], nname[16];
	const char *ms = mixes;

	fprintf(out, "mix,policy,kernel,nodes,seed,slowdown,completion_s,ideal_s,timed_out,boosts,events,wall_s\n");
	while (next_item(&ms, mname, sizeof(mname))) {
		struct mix m;
		const char *ps = pols;

		if (mix_load(&m, mname, mixdir))
			return -1;
		while (next_item(&ps, pname, sizeof(pname))) {
			const char *ns = nodes;
			const struct policy *pol = policy_find(pname);

			if (!pol) {
				fprintf(stderr, "cosched-sim: no policy '%s'\n", pname);
				return -1;
			}
			while (next_item(&ns, nname, sizeof(nname))) {
				int s;

				for (s = 1; s <= seeds; s++) {
					struct run_cfg cfg = {
						.mix = &m, .pol = pol,
						.kernel = kernel,
						.nodes = atoi(nname),
						.cpus_per_host = cpus,
						.seconds = seconds,
						.limit_s = 40 * seconds * m.njobs + 10,
						.seed = s, .only_job = -1,
					};
					struct result r;

					sim_mix(p, &cfg, &r);
					fprintf(out, "%s,%s,%s,%d,%d,%.4f,%.4f,%.4f,%d,%ld,%ld,%.3f\n",
						m.name, pname, kernel, cfg.nodes, s,
						r.slowdown, r.completion_s, r.ideal_s,
						r.timed_out, r.ctr.boosts,
						r.ctr.events, r.wall_s);
					fflush(out);
				}
			}
		}
	}
	return 0;
}
