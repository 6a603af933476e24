// SPDX-License-Identifier: GPL-2.0
/*
 * The columns the simulator runs: the module's policies (thesis Table 6.1
 * and the aligned pba*, include/uapi/linux/cosched.h) waiting through the
 * MPI glue, dcs-fair that repays boosted time (repay.c; it waits as
 * *sy do, its YIELD being the repaying sleep), and the baselines of
 * bench/run-mix, which wait in plain MPI.
 */
#include <string.h>

#include "sim.h"

const struct policy policies[] = {
	{ "local",     W_POLL,  A_NONE, PB_RR,      1, 0, 0 },
	{ "sb",        W_SB,    A_NONE, PB_RR,      1, 0, 0 },
	{ "sy",        W_SY,    A_NONE, PB_RR,      1, 0, 0 },
	{ "dcs",       W_POLL,  A_DCS,  PB_RR,      1, 0, 0 },
	{ "dcs-sb",    W_SB,    A_DCS,  PB_RR,      1, 0, 0 },
	{ "dcs-sy",    W_SY,    A_DCS,  PB_RR,      1, 0, 0 },
	{ "dcs-fair",  W_SY,    A_DCS,  PB_RR,      1, 0, 1 },
	{ "pb",        W_POLL,  A_PB,   PB_RR,      1, 0, 0 },
	{ "pbt",       W_POLL,  A_PB,   PB_NEWEST,  1, 0, 0 },
	{ "pb-sb",     W_SB,    A_PB,   PB_BLOCKED, 1, 0, 0 },
	{ "pb-sy",     W_SY,    A_PB,   PB_RR,      1, 0, 0 },
	{ "pba",       W_POLL,  A_PB,   PB_ALIGNED, 1, 0, 0 },
	{ "pba-sb",    W_SB,    A_PB,   PB_ALIGNED, 1, 0, 0 },
	{ "pba-sy",    W_SY,    A_PB,   PB_ALIGNED, 1, 0, 0 },
	{ "busy-poll", W_POLL,  A_NONE, PB_RR,      0, 0, 0 },
	{ "mpi-yield", W_YIELD, A_NONE, PB_RR,      0, 0, 0 },
	{ "gang",      W_POLL,  A_NONE, PB_RR,      0, 1, 0 },
	{ NULL },
};

const struct policy *policy_find(const char *name)
{
	const struct policy *p;

	for (p = policies; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}
