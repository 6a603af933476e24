// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs: the admin interface.  /sys/kernel/cosched/policy format and
 * switching, every tunable's range edges, boost_mech, the stats files,
 * and the same names as module parameters (bad ones make the load fail,
 * good ones show up, a plain reload brings the defaults back).
 * Leaves the module loaded with its defaults.
 */
#define _GNU_SOURCE
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct tunable {
	const char *name;
	u64 min, max, def;
};

static const struct tunable tunables[] = {
	{ "spin_us",		0,	100000,		250 },
	{ "pb_period_us",	1000,	1000000,	10000 },
	{ "boost_us",		10,	100000,		2000 },
	{ "budget_pct",		0,	100,		30 },
	{ "budget_window_ms",	10,	10000,		100 },
	{ "ring_kb",		4,	65536,		256 },
	{ "user_max_endpoints",	1,	1000000,	256 },
	{ "user_max_hooks",	64,	1000000,	4096 },
	{ "repay_max_debt_us",	0,	10000000,	30000 },
};
#define NR_TUNABLES (sizeof(tunables) / sizeof(tunables[0]))

static const char *const stat_files[] = {
	"arrivals", "doorbells", "boosts", "boosted_ns", "blocks", "wakeups",
	"yields", "budget_exhausted", "repay_refused", "endpoints", "jobs",
};

static char default_policy[32];

/* The INFO field that mirrors a tunable, or -1. */
static long long info_field(const char *name)
{
	struct cosched_info info;
	int fd = dev_open();

	cs_info(fd, &info);
	close(fd);
	if (!strcmp(name, "spin_us"))
		return info.spin_us;
	if (!strcmp(name, "pb_period_us"))
		return info.pb_period_us;
	if (!strcmp(name, "boost_us"))
		return info.boost_us;
	return -1;
}

/* val with a trailing newline shown as \n, for check names. */
static const char *shown(const char *val)
{
	static char buf[64];
	size_t l = strlen(val);

	if (l && val[l - 1] == '\n')
		snprintf(buf, sizeof(buf), "%.*s\\n", (int)l - 1, val);
	else
		snprintf(buf, sizeof(buf), "%s", val);
	return buf;
}

static void reject(const char *file, const char *val, const char *expect)
{
	char n[160], got[256] = "";

	snprintf(n, sizeof(n), "%s: write '%s' -> EINVAL", file, shown(val));
	expect_neg(sysfs_write(file, val), EINVAL, n);
	sysfs_read(file, got, sizeof(got));
	snprintf(n, sizeof(n), "%s: still '%s' after '%s'", file, expect, shown(val));
	okf(!strcmp(got, expect), n, "reads '%s'", got);
}

static void accept(const char *file, const char *val, const char *expect)
{
	char n[160], got[256] = "";

	snprintf(n, sizeof(n), "%s: write '%s' accepted", file, shown(val));
	expect_neg(sysfs_write(file, val), 0, n);
	sysfs_read(file, got, sizeof(got));
	snprintf(n, sizeof(n), "%s: reads '%s' after '%s'", file, expect, shown(val));
	okf(!strcmp(got, expect), n, "reads '%s'", got);
}

static void test_tunable(const struct tunable *t)
{
	char v[32], mid[32], n[128];
	u64 m = (t->min + t->max) / 2;
	long long inf;

	snprintf(mid, sizeof(mid), "%llu", (unsigned long long)m);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)t->min);
	accept(t->name, v, v);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)t->max);
	accept(t->name, v, v);
	snprintf(v, sizeof(v), "%llu\n", (unsigned long long)m);
	accept(t->name, v, mid);	/* echo adds a newline */

	inf = info_field(t->name);
	if (inf >= 0) {
		snprintf(n, sizeof(n), "INFO %s follows sysfs", t->name);
		expect_eq(inf, m, n);
	}

	if (t->min > 0)
		snprintf(v, sizeof(v), "%llu", (unsigned long long)t->min - 1);
	else
		snprintf(v, sizeof(v), "-1");
	reject(t->name, v, mid);
	snprintf(v, sizeof(v), "%llu", (unsigned long long)t->max + 1);
	reject(t->name, v, mid);
	reject(t->name, "abc", mid);
	reject(t->name, "12abc", mid);
	reject(t->name, "4294967296", mid);	/* past u32 */
	reject(t->name, "-5", mid);

	snprintf(v, sizeof(v), "%llu", (unsigned long long)t->def);
	sysfs_set(t->name, v);
}

/* "local sb ... pb-sy" with exactly the active one in brackets. */
static bool policy_line_ok(const char *line, const char *active)
{
	char want[256] = "";

	for (int i = 0; i < COSCHED_NR_POLICIES; i++) {
		const char *n = policy_names[i];
		bool a = !strcmp(n, active);

		snprintf(want + strlen(want), sizeof(want) - strlen(want),
			 "%s%s%s%s", i ? " " : "", a ? "[" : "", n, a ? "]" : "");
	}
	return !strcmp(line, want);
}

static void test_policy(void)
{
	char line[256], n[128], v[32], cur[32];
	struct cosched_info info;
	int fd;

	sysfs_read("policy", line, sizeof(line));
	t_diag("policy file: '%s'", line);
	policy_get(cur, sizeof(cur));
	okf(policy_line_ok(line, cur), "policy file lists every policy, active in []",
	    "got '%s'", line);

	for (int i = 0; i < COSCHED_NR_POLICIES; i++) {
		/* Alternate: with and without a trailing newline. */
		snprintf(v, sizeof(v), "%s%s", policy_names[i], i % 2 ? "\n" : "");
		snprintf(n, sizeof(n), "policy: write '%s%s'", policy_names[i],
			 i % 2 ? "\\n" : "");
		expect_neg(sysfs_write("policy", v), 0, n);
		sysfs_read("policy", line, sizeof(line));
		snprintf(n, sizeof(n), "policy file shows [%s]", policy_names[i]);
		okf(policy_line_ok(line, policy_names[i]), n, "got '%s'", line);
		fd = dev_open();
		cs_info(fd, &info);
		close(fd);
		snprintf(n, sizeof(n), "INFO policy = %d after writing %s", i,
			 policy_names[i]);
		expect_eq(info.policy, i, n);
	}

	policy_set("pbt");
	sysfs_read("policy", line, sizeof(line));
	{
		static const char *const bad[] = {
			"bogus", "DCS", "dcs-", "pbx", "pb-", "local sb", "",
		};
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			char got[256];

			if (!*bad[i])
				continue;	/* a 0-byte write never reaches the store */
			snprintf(n, sizeof(n), "policy: write '%s' -> EINVAL", bad[i]);
			expect_neg(sysfs_write("policy", bad[i]), EINVAL, n);
			sysfs_read("policy", got, sizeof(got));
			snprintf(n, sizeof(n), "policy unchanged after '%s'", bad[i]);
			okf(!strcmp(got, line), n, "got '%s'", got);
		}
	}
	policy_set(default_policy);
}

static void test_boost_mech(void)
{
	char got[64];

	sysfs_read("boost_mech", got, sizeof(got));
	okf(!strcmp(got, "[fifo] nice"), "boost_mech default reads '[fifo] nice'",
	    "got '%s'", got);
	accept("boost_mech", "nice", "fifo [nice]");
	accept("boost_mech", "fifo\n", "[fifo] nice");
	accept("boost_mech", "nice\n", "fifo [nice]");
	reject("boost_mech", "rt", "fifo [nice]");
	reject("boost_mech", "FIFO", "fifo [nice]");
	reject("boost_mech", "fifo nice", "fifo [nice]");
	accept("boost_mech", "fifo", "[fifo] nice");
}

static void test_stats_files(void)
{
	char rel[64], buf[64], *end, n[96];

	for (size_t i = 0; i < sizeof(stat_files) / sizeof(stat_files[0]); i++) {
		snprintf(rel, sizeof(rel), "stats/%s", stat_files[i]);
		int r = sysfs_read(rel, buf, sizeof(buf));

		snprintf(n, sizeof(n), "%s is a decimal number", rel);
		okf(!r && *buf && (strtoull(buf, &end, 10), !*end), n,
		    "read: %s, '%s'", r ? strerror(-r) : "ok", r ? "" : buf);
	}
	expect_eq(sysfs_u64("stats/endpoints"), 0, "stats/endpoints = 0");
	expect_eq(sysfs_u64("stats/jobs"), 0, "stats/jobs = 0");
}

static void expect_defaults(const char *when)
{
	char n[128], got[64];

	for (size_t i = 0; i < NR_TUNABLES; i++) {
		snprintf(n, sizeof(n), "%s: %s = %llu", when, tunables[i].name,
			 (unsigned long long)tunables[i].def);
		expect_eq(sysfs_u64(tunables[i].name), tunables[i].def, n);
	}
	sysfs_read("boost_mech", got, sizeof(got));
	snprintf(n, sizeof(n), "%s: boost_mech fifo", when);
	okf(!strcmp(got, "[fifo] nice"), n, "got '%s'", got);
}

static void bad_param(const char *params)
{
	char n[160];

	snprintf(n, sizeof(n), "insmod %s -> EINVAL", params);
	expect_neg(module_load(params), EINVAL, n);
	snprintf(n, sizeof(n), "insmod %s: module not loaded", params);
	if (!ok(!module_loaded(), n))
		module_unload();
}

static void test_module_params(void)
{
	static const char *const bad[] = {
		"policy=bogus", "spin_us=100001", "spin_us=abc",
		"pb_period_us=999", "pb_period_us=1000001", "boost_us=9",
		"boost_us=100001", "budget_pct=101", "budget_window_ms=9",
		"budget_window_ms=10001", "boost_mech=rt", "ring_kb=3",
		"ring_kb=65537", "user_max_endpoints=0",
		"user_max_hooks=63", "user_max_hooks=1000001",
		"repay_max_debt_us=10000001",
	};
	struct cosched_info info;
	char got[64];
	int fd;

	if (!expect_neg(module_unload(), 0, "rmmod with no endpoints"))
		return;
	ok(!path_exists(COSCHED_SYSFS_DIR), "rmmod removes /sys/kernel/cosched");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		bad_param(bad[i]);

	if (!expect_neg(module_load("policy=pb-sb spin_us=300 pb_period_us=20000 "
				    "boost_us=500 budget_pct=50 "
				    "budget_window_ms=200 boost_mech=nice"), 0,
			"insmod with good parameters"))
		bail("cannot load the module");
	policy_get(got, sizeof(got));
	okf(!strcmp(got, "pb-sb"), "param policy=pb-sb shows", "got '%s'", got);
	expect_eq(sysfs_u64("spin_us"), 300, "param spin_us=300 shows");
	expect_eq(sysfs_u64("pb_period_us"), 20000, "param pb_period_us shows");
	expect_eq(sysfs_u64("boost_us"), 500, "param boost_us shows");
	expect_eq(sysfs_u64("budget_pct"), 50, "param budget_pct shows");
	expect_eq(sysfs_u64("budget_window_ms"), 200, "param budget_window_ms shows");
	sysfs_read("boost_mech", got, sizeof(got));
	okf(!strcmp(got, "fifo [nice]"), "param boost_mech=nice shows", "got '%s'", got);
	poll_until(path_exists(COSCHED_DEVICE), 2000);
	fd = dev_open();
	cs_info(fd, &info);
	close(fd);
	expect_eq(info.policy, COSCHED_POLICY_PB_SB, "INFO policy from param");
	expect_eq(info.spin_us, 300, "INFO spin_us from param");
	expect_eq(info.pb_period_us, 20000, "INFO pb_period_us from param");
	expect_eq(info.boost_us, 500, "INFO boost_us from param");

	/* The range edges are valid parameters too. */
	module_unload();
	expect_neg(module_load("spin_us=100000 pb_period_us=1000000 boost_us=10 "
			       "budget_pct=100 budget_window_ms=10000"), 0,
		   "insmod with max/min edge parameters");
	expect_eq(sysfs_u64("boost_us"), 10, "param boost_us=10 shows");
	expect_eq(sysfs_u64("budget_window_ms"), 10000, "param budget_window_ms=10000 shows");
	module_unload();
	expect_neg(module_load("spin_us=0 pb_period_us=1000 boost_us=100000 "
			       "budget_pct=0 budget_window_ms=10"), 0,
		   "insmod with min/max edge parameters");
	expect_eq(sysfs_u64("budget_pct"), 0, "param budget_pct=0 shows");

	module_reload(NULL);
	expect_defaults("plain reload");
	policy_get(got, sizeof(got));
	okf(!strcmp(got, default_policy), "plain reload: default policy back",
	    "got '%s', first load had '%s'", got, default_policy);
}

int main(void)
{
	module_reload(NULL);
	if (policy_get(default_policy, sizeof(default_policy)))
		bail("cannot read the policy");
	t_diag("default policy: %s", default_policy);
	expect_defaults("fresh load");
	test_policy();
	for (size_t i = 0; i < NR_TUNABLES; i++)
		test_tunable(&tunables[i]);
	test_boost_mech();
	test_stats_files();
	test_module_params();
	return t_done();
}
