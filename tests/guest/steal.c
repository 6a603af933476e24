// SPDX-License-Identifier: GPL-2.0
/*
 * steal: how much of the wall-clock time a spinning thread on a guest CPU
 * does not get, i.e. what the host takes from the vCPU (under TCG the
 * guest's clock follows the host's, so a vCPU thread the host does not
 * run shows as a gap between two clock reads).  Run with nothing else on
 * the CPU; the timing tests use it to tell a host too busy to measure
 * anything from a policy that does not work.
 *
 * usage: steal [-c CPU] [-t MS] [-g GAP_US]   (defaults 0, 300, 500)
 * prints: stolen_pct=P max_gap_us=M
 */
#define _GNU_SOURCE
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	u64 ms = 300, gap_us = 500, max;
	int cpu = 0, opt;
	double pct;

	while ((opt = getopt(argc, argv, "c:t:g:")) != -1) {
		switch (opt) {
		case 'c': cpu = atoi(optarg); break;
		case 't': ms = strtoull(optarg, NULL, 10); break;
		case 'g': gap_us = strtoull(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: steal [-c CPU] [-t MS] [-g GAP_US]\n");
			return 2;
		}
	}
	pct = host_steal_pct(cpu, ms, gap_us, &max);
	printf("stolen_pct=%.1f max_gap_us=%llu\n", pct,
	       (unsigned long long)(max / 1000));
	return 0;
}
