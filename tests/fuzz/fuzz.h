/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cosched-fuzz: seeded random operations on the module's user ABI
 * (/dev/cosched ioctls, mmap, poll, sysfs) from several processes,
 * threads and two uids.  See README.md.
 */
#ifndef COSCHED_FUZZ_H
#define COSCHED_FUZZ_H

#include <setjmp.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/cosched.h>

typedef uint64_t u64;
typedef uint32_t u32;
typedef int64_t s64;
typedef int32_t s32;

#define MAX_PROCS	16
#define MAX_THREADS	8
/* Log slots per process: its threads, then forked children, extra threads. */
#define LOG_CHILD	MAX_THREADS
#define LOG_EXTRA	(MAX_THREADS + 1)
#define LOG_SLOTS	(MAX_THREADS + 2)
#define LOG_DEPTH	48
#define NSLOTS		12	/* /dev/cosched descriptors per process */
#define NOTHER		6	/* sockets, pipes, io_uring per process */
#define NMAPS		10	/* mappings per thread */
#define NKIDS		3	/* live forked children per thread */
#define MAX_PUB		256	/* published endpoints, all processes */
#define NERR		256	/* errno histogram; two codes are faults: */
#define ERR_SEGV	254
#define ERR_BUS		255
#define NOBODY		65534

/* ---- random numbers ------------------------------------------------- */

struct rng {
	u64 s;
};

u64 rng_next(struct rng *r);
/* [0, n); 0 for n == 0. */
u64 rng_below(struct rng *r, u64 n);
bool rng_chance(struct rng *r, u32 percent);
/* A well-mixed seed for (base, a, b). */
u64 seed_mix(u64 base, u64 a, u64 b);

/* ---- argument generators (gen.c) ------------------------------------ */

u64 gen_u64(struct rng *r);		/* edge values and random ones */
u32 gen_u32(struct rng *r);
u64 gen_job(struct rng *r);		/* mostly a small shared pool */
u32 gen_rank(struct rng *r);		/* mostly small, sometimes huge */
u64 gen_timeout(struct rng *r);		/* mostly short; 0 and huge too */
/* A size for an ioctl's size field around the struct's real size. */
u32 gen_size(struct rng *r, u32 real);
/* A pointer for an ioctl argument: buf, NULL, unmapped, straddling. */
void *gen_ptr(struct rng *r, void *buf, u32 size);
/* A mapping length around the page size and ring size. */
size_t gen_maplen(struct rng *r, size_t ring);
int gen_prot(struct rng *r);
int gen_mapflags(struct rng *r);
/* Text for a sysfs file: valid_names (space separated) or a number. */
void gen_sysfs_value(struct rng *r, const char *name, const char *cur,
		     char *out, size_t size);
void gen_init(void);

/* ---- shared state (one memfd, survives fork and exec) --------------- */

struct op_rec {
	u64 seq;
	u64 a, b;
	u32 op;
	s32 ret;		/* 0, errno, or ERR_SEGV/ERR_BUS */
};

struct thread_log {
	u64 nops;
	u64 op_start_ns;	/* of the current op; 0 between ops */
	u64 seed;
	pid_t tid;
	u32 head;
	struct op_rec cur;
	struct op_rec rec[LOG_DEPTH];
};

struct pub_ep {
	u64 job;
	u32 rank;
	u32 uid;
	u32 valid;
};

#define NOPS_MAX	64

struct shared {
	u64 seed;
	int stop;
	u64 total_ops;
	u64 deadline_ns;
	int nprocs;
	pid_t worker[MAX_PROCS];
	struct thread_log log[MAX_PROCS][LOG_SLOTS];
	struct pub_ep pub[MAX_PUB];
	u64 hist[NOPS_MAX][NERR];
};

extern struct shared *sh;

/* ---- per-process and per-thread state -------------------------------- */

struct proc_state {
	int fd[NSLOTS];		/* -1 when free; threads race on purpose */
	int other[NOTHER];
	int extra_threads;
	u32 uid;
	int proc;
};

struct map {
	void *addr;
	size_t len;
	int prot;
	int kind;		/* MAP_CTRL or MAP_RING */
};

enum { MAP_NONE, MAP_CTRL, MAP_RING };

struct ctx {
	struct rng r;		/* arguments: reseeded per op from seed, seq */
	struct rng pick;	/* which op comes next */
	u64 seed;
	struct proc_state *ps;
	struct thread_log *log;
	int proc, slot;
	int depth;		/* 0 worker thread, 1 extra thread, 2 child */
	struct map maps[NMAPS];
	pid_t kids[NKIDS];
	int epfd;
	bool verbose;
	u64 seq;
};

extern size_t page_size;
extern size_t ring_size;	/* from COSCHED_IOC_INFO, or a guess */
extern const char *self_exe;
extern int shm_fd;

/* ---- ops (ops*.c) --------------------------------------------------- */

typedef int (*op_fn)(struct ctx *c, u64 *a, u64 *b);

struct op_desc {
	const char *name;
	op_fn fn;
	u32 weight;
	u32 depth_max;		/* highest ctx depth that may run it */
};

extern const struct op_desc ops[];
extern const int nr_ops;

/* Run one randomly chosen op with logging; returns the op index. */
int op_run_one(struct ctx *c);
/* Run n ops (or until stop/deadline); returns how many ran. */
u64 op_run(struct ctx *c, u64 n);
void ctx_init(struct ctx *c, struct proc_state *ps, int proc, int slot,
	      int depth, u64 seed);
void ctx_release(struct ctx *c);
void proc_state_init(struct proc_state *ps, int proc, u32 uid);

/* Helpers shared by the op files. */
int slot_fd(struct ctx *c);		/* a random slot's fd, maybe -1 */
int any_fd(struct ctx *c);		/* also stale and odd fds */
int fault_guard_enter(void);		/* sigsetjmp wrapper, see ops.c */
void fault_guard_leave(void);
extern __thread sigjmp_buf fault_jb;
extern __thread volatile int fault_armed;
/* Arm a one-shot SIGUSR1 to this thread after ns (0 disarms). */
void intr_arm(u64 ns);
void signals_init(void);
int kids_add(struct ctx *c, pid_t pid);
void kids_reap(struct ctx *c, bool kill_all);

/* ---- log (log.c) ---------------------------------------------------- */

void log_begin(struct ctx *c, int op);
void log_end(struct ctx *c, int op, int ret, u64 a, u64 b);
void log_dump_all(const char *why);
void log_summary(FILE *out);
u64 now_ns(void);

/* ---- uids (uid.c) --------------------------------------------------- */

/* Let group gid open the device (chgrp); returns 0 or -errno. */
int uid_prepare_device(unsigned int gid);
/* setgroups({gid}), setresgid, setresuid to uid; exits on failure. */
void uid_become(unsigned int uid, unsigned int gid);

/* ---- sysfs (sysfs.c) -------------------------------------------------- */

int sysfs_fuzz_write(struct ctx *c, u64 *a, u64 *b);
int sysfs_fuzz_read(struct ctx *c, u64 *a, u64 *b);
void sysfs_dump_tunables(FILE *out);

#endif
