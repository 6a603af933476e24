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
 * usage: steal -w [-c CPU] [-o FILE] [-T SECONDS] [CMD ARG...]
 *   the stall watch (lib/stall.h) while CMD runs, or until SIGTERM or
 *   SIGINT without CMD; exits with CMD's status, or 124 when CMD (its
 *   process group) had to be killed after SECONDS.  Prints, to FILE if
 *   given: stall_pct=P stall_ms=M secs=S cpu=C max_late_us=L timed_out=0|1
 *   (P: percent of the time CPU C stood still: -c CPU, else the worst)
 */
#define _GNU_SOURCE
#include "check.h"
#include "stall.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* Wait for pid; after limit_s seconds (0: none) kill its group: 124. */
static int wait_limited(pid_t pid, u64 limit_s)
{
	u64 end = now_ns() + limit_s * 1000000000ull;
	int st;

	if (!limit_s)
		return wait_child(pid);
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (now_ns() > end) {
			kill(-pid, SIGTERM);
			sleep_ns(2000000000ull);
			kill(-pid, SIGKILL);
			wait_child(pid);
			return 124;
		}
		sleep_ns(100000000);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int watch(char **cmd, const char *out, u64 limit_s, int judge)
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
	stall_watch_judge(w, judge);
	if (*cmd) {
		pid = fork();
		if (pid < 0)
			bail("fork: %s", strerror(errno));
		if (pid == 0) {
			setpgid(0, 0);	/* a group of its own to kill at the limit */
			sigprocmask(SIG_UNBLOCK, &set, NULL);
			execvp(cmd[0], cmd);
			perror(cmd[0]);
			_exit(127);
		}
		setpgid(pid, pid);
		rc = wait_limited(pid, limit_s);
	} else {
		sigwait(&set, &sig);
	}
	stall_watch_stop(w);
	pct = stall_pct(w, &cpu);
	if (out && !(f = fopen(out, "w"))) {
		perror(out);
		return 2;
	}
	fprintf(f, "stall_pct=%.1f stall_ms=%.0f secs=%.1f cpu=%d max_late_us=%llu timed_out=%d\n",
		pct, stall_ms(w), stall_secs(w), cpu,
		(unsigned long long)(w->cpu[cpu].max_late_ns / 1000), rc == 124);
	if (f != stdout)
		fclose(f);
	stall_watch_free(w);
	return rc;
}

int main(int argc, char **argv)
{
	u64 ms = 300, gap_us = 500, max;
	u64 limit_s = 0;
	int cpu = 0, cpu_set = 0, opt, watching = 0;
	const char *out = NULL;
	double pct;

	while ((opt = getopt(argc, argv, "+c:t:g:wo:T:")) != -1) {
		switch (opt) {
		case 'c': cpu = atoi(optarg); cpu_set = 1; break;
		case 't': ms = strtoull(optarg, NULL, 10); break;
		case 'g': gap_us = strtoull(optarg, NULL, 10); break;
		case 'w': watching = 1; break;
		case 'o': out = optarg; break;
		case 'T': limit_s = strtoull(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: steal [-c CPU] [-t MS] [-g GAP_US]\n"
				"       steal -w [-c CPU] [-o FILE] [-T SECONDS] [CMD ARG...]\n");
			return 2;
		}
	}
	if (watching)
		return watch(argv + optind, out, limit_s, cpu_set ? cpu : -1);
	pct = host_steal_pct(cpu, ms, gap_us, &max);
	printf("stolen_pct=%.1f max_gap_us=%llu\n", pct,
	       (unsigned long long)(max / 1000));
	return 0;
}
