// SPDX-License-Identifier: GPL-2.0
/*
 * The operation log: every thread keeps its last LOG_DEPTH operations
 * (and the one it is in) in shared memory, so that the monitor can print
 * what everyone did when the kernel warns, a process dies or the run
 * stops making progress.  Plus the per-op errno histogram of the summary.
 */
#define _GNU_SOURCE
#include "fuzz.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

void log_begin(struct ctx *c, int op)
{
	struct thread_log *l = c->log;

	l->cur.op = (u32)op;
	l->cur.seq = c->seq;
	l->cur.a = l->cur.b = 0;
	__atomic_store_n(&l->op_start_ns, now_ns(), __ATOMIC_RELEASE);
	if (c->verbose)
		fprintf(stderr, "[%d.%d #%llu] %s ...\n", c->proc, c->slot,
			(unsigned long long)c->seq, ops[op].name);
}

void log_end(struct ctx *c, int op, int ret, u64 a, u64 b)
{
	struct thread_log *l = c->log;
	u32 h = __atomic_fetch_add(&l->head, 1, __ATOMIC_RELAXED) % LOG_DEPTH;

	l->rec[h] = (struct op_rec){ c->seq, a, b, (u32)op, ret };
	__atomic_store_n(&l->op_start_ns, 0, __ATOMIC_RELEASE);
	__atomic_add_fetch(&l->nops, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&sh->total_ops, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&sh->hist[op][ret < 0 || ret >= NERR ? NERR - 3 : ret], 1,
			   __ATOMIC_RELAXED);
	if (c->verbose)
		fprintf(stderr, "[%d.%d #%llu] %s a=%#llx b=%#llx -> %s\n",
			c->proc, c->slot, (unsigned long long)c->seq,
			ops[op].name, (unsigned long long)a,
			(unsigned long long)b,
			ret == ERR_SEGV ? "SIGSEGV" : ret == ERR_BUS ? "SIGBUS" :
			ret ? strerrorname_np(ret) ?: "E?" : "ok");
	c->seq++;
}

static const char *ret_name(int ret)
{
	if (ret == ERR_SEGV)
		return "SIGSEGV";
	if (ret == ERR_BUS)
		return "SIGBUS";
	if (!ret)
		return "ok";
	return strerrorname_np(ret) ?: "E?";
}

static void dump_one(int p, int s, u64 now)
{
	struct thread_log *l = &sh->log[p][s];
	u32 head = __atomic_load_n(&l->head, __ATOMIC_ACQUIRE);
	u64 start = __atomic_load_n(&l->op_start_ns, __ATOMIC_ACQUIRE);
	u32 n = head < LOG_DEPTH ? head : LOG_DEPTH;

	if (!l->nops && !start)
		return;
	fprintf(stderr, "# proc %d slot %d (tid %d, seed %#llx): %llu ops\n",
		p, s, l->tid, (unsigned long long)l->seed,
		(unsigned long long)l->nops);
	for (u32 i = head - n; i != head; i++) {
		struct op_rec *r = &l->rec[i % LOG_DEPTH];

		fprintf(stderr, "#   #%llu %s a=%#llx b=%#llx -> %s\n",
			(unsigned long long)r->seq, ops[r->op].name,
			(unsigned long long)r->a, (unsigned long long)r->b,
			ret_name(r->ret));
	}
	if (start && start < now)
		fprintf(stderr, "#   #%llu %s: in it for %llu ms\n",
			(unsigned long long)l->cur.seq, ops[l->cur.op].name,
			(unsigned long long)((now - start) / 1000000));
}

void log_dump_all(const char *why)
{
	u64 now = now_ns();

	fprintf(stderr, "# ==== operation log (%s), seed %llu ====\n", why,
		(unsigned long long)sh->seed);
	for (int p = 0; p < sh->nprocs; p++)
		for (int s = 0; s < LOG_SLOTS; s++)
			dump_one(p, s, now);
	fprintf(stderr, "# ==== end of operation log ====\n");
}

void log_summary(FILE *out)
{
	fprintf(out, "# %-14s %9s  results (errno: count)\n", "op", "count");
	for (int op = 0; op < nr_ops; op++) {
		char line[1024];
		int len = 0;
		u64 total = 0;

		for (int e = 0; e < NERR; e++) {
			u64 n = sh->hist[op][e];

			if (!n)
				continue;
			total += n;
			if (len < (int)sizeof(line) - 40)
				len += snprintf(line + len, sizeof(line) - len,
						" %s:%llu", ret_name(e),
						(unsigned long long)n);
		}
		line[len] = 0;
		fprintf(out, "# %-14s %9llu %s\n", ops[op].name,
			(unsigned long long)total, line);
	}
}
