/* SPDX-License-Identifier: GPL-2.0 */
/*
 * msgbench: what the message benchmarks (raw_ring, cosched_pingpong,
 * wake_cost) share, so that their command lines, iteration counts,
 * statistics and output lines are the same and their numbers comparable.
 *
 * Command line of every message benchmark:
 *   -s sizes    comma list, K and M suffixes (default 8,64,512,4K,32K,256K,1M)
 *   -n iters    round trips per size up to 4 KiB, fewer above (default 2000)
 *   -w warmup   round trips before the measured ones (default iters / 10)
 *   -m mode     how the receiver waits (each benchmark lists its own)
 *   -t what     lat, bw or both (default both)
 *   -B bytes    bytes streamed per bandwidth measurement (default 32M)
 *   -q          no clock read per round trip (for counting system calls)
 * Output: one line per size, "bench=... size=... lat_ns_p50=... ...".
 */
#ifndef MSGBENCH_H
#define MSGBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MB_MAX_SIZES	16
#define MB_WHAT_LAT	1
#define MB_WHAT_BW	2

struct mb_opts {
	size_t sizes[MB_MAX_SIZES];
	int nsizes;
	long iters;
	long warmup;		/* -1: iters / 10 */
	const char *mode;
	int what;
	size_t bw_bytes;
	bool quiet;
};

/* One size's results; a negative field is printed as n/a. */
struct mb_result {
	long iters;
	double lat_p50, lat_p99;	/* one-way ns: half a round trip */
	double mbps;			/* streaming, 10^6 bytes per second */
	double cpu_per_msg;		/* ns of CPU, both processes */
	double doorbell_frac;		/* sends that rang, both directions */
	double blocks_per_msg;		/* receives that blocked in the kernel */
};

/* Parse argv into o; usage names the benchmark's -m choices.  Exits on error. */
void mb_parse(struct mb_opts *o, int argc, char **argv, const char *modes,
	      const char *def_mode);

/* Round trips measured at size: fewer for large messages, at least 20. */
long mb_iters(const struct mb_opts *o, size_t size);
long mb_warmup(const struct mb_opts *o, size_t size);
/* Messages streamed at size for bandwidth. */
long mb_bw_msgs(const struct mb_opts *o, size_t size);

uint64_t mb_now_ns(void);
/* CPU time of the calling process (all threads), ns. */
uint64_t mb_cpu_ns(void);
/* Pin the calling process to cpu, or exit. */
void mb_pin(int cpu);
/* Shared anonymous memory that a fork()ed child keeps; exits on error. */
void *mb_shared(size_t len);

/* Sort v[0..n) and return the value at fraction q (0.5, 0.99). */
double mb_quantile(uint64_t *v, long n, double q);

/* Print one result line; extra is appended verbatim (may be NULL). */
void mb_print(const char *bench, const char *mode, const char *policy,
	      size_t size, const struct mb_result *r, const char *extra);

/*
 * A two-party barrier on shared memory that never enters the kernel:
 * its cost stays out of the system-call counts.  Each side passes its
 * own step counter; both must call it the same number of times.
 */
struct mb_sync {
	uint64_t arrived[2];
};
void mb_barrier(struct mb_sync *s, int side, uint64_t *step);

static inline void mb_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* Counters a transport may keep (cosched_stats); all zero if it has none. */
struct mb_counters {
	uint64_t sends, doorbells, blocks;
};

/*
 * A transport between the two processes: side 0 (the parent, CPU 0) and
 * side 1 (the forked child, CPU 1).  setup runs before the fork, open in
 * each process after it; send and recv return 0 / the length, or -errno.
 */
struct mb_ops {
	const char *bench;
	int (*setup)(void *ctx);
	int (*open)(void *ctx, int side);
	void (*close)(void *ctx);
	size_t (*max_msg)(void *ctx);
	int (*send)(void *ctx, const void *buf, size_t len);
	long (*recv)(void *ctx, void *buf, size_t len);
	void (*counters)(void *ctx, struct mb_counters *c);
};

/*
 * Ping-pong (latency, CPU per message, counters) and streaming
 * (bandwidth) at every size of o between two pinned processes; prints
 * one line per size.  Returns the exit status.
 */
int mb_run(const struct mb_opts *o, const struct mb_ops *ops, void *ctx,
	   const char *policy);

#endif /* MSGBENCH_H */
