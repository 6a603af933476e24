/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timing.h - the clock and CPU pinning that the latency benchmarks
 * (tcp_wake.c, vcpu_stall.c) share.
 */
#ifndef COSCHED_BENCH_TIMING_H
#define COSCHED_BENCH_TIMING_H

#include <sched.h>
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

#endif /* COSCHED_BENCH_TIMING_H */
