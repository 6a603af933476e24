// SPDX-License-Identifier: GPL-2.0
/*
 * noise: an operating-system noise injector after Inozemtsev's
 * noisemaker.  On each given CPU a process at real-time priority
 * (SCHED_FIFO) sleeps a random while, then busy-waits a pulse, preempting
 * whatever ran there, the way a daemon or interrupt storm would.  The
 * sleep is uniform in [0, 2 (period - pulse)], so pulses start on
 * average every period: the duty cycle is pulse / period (the seed's
 * 100 ms pulses at 20% are -d 100ms -p 500ms).
 *
 * usage: noise [-c cpus] [-p period] [-d pulse] [-P prio] [-t duration]
 *              [-s seed] [-n]
 * Each injector prints at the end:
 *   noise cpu=C pulses=N busy_s=B wall_s=W duty=B/W
 */
#define _GNU_SOURCE
#include "dur.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_CPUS	256

struct cfg {
	int cpus[MAX_CPUS];
	int ncpus;
	uint64_t period, pulse, limit;
	int prio;
	unsigned long seed;
};

static volatile sig_atomic_t stop;
/* In the parent: the injectors, which a stop is passed on to. */
static pid_t pids[MAX_CPUS];
static volatile sig_atomic_t npids;

static void on_signal(int sig)
{
	int i;

	(void)sig;
	stop = 1;
	for (i = 0; i < npids; i++)
		kill(pids[i], SIGTERM);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: noise [-c cpus] [-p period] [-d pulse] [-P prio] [-t duration] [-s seed] [-n]\n"
		"  -c  comma-separated CPUs, one injector pinned to each (default: one,\n"
		"      not pinned: it keeps the affinity it was started with)\n"
		"  -p  mean time from one pulse's start to the next (default 500ms)\n"
		"  -d  busy pulse length, less than the period (default 100ms)\n"
		"  -P  SCHED_FIFO priority 1-99; 0 runs at normal priority (default 1)\n"
		"  -t  stop after this long (default: at SIGTERM/SIGINT)\n"
		"  -s  random seed (default 1); CPU i uses seed + i\n"
		"  -n  print the configuration and exit\n"
		"durations: 100ms, 2s, 500us; a bare number is milliseconds\n");
	exit(2);
}

static int parse_cpus(const char *s, struct cfg *c)
{
	char *end;
	long v;

	c->ncpus = 0;
	for (;;) {
		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || end == s || v < 0 || v >= CPU_SETSIZE ||
		    c->ncpus == MAX_CPUS)
			return -1;
		c->cpus[c->ncpus++] = (int)v;
		if (!*end)
			return 0;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

/* A uniform 64-bit value (splitmix64). */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* One injector, pinned to @cpu; returns the exit status. */
static int inject(const struct cfg *c, int idx)
{
	uint64_t s = c->seed + idx, t0, t, busy = 0, gap, end;
	struct sched_param sp = { .sched_priority = c->prio };
	int cpu = c->cpus[idx];
	unsigned long pulses = 0;
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu >= 0)
		CPU_SET(cpu, &set);
	if (cpu >= 0 && sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "noise: pinning to CPU %d: %s\n", cpu,
			strerror(errno));
		return 1;
	}
	if (c->prio && sched_setscheduler(0, SCHED_FIFO, &sp)) {
		fprintf(stderr, "noise: SCHED_FIFO priority %d: %s (root or CAP_SYS_NICE needed; -P 0 for none)\n",
			c->prio, strerror(errno));
		return 1;
	}
	gap = 2 * (c->period - c->pulse);
	t0 = dur_now();
	while (!stop) {
		dur_sleep(gap ? rnd(&s) % gap : 0, &stop);
		t = dur_now();
		if (stop || (c->limit && t - t0 >= c->limit))
			break;
		end = t + c->pulse;
		if (c->limit && end > t0 + c->limit)
			end = t0 + c->limit;
		while (!stop && dur_now() < end)
			;
		busy += dur_now() - t;
		pulses++;
	}
	t = dur_now() - t0;
	printf("noise cpu=%d pulses=%lu busy_s=%.3f wall_s=%.3f duty=%.3f\n", cpu,
	       pulses, busy * 1e-9, t * 1e-9, t ? (double)busy / t : 0);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct cfg c = { .cpus = { -1 }, .ncpus = 1, .period = 500000000ull,
			 .pulse = 100000000ull, .prio = 1, .seed = 1 };
	struct sigaction sa;
	int opt, dry = 0, i, status, ret = 0;
	char *end;

	while ((opt = getopt(argc, argv, "c:p:d:P:t:s:nh")) != -1) {
		switch (opt) {
		case 'c':
			if (parse_cpus(optarg, &c))
				usage();
			break;
		case 'p':
			if (dur_parse(optarg, 1000000ull, &c.period))
				usage();
			break;
		case 'd':
			if (dur_parse(optarg, 1000000ull, &c.pulse))
				usage();
			break;
		case 'P':
			c.prio = (int)strtol(optarg, &end, 10);
			if (*end || c.prio < 0 || c.prio > 99)
				usage();
			break;
		case 't':
			if (dur_parse(optarg, 1000000ull, &c.limit))
				usage();
			break;
		case 's':
			c.seed = strtoul(optarg, &end, 10);
			if (*end)
				usage();
			break;
		case 'n':
			dry = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (c.pulse >= c.period) {
		fprintf(stderr, "noise: the pulse (-d) must be shorter than the period (-p)\n");
		return 2;
	}
	printf("# noise cpus=");
	for (i = 0; i < c.ncpus; i++)
		if (c.cpus[i] >= 0)
			printf("%s%d", i ? "," : "", c.cpus[i]);
		else
			printf("any");
	printf(" period_ms=%.3f pulse_ms=%.3f duty=%.3f policy=%s prio=%d limit_s=%.3f seed=%lu\n",
	       c.period * 1e-6, c.pulse * 1e-6, (double)c.pulse / c.period,
	       c.prio ? "fifo" : "other", c.prio, c.limit * 1e-9, c.seed);
	fflush(stdout);
	if (dry)
		return 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL)) {
		perror("noise: sigaction");
		return 1;
	}
	for (i = 0; i < c.ncpus; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("noise: fork");
			ret = 1;
			on_signal(SIGTERM);	/* stop those already started */
			break;
		}
		if (pid == 0) {
			npids = 0;	/* an injector stops only itself */
			_exit(inject(&c, i));
		}
		pids[i] = pid;
		npids = i + 1;
	}
	for (i = 0; i < npids; i++) {
		while (waitpid(pids[i], &status, 0) < 0)
			if (errno != EINTR) {
				perror("noise: waitpid");
				return 1;
			}
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			ret = 1;
	}
	return ret;
}
