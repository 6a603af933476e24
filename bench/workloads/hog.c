// SPDX-License-Identifier: GPL-2.0
/*
 * hog: a compute-bound competitor, the "simple spin loop" of Pakin's
 * "one competitor per node".  It spins on arithmetic until -t elapses or
 * SIGTERM/SIGINT arrives, then prints how much CPU it got:
 *
 *   workload=hog cpu=C wall_s=W cpu_s=S share=S/W loops=N
 *
 * share is the fraction of one CPU the hog received: next to a job that
 * coschedules well, it should stay near its fair share (1/2 with one
 * other process on its CPU).
 *
 * usage: hog [-c cpu] [-t duration]
 */
#define _GNU_SOURCE
#include "dur.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: hog [-c cpu] [-t duration]\n"
		"  -c  pin to this CPU (default: anywhere)\n"
		"  -t  stop after this long (100ms, 5s, ...; default: at SIGTERM/SIGINT)\n");
	exit(2);
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	uint64_t limit = 0, t0, wall;
	struct sigaction sa;
	unsigned long loops = 0;
	volatile double x = 1;
	int c, cpu = -1, i;
	char *end;

	while ((c = getopt(argc, argv, "c:t:h")) != -1) {
		switch (c) {
		case 'c':
			cpu = (int)strtol(optarg, &end, 10);
			if (*end || cpu < 0 || cpu >= CPU_SETSIZE)
				usage();
			break;
		case 't':
			if (dur_parse(optarg, 1000000000ull, &limit))
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "hog: pinning to CPU %d: %s\n", cpu,
				strerror(errno));
			return 1;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL)) {
		perror("hog: sigaction");
		return 1;
	}
	t0 = dur_now();
	while (!stop && (!limit || dur_now() - t0 < limit)) {
		/* About a microsecond of arithmetic between checks. */
		for (i = 0; i < 256; i++)
			x = x * 1.0000001 + 1e-9;
		loops++;
	}
	wall = dur_now() - t0;
	printf("workload=hog cpu=%d wall_s=%.3f cpu_s=%.3f share=%.3f loops=%lu\n",
	       cpu, wall * 1e-9, cpu_s(), wall ? cpu_s() / (wall * 1e-9) : 0, loops);
	return 0;
}
