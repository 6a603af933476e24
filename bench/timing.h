/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timing.h - the clock, CPU pinning and CPU hog that the latency
 * benchmarks (tcp_wake.c, net_wake.c, vcpu_stall.c) share.
 */
#ifndef COSCHED_BENCH_TIMING_H
#define COSCHED_BENCH_TIMING_H

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns: comparable across processes and CPUs. */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Run the calling thread on @cpu only; 0 or -1 with errno. */
static inline int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * A child that spins on @cpu until killed, or until its parent dies (a
 * benchmark killed by its time limit leaves no hog behind).  Its pid, or
 * -1 with errno if it could not be started or pinned.
 */
static inline pid_t spawn_hog(int cpu)
{
	pid_t parent = getpid(), pid = fork();
	cpu_set_t set;
	int err;

	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)	/* it died before prctl() */
			_exit(0);
		for (;;)
			;
	}
	if (pid < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(pid, sizeof(set), &set)) {
		err = errno;
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		errno = err;
		return -1;
	}
	return pid;
}

#endif /* COSCHED_BENCH_TIMING_H */
