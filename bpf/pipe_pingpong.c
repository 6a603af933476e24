// SPDX-License-Identifier: GPL-2.0
/*
 * pipe_pingpong [-n ROUNDS] [-c CPU]: two processes pass one byte back and
 * forth over two pipes; every round trip is two blocking reads, so two
 * context switches per process.  Prints the parent's pid and child's pid
 * first (so a monitor can be told about them) on stderr, then waits for a
 * byte on stdin if -w is given, then prints "N round trips in S s: U us
 * each".  Used to measure what the scheduling monitor costs per switch
 * (Documentation/monitor.rst).  -c pins both processes to one CPU, so every
 * hand-over is a real context switch rather than an idle wake-up.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

int main(int argc, char **argv)
{
	long rounds = 200000, i;
	int ping[2], pong[2], opt, cpu = -1, wait_go = 0;
	double t0, t1;
	pid_t child;
	char b = 0;

	while ((opt = getopt(argc, argv, "n:c:w")) != -1) {
		switch (opt) {
		case 'n':
			rounds = atol(optarg);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'w':
			wait_go = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-n ROUNDS] [-c CPU] [-w]\n", argv[0]);
			return 2;
		}
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity");
	}
	if (pipe(ping) || pipe(pong))
		die("pipe");
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		/* Only the parent may hold ping's write end, or EOF never comes. */
		close(ping[1]);
		close(pong[0]);
		while (read(ping[0], &b, 1) == 1)
			if (write(pong[1], &b, 1) != 1)
				die("write");
		return 0;
	}
	close(ping[0]);
	close(pong[1]);
	fprintf(stderr, "pids %d %d\n", getpid(), child);
	if (wait_go && read(0, &b, 1) < 0)
		die("read stdin");
	t0 = now_s();
	for (i = 0; i < rounds; i++)
		if (write(ping[1], &b, 1) != 1 || read(pong[0], &b, 1) != 1)
			die("ping-pong");
	t1 = now_s();
	close(ping[1]);
	waitpid(child, NULL, 0);
	printf("%ld round trips in %.3f s: %.3f us each\n", rounds, t1 - t0,
	       (t1 - t0) * 1e6 / rounds);
	return 0;
}
