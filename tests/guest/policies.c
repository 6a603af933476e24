// SPDX-License-Identifier: GPL-2.0
/*
 * policies: the arrival side and the published wait mode of every
 * policy, one after the other with one endpoint alive throughout.
 *
 * The endpoint's owner is a thread blocked in read(), so it is off its
 * CPU when a doorbell comes.  Under dcs* the doorbell itself boosts it;
 * under pb* nothing happens on the message path and the periodic
 * examiner boosts it within a few periods (the arrival stays pending:
 * nobody consumes it); under pba* the examiner boosts its job in the
 * job's turns, pending or not; under local, sb and sy nobody ever
 * boosts it.
 */
#define _GNU_SOURCE
#include "check.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define JOB	0x9011c1e5ull

static const struct {
	const char *name;
	u32 wait_mode;
	enum { NONE, NOW, PERIODIC, ALIGNED } boost;
} policies[] = {
	{ "local",  COSCHED_WAIT_BUSY,  NONE },
	{ "sb",     COSCHED_WAIT_BLOCK, NONE },
	{ "sy",     COSCHED_WAIT_YIELD, NONE },
	{ "dcs",    COSCHED_WAIT_BUSY,  NOW },
	{ "dcs-sb", COSCHED_WAIT_BLOCK, NOW },
	{ "dcs-sy", COSCHED_WAIT_YIELD, NOW },
	{ "pb",     COSCHED_WAIT_BUSY,  PERIODIC },
	{ "pbt",    COSCHED_WAIT_BUSY,  PERIODIC },
	{ "pb-sb",  COSCHED_WAIT_BLOCK, PERIODIC },
	{ "pb-sy",  COSCHED_WAIT_YIELD, PERIODIC },
	{ "pba",    COSCHED_WAIT_BUSY,  ALIGNED },
	{ "pba-sb", COSCHED_WAIT_BLOCK, ALIGNED },
	{ "pba-sy", COSCHED_WAIT_YIELD, ALIGNED },
	{ "dcs-fair", COSCHED_WAIT_YIELD, NOW },
};

static struct ep ep;
static int ready[2], gate[2];	/* owner -> main, main -> owner */

/* The owner: creates the endpoint, then sleeps until told to close it. */
static void *owner(void *arg)
{
	char c;

	(void)arg;
	ep_must_open(&ep, JOB, 0);
	if (write(ready[1], "r", 1) != 1)
		bail("ready");
	if (read(gate[0], &c, 1) != 1)
		bail("gate");
	ep_close(&ep);
	return NULL;
}

static u64 boosts(void)
{
	struct cosched_stats st;

	if (ep_stats(ep.fd, &st))
		bail("STATS");
	return st.boosts;
}

int main(void)
{
	pthread_t tid;
	unsigned int i;
	char c;

	if (pipe(ready) || pipe(gate))
		bail("pipe");
	if (pthread_create(&tid, NULL, owner, NULL))
		bail("pthread_create");
	if (read(ready[0], &c, 1) != 1)
		bail("owner did not start");
	sysfs_set_u64("budget_pct", 100);

	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		const char *name = policies[i].name;
		u64 before, now;

		policy_set(name);
		t_diag("policy %s", name);
		expect_eq(RD(ep.ctrl->policy), (u32)policy_index(name),
			  "control page shows the new policy");
		expect_eq(RD(ep.ctrl->wait_mode), policies[i].wait_mode,
			  "control page shows the policy's wait mode");
		okf(poll_until(RD(ep.ctrl->on_cpu) == 0, 1000),
		    "the blocked owner is off its CPU", "%s", name);

		/* Let a boost from the previous policy run out. */
		poll_until(!(RD(ep.ctrl->state) & COSCHED_STATE_BOOSTED), 1000);
		/*
		 * A 1 s period while the doorbell rings: a slow guest must not
		 * let a periodic boost pass for one done on the message path.
		 */
		sysfs_set_u64("pb_period_us", 1000000);
		before = boosts();
		expect_ok(doorbell(ep.fd, JOB, 0, 1), "DOORBELL");
		now = boosts();
		sysfs_set_u64("pb_period_us", 10000);
		switch (policies[i].boost) {
		case NOW:
			okf(now == before + 1,
			    "the doorbell boosted the off-CPU owner",
			    "%s: %llu boosts", name,
			    (unsigned long long)(now - before));
			break;
		case PERIODIC:
		case ALIGNED:
			okf(now == before, "nothing done on the message path",
			    "%s: %llu boosts", name,
			    (unsigned long long)(now - before));
			okf(poll_until(boosts() > before, 100),
			    "the examiner boosted the pending endpoint within 10 periods",
			    "%s", name);
			break;
		case NONE:
			sleep_ns(50 * 1000000ull);
			okf(boosts() == before, "no boost in 50 ms", "%s", name);
			break;
		}
		/* Consume, so the next policy starts with nothing pending. */
		WR(ep.ctrl->consumed, RD(ep.ctrl->arrivals));
		if (policies[i].boost == ALIGNED) {
			/* The only job here: its turn is every period. */
			before = boosts();
			okf(poll_until(boosts() >= before + 2, 100),
			    "aligned: boosted in its turns with nothing pending",
			    "%s", name);
		}
	}

	if (write(gate[1], "x", 1) != 1)
		bail("gate");
	pthread_join(tid, NULL);
	ok(poll_until(sysfs_u64("stats/endpoints") == 0, 1000),
	   "endpoint gone");
	return t_done();
}
