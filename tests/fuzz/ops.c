// SPDX-License-Identifier: GPL-2.0
/*
 * The operation table, the dispatcher, and what the op files share:
 * descriptor slots, fault guards, the interrupt timer, child tracking.
 */
#define _GNU_SOURCE
#include "ops.h"

#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * Weights: the ioctls and mappings dominate; what creates processes is
 * rare because under TCG a fork costs as much as a thousand ioctls.
 * depth_max: 0 worker threads only, 1 also extra threads, 2 also forked
 * and exec()ed children.
 */
const struct op_desc ops[] = {
	{ "open",	  op_open,	   40, 2 },
	{ "close",	  op_close,	   25, 2 },
	{ "dup",	  op_dup,	    5, 2 },
	{ "info",	  op_info,	   15, 2 },
	{ "create",	  op_create,	   45, 2 },
	{ "create_bad",	  op_create_bad,   20, 2 },
	{ "destroy",	  op_destroy,	   12, 2 },
	{ "doorbell",	  op_doorbell,	   60, 2 },
	{ "doorbell_bad", op_doorbell_bad, 20, 2 },
	{ "wait",	  op_wait,	   25, 2 },
	{ "yield",	  op_yield,	   20, 2 },
	{ "stats",	  op_stats,	   15, 2 },
	{ "hook",	  op_hook,	   15, 2 },
	{ "ioctl_sized",  op_ioctl_sized,  40, 2 },
	{ "ioctl_raw",	  op_ioctl_raw,	   20, 2 },
	{ "poll",	  op_poll,	   20, 2 },
	{ "epoll",	  op_epoll,	   10, 2 },
	{ "fileop",	  op_fileop,	    8, 2 },
	{ "other_fd",	  op_other_fd,	    4, 1 },
	{ "mmap_ctrl",	  op_mmap_ctrl,	   30, 2 },
	{ "mmap_ring",	  op_mmap_ring,	   35, 2 },
	{ "munmap",	  op_munmap,	   25, 2 },
	{ "mem_read",	  op_mem_read,	   40, 2 },
	{ "mem_write",	  op_mem_write,	   40, 2 },
	{ "mprotect",	  op_mprotect,	    8, 2 },
	{ "madvise",	  op_madvise,	    6, 2 },
	{ "mremap",	  op_mremap,	    6, 2 },
	{ "fork",	  op_fork,	    2, 0 },
	{ "exec",	  op_exec,	    1, 0 },
	{ "thread",	  op_thread,	    2, 0 },
	{ "kill",	  op_kill,	    3, 0 },
	{ "reap",	  op_reap,	    4, 0 },
	{ "sched",	  op_sched,	    4, 2 },
	{ "affinity",	  op_affinity,	    4, 2 },
	{ "sysfs_write",  op_sysfs_write,   6, 0 },
	{ "sysfs_read",	  op_sysfs_read,    6, 1 },
};

const int nr_ops = sizeof(ops) / sizeof(ops[0]);

__thread sigjmp_buf fault_jb;
__thread volatile int fault_armed;

static void on_fault(int sig)
{
	if (fault_armed) {
		fault_armed = 0;
		siglongjmp(fault_jb, sig == SIGSEGV ? ERR_SEGV : ERR_BUS);
	}
	/* A fault outside a guarded access is the fuzzer's own bug. */
	void *bt[32];
	int n;

	signal(sig, SIG_DFL);
	n = backtrace(bt, 32);
	backtrace_symbols_fd(bt, n, 2);
	raise(sig);
}

static void on_intr(int sig)
{
	(void)sig;
}

void signals_init(void)
{
	struct sigaction sa = { 0 };
	void *bt[4];

	backtrace(bt, 4);	/* loads libgcc now, not in a signal handler */

	sa.sa_handler = on_fault;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	/* No SA_RESTART: SIGUSR1 is how a blocking call gets cut short. */
	sa.sa_handler = on_intr;
	sa.sa_flags = 0;
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static __thread timer_t intr_timer;
static __thread pid_t intr_pid;

void intr_arm(u64 ns)
{
	struct itimerspec its = { 0 };
	pid_t pid = getpid();

	if (intr_pid != pid) {
		struct sigevent sev = { 0 };

		/* Timers do not survive fork(): make this process's own. */
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev.sigev_signo = SIGUSR1;
		sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
		if (timer_create(CLOCK_MONOTONIC, &sev, &intr_timer))
			return;
		intr_pid = pid;
	}
	its.it_value.tv_sec = (time_t)(ns / 1000000000ull);
	its.it_value.tv_nsec = (long)(ns % 1000000000ull);
	/*
	 * Again and again until disarmed: a thread preempted between arming
	 * and its blocking call (a SCHED_IDLE one on a busy debug kernel)
	 * takes the first signal before it blocks, and would then sleep
	 * through a wait with no timeout (debug run 5's "no progress").
	 */
	its.it_interval = its.it_value;
	timer_settime(intr_timer, 0, &its, NULL);
}

int slot_fd(struct ctx *c)
{
	return __atomic_load_n(&c->ps->fd[rng_below(&c->r, NSLOTS)],
			       __ATOMIC_RELAXED);
}

int any_fd(struct ctx *c)
{
	switch (rng_below(&c->r, 10)) {
	case 0:
		return -1;
	case 1:
		return (int)rng_below(&c->r, 64);
	case 2:
		return c->ps->other[rng_below(&c->r, NOTHER)];
	default:
		return slot_fd(c);
	}
}

int kids_add(struct ctx *c, pid_t pid)
{
	for (int i = 0; i < NKIDS; i++)
		if (!c->kids[i]) {
			c->kids[i] = pid;
			return 0;
		}
	/* Full: the oldest goes, killed mid-whatever. */
	kill(c->kids[0], SIGKILL);
	while (waitpid(c->kids[0], NULL, 0) < 0 && errno == EINTR)
		;
	memmove(c->kids, c->kids + 1, (NKIDS - 1) * sizeof(pid_t));
	c->kids[NKIDS - 1] = pid;
	return 0;
}

void kids_reap(struct ctx *c, bool kill_all)
{
	for (int i = 0; i < NKIDS; i++) {
		if (!c->kids[i])
			continue;
		if (kill_all)
			kill(c->kids[i], SIGKILL);
		if (waitpid(c->kids[i], NULL, kill_all ? 0 : WNOHANG) != 0)
			c->kids[i] = 0;
	}
}

void proc_state_init(struct proc_state *ps, int proc, u32 uid)
{
	memset(ps, 0, sizeof(*ps));
	for (int i = 0; i < NSLOTS; i++)
		ps->fd[i] = -1;
	for (int i = 0; i < NOTHER; i++)
		ps->other[i] = -1;
	ps->proc = proc;
	ps->uid = uid;
}

void ctx_init(struct ctx *c, struct proc_state *ps, int proc, int slot,
	      int depth, u64 seed)
{
	memset(c, 0, sizeof(*c));
	c->seed = seed;
	c->pick.s = seed;
	c->r.s = seed;
	c->ps = ps;
	c->proc = proc;
	c->slot = slot;
	c->depth = depth;
	c->epfd = -1;
	c->log = &sh->log[proc][slot];
	c->log->seed = seed;
	c->log->tid = (pid_t)syscall(SYS_gettid);
}

void ctx_release(struct ctx *c)
{
	kids_reap(c, true);
	for (int i = 0; i < NMAPS; i++)
		if (c->maps[i].addr)
			munmap(c->maps[i].addr, c->maps[i].len);
	if (c->epfd >= 0)
		close(c->epfd);
	/* Each thread's timer is the process's: delete it, or they pile up. */
	if (intr_pid == getpid()) {
		timer_delete(intr_timer);
		intr_pid = 0;
	}
}

static u32 total_weight(int depth)
{
	u32 w = 0;

	for (int i = 0; i < nr_ops; i++)
		if (depth <= (int)ops[i].depth_max)
			w += ops[i].weight;
	return w;
}

int op_run_one(struct ctx *c)
{
	u64 pick = rng_below(&c->pick, total_weight(c->depth)), a = 0, b = 0;
	int op, ret;

	/*
	 * Op number seq of a thread draws the same arguments whatever the
	 * ops before it found: a replay diverges only where state differs.
	 */
	c->r.s = seed_mix(c->seed, c->seq, 0x5eed);
	for (op = 0; op < nr_ops; op++) {
		if (c->depth > (int)ops[op].depth_max)
			continue;
		if (pick < ops[op].weight)
			break;
		pick -= ops[op].weight;
	}
	log_begin(c, op);
	ret = ops[op].fn(c, &a, &b);
	log_end(c, op, ret, a, b);
	return op;
}

u64 op_run(struct ctx *c, u64 n)
{
	u64 i;

	for (i = 0; i < n; i++) {
		if (__atomic_load_n(&sh->stop, __ATOMIC_RELAXED))
			break;
		if (sh->deadline_ns && !(i & 63) && now_ns() > sh->deadline_ns)
			break;
		op_run_one(c);
	}
	return i;
}
