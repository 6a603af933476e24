// SPDX-License-Identifier: GPL-2.0
/*
 * steal: how much of the wall-clock time the host takes from the guest's
 * CPUs (under TCG the guest's clock follows the host's, so a vCPU thread
 * the host does not run shows as time a guest CPU stood still).  The
 * timing tests use it to tell a host too busy to measure anything from a
 * policy that does not work.
 *
 * usage: steal [-c CPU] [-t MS] [-g GAP_US]   (defaults 0, 300, 500)
 *   a thread spinning on CPU for MS ms sums its gaps over GAP_US;
 *   prints: stolen_pct=P max_gap_us=M
 * usage: steal -w [-o FILE] [CMD ARG...]
 *   the stall watch (lib/stall.h) while CMD runs, or until SIGTERM or
 *   SIGINT without CMD; exits with CMD's status.  Prints, to FILE if
 *   given: stall_pct=P stall_ms=M secs=S cpu=C max_late_us=L
 *   (P: percent of the time the worst CPU, C, stood still)
 */
#define _GNU_SOURCE
#include "check.h"
#include "stall.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int watch(char **cmd, const char *out)
{
	struct stall_watch *w;
	sigset_t set;
	int sig, rc = 0, cpu;
	double pct;
	FILE *f = stdout;
	pid_t pid;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	w = stall_watch_start();
	if (*cmd) {
		pid = fork();
		if (pid < 0)
			bail("fork: %s", strerror(errno));
		if (pid == 0) {
			sigprocmask(SIG_UNBLOCK, &set, NULL);
			execvp(cmd[0], cmd);
			perror(cmd[0]);
			_exit(127);
		}
		rc = wait_child(pid);
	} else {
		sigwait(&set, &sig);
	}
	stall_watch_stop(w);
	pct = stall_pct(w, &cpu);
	if (out && !(f = fopen(out, "w"))) {
		perror(out);
		return 2;
	}
	fprintf(f, "stall_pct=%.1f stall_ms=%.0f secs=%.1f cpu=%d max_late_us=%llu\n",
		pct, stall_ms(w), stall_secs(w), cpu,
		(unsigned long long)(w->cpu[cpu].max_late_ns / 1000));
	if (f != stdout)
		fclose(f);
	stall_watch_free(w);
	return rc;
}

int main(int argc, char **argv)
{
	u64 ms = 300, gap_us = 500, max;
	int cpu = 0, opt, watching = 0;
	const char *out = NULL;
	double pct;

	while ((opt = getopt(argc, argv, "+c:t:g:wo:")) != -1) {
		switch (opt) {
		case 'c': cpu = atoi(optarg); break;
		case 't': ms = strtoull(optarg, NULL, 10); break;
		case 'g': gap_us = strtoull(optarg, NULL, 10); break;
		case 'w': watching = 1; break;
		case 'o': out = optarg; break;
		default:
			fprintf(stderr, "usage: steal [-c CPU] [-t MS] [-g GAP_US]\n"
				"       steal -w [-o FILE] [CMD ARG...]\n");
			return 2;
		}
	}
	if (watching)
		return watch(argv + optind, out);
	pct = host_steal_pct(cpu, ms, gap_us, &max);
	printf("stolen_pct=%.1f max_gap_us=%llu\n", pct,
	       (unsigned long long)(max / 1000));
	return 0;
}
