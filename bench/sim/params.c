// SPDX-License-Identifier: GPL-2.0
/*
 * The calibration file: "key = value" lines, "#" comments.  A key may end
 * in ".6.1" or ".6.12": it then applies to that kernel only and wins over
 * the plain key.  Every key must be set; an unknown key is an error, so a
 * typo cannot silently leave a default in place (there are none).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define P(k, f) { k, offsetof(struct params, f) }
static const struct {
	const char *key;
	size_t off;
} keys[] = {
	P("hz", hz), P("cfs_latency_us", cfs_latency_us),
	P("cfs_min_granularity_us", cfs_min_gran_us),
	P("cfs_wakeup_granularity_us", cfs_wakeup_gran_us),
	P("eevdf_base_slice_us", eevdf_slice_us), P("ctx_switch_us", ctx_us),
	P("wake_us", wake_us), P("syscall_us", syscall_us),
	P("send_cpu_us", send_cpu_us), P("recv_cpu_us", recv_cpu_us),
	P("net_us", net_us), P("byte_send_ns", byte_send_ns),
	P("byte_net_ns", byte_net_ns), P("poll_us", poll_us),
	P("glue_poll_us", glue_poll_us), P("yield_loop_us", yield_loop_us),
	P("remote_extra_us", remote_extra_us),
	P("spin_us", spin_us), P("pb_period_us", pb_period_us),
	P("boost_us", boost_us), P("boost_latency_us", boost_latency_us),
	P("budget_pct", budget_pct), P("user_budget_pct", user_budget_pct),
	P("cpu_budget_pct", cpu_budget_pct),
	P("global_budget_pct", global_budget_pct),
	P("budget_window_ms", budget_window_ms),
	P("jobs_share_user", jobs_share_user), P("skew_us", skew_us),
	P("repay_max_debt_us", repay_max_debt_us),
	P("gang_slice_ms", gang_slice_ms), P("gang_switch_us", gang_switch_us),
	P("life_hi_s", life_hi_s), P("life_hi_iters", life_hi_iters),
	P("life_hi_comm", life_hi_comm), P("life_hi_side", life_hi_side),
	P("life_lo_side", life_lo_side),
	P("mg_s", mg_s), P("mg_iters", mg_iters), P("mg_comm", mg_comm),
	P("mg_side", mg_side),
	P("lu_s", lu_s), P("lu_iters", lu_iters), P("lu_comm", lu_comm),
	P("lu_side", lu_side),
	P("ep_s", ep_s), P("ep_iters", ep_iters), P("ep_comm", ep_comm),
	P("compute_jitter", jitter), P("stall_per_s", stall_per_s),
	P("stall_us", stall_us), P("background_pct", background_pct),
	P("background_burst_us", background_burst_us),
	P("autogroup", autogroup),
};
#define NKEYS (sizeof(keys) / sizeof(keys[0]))	/* no ARRAY_SIZE in libc */

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && strchr(" \t\r\n", e[-1]))
		*--e = 0;
	return s;
}

int params_set(struct params *p, const char *kv)
{
	char key[64], *end;
	const char *eq = strchr(kv, '=');
	double v;
	size_t i;

	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(key))
		return -1;
	snprintf(key, sizeof(key), "%.*s", (int)(eq - kv), kv);
	v = strtod(eq + 1, &end);
	if (end == eq + 1 || *end)
		return -1;
	for (i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].key, key)) {
			*(double *)((char *)p + keys[i].off) = v;
			return 0;
		}
	return -1;
}

int params_load(struct params *p, const char *file, const char *kernel)
{
	int level[NKEYS] = { 0 };	/* 0 unset, 1 plain, 2 kernel's */
	char line[512];
	int lineno = 0, bad = 0;
	size_t i;
	FILE *f = fopen(file, "r");

	if (!f) {
		perror(file);
		return -1;
	}
	memset(p, 0, sizeof(*p));
	while (fgets(line, sizeof(line), f)) {
		char *hash = strchr(line, '#'), *eq, *key, *val, *end, *dot;
		int lv = 1;
		double v;

		lineno++;
		if (hash)
			*hash = 0;
		key = trim(line);
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			fprintf(stderr, "%s:%d: no '='\n", file, lineno);
			bad = 1;
			continue;
		}
		*eq = 0;
		val = trim(eq + 1);
		key = trim(key);
		dot = strstr(key, ".6.");
		if (dot) {
			if (strcmp(dot + 1, kernel))
				continue;	/* the other kernel's */
			*dot = 0;
			lv = 2;
		}
		v = strtod(val, &end);
		if (end == val || *end) {
			fprintf(stderr, "%s:%d: bad number '%s'\n", file, lineno, val);
			bad = 1;
			continue;
		}
		for (i = 0; i < NKEYS && strcmp(keys[i].key, key); i++)
			;
		if (i == NKEYS) {
			fprintf(stderr, "%s:%d: unknown key '%s'\n", file, lineno, key);
			bad = 1;
			continue;
		}
		if (lv >= level[i]) {
			*(double *)((char *)p + keys[i].off) = v;
			level[i] = lv;
		}
	}
	fclose(f);
	for (i = 0; i < NKEYS; i++)
		if (!level[i]) {
			fprintf(stderr, "%s: '%s' is not set\n", file, keys[i].key);
			bad = 1;
		}
	return bad ? -1 : 0;
}

/*
 * A calibrated guest (tests/vm/vmrun.sh --calibrated, Documentation/
 * calibration.rst) runs user code FACTOR times slower than the host and
 * reports everything in native-equivalent time: its module's time
 * tunables are scaled (all of them from 2af8ad8 on; repay_max_debt_us
 * was not before, and Documentation/results/sim/calibrated-hog/run.sh
 * gives the model what such a guest ran with), but the costs this file
 * measured in real guest time (switches, system calls, messages, the
 * tick, the emulator's stalls) are worth 1/FACTOR as much of the work.
 * The slices are the guest's own rule's (calibration.rst): give them
 * with --set.
 */
void params_dilate(struct params *p, double factor)
{
	double *cost[] = {
		&p->ctx_us, &p->wake_us, &p->syscall_us, &p->send_cpu_us,
		&p->recv_cpu_us, &p->net_us, &p->byte_send_ns,
		&p->byte_net_ns, &p->poll_us, &p->glue_poll_us,
		&p->yield_loop_us, &p->remote_extra_us, &p->boost_latency_us,
		&p->gang_switch_us, &p->stall_us, &p->background_burst_us,
	};
	size_t i;

	for (i = 0; i < sizeof(cost) / sizeof(cost[0]); i++)
		*cost[i] /= factor;
	p->hz *= factor;
	p->stall_per_s *= factor;
}
