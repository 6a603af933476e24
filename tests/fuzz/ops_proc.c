// SPDX-License-Identifier: GPL-2.0
/*
 * Processes and threads: fork (the child does a few ops and exits, or is
 * killed mid-operation), exec of the fuzzer itself in a short mode that
 * keeps the descriptors (while another thread of the exec()ing process is
 * in an ioctl), short-lived threads, signals to children, scheduling
 * class, nice and CPU changes.
 */
#define _GNU_SOURCE
#include "ops.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int shm_fd = -1;	/* main.c: the shared state's memfd, kept over exec */

static void child_setup(struct ctx *c, u64 seed)
{
	/* Dies with the thread that forked it: no orphan outlives a run. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	memset(c->kids, 0, sizeof(c->kids));
	c->depth = 2;
	c->slot = LOG_CHILD;
	c->log = &sh->log[c->proc][LOG_CHILD];
	c->log->tid = getpid();
	c->log->seed = seed;
	c->seed = seed;
	c->pick.s = seed;
	c->seq = 0;
}

OP(fork)
{
	u64 seed = rng_next(&c->r), n = 3 + rng_below(&c->r, 40);
	pid_t pid;

	*a = seed;
	*b = n;
	pid = fork();
	if (pid < 0)
		return errno;
	if (!pid) {
		child_setup(c, seed);
		op_run(c, n);
		if (n & 1)	/* exit with everything still open and mapped */
			_exit(0);
		ctx_release(c);
		_exit(0);
	}
	kids_add(c, pid);
	if (rng_chance(&c->r, 25)) {
		/* Killed while it is somewhere in its first ops. */
		for (volatile u64 i = rng_below(&c->r, 200000); i; i--)
			;
		kill(pid, SIGKILL);
	}
	return 0;
}

static void *exec_sibling(void *arg)
{
	struct ctx *c = arg;

	c->depth = 2;
	op_run(c, ~0ull);	/* until exec() ends this thread */
	return NULL;
}

OP(exec)
{
	u64 seed = rng_next(&c->r), n = 5 + rng_below(&c->r, 40);
	bool sibling = rng_chance(&c->r, 50);
	pid_t pid;

	*a = seed;
	*b = n | (u64)sibling << 32;
	pid = fork();
	if (pid < 0)
		return errno;
	if (!pid) {
		char fds[NSLOTS * 12] = "", arg_seed[24], arg_n[24], arg_shm[12],
		     arg_proc[12], arg_uid[12];
		char *argv[] = { "cosched-fuzz", "--exec-child", "--seed", arg_seed,
				 "--ops", arg_n, "--shm", arg_shm, "--proc",
				 arg_proc, "--uid", arg_uid, "--fds", fds, NULL };
		pthread_t th;
		struct ctx *sib;

		child_setup(c, seed);
		for (int i = 0; i < NSLOTS; i++) {
			size_t l = strlen(fds);

			snprintf(fds + l, sizeof(fds) - l, "%s%d", i ? "," : "",
				 c->ps->fd[i]);
		}
		snprintf(arg_seed, sizeof(arg_seed), "%llu", (unsigned long long)seed);
		snprintf(arg_n, sizeof(arg_n), "%llu", (unsigned long long)n);
		snprintf(arg_shm, sizeof(arg_shm), "%d", shm_fd);
		snprintf(arg_proc, sizeof(arg_proc), "%d", c->proc);
		snprintf(arg_uid, sizeof(arg_uid), "%u", c->ps->uid);
		if (sibling) {
			sib = malloc(sizeof(*sib));
			if (sib) {
				*sib = *c;
				memset(sib->maps, 0, sizeof(sib->maps));
				sib->seed = sib->pick.s = seed ^ 1;
				sib->epfd = -1;
				if (!pthread_create(&th, NULL, exec_sibling, sib))
					usleep((useconds_t)(seed % 2000));
			}
		}
		execv(self_exe, argv);
		fprintf(stderr, "# exec %s: %s\n", self_exe, strerror(errno));
		_exit(126);
	}
	kids_add(c, pid);
	return 0;
}

static void *extra_thread(void *arg)
{
	struct ctx *c = arg;

	u64 n = c->seq;

	c->log->tid = (pid_t)syscall(SYS_gettid);
	c->seq = 0;
	op_run(c, n);
	ctx_release(c);
	__atomic_sub_fetch(&c->ps->extra_threads, 1, __ATOMIC_RELAXED);
	free(c);
	return NULL;
}

OP(thread)
{
	struct ctx *t;
	pthread_attr_t at;
	pthread_t th;
	u64 seed = rng_next(&c->r);
	int r;

	if (__atomic_add_fetch(&c->ps->extra_threads, 1, __ATOMIC_RELAXED) > 2) {
		__atomic_sub_fetch(&c->ps->extra_threads, 1, __ATOMIC_RELAXED);
		return EAGAIN;
	}
	t = malloc(sizeof(*t));
	if (!t)
		return ENOMEM;
	ctx_init(t, c->ps, c->proc, LOG_EXTRA, 1, seed);
	t->verbose = c->verbose;
	/* Its op count until it starts (extra_thread() resets it). */
	t->seq = 10 + rng_below(&c->r, 100);	/* its op count, then reset */
	*a = seed;
	*b = t->seq;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	r = pthread_create(&th, &at, extra_thread, t);
	pthread_attr_destroy(&at);
	if (r) {
		free(t);
		__atomic_sub_fetch(&c->ps->extra_threads, 1, __ATOMIC_RELAXED);
	}
	return r;
}

OP(kill)
{
	static const int sigs[] = { SIGKILL, SIGKILL, SIGTERM, SIGSTOP, SIGCONT };
	int i = (int)rng_below(&c->r, NKIDS);
	int sig = sigs[rng_below(&c->r, 5)];

	*a = (u64)c->kids[i];
	*b = (u64)sig;
	if (!c->kids[i])
		return ESRCH;
	return kill(c->kids[i], sig) ? errno : 0;
}

OP(reap)
{
	(void)a;
	(void)b;
	kids_reap(c, false);
	return 0;
}

OP(sched)
{
	struct sched_param sp = { 0 };
	static const int pol[] = { SCHED_OTHER, SCHED_OTHER, SCHED_BATCH, SCHED_IDLE };
	int r;

	*a = rng_below(&c->r, 4);
	switch (*a) {
	case 0:
		*b = rng_below(&c->r, 12);
		r = setpriority(PRIO_PROCESS, 0, (int)*b);
		break;
	case 1:
		*b = (u64)pol[rng_below(&c->r, 4)];
		r = sched_setscheduler(0, (int)*b, &sp);
		break;
	case 2:
		r = sched_yield();
		break;
	default:
		r = sched_setscheduler(0, SCHED_OTHER, &sp) ||
		    setpriority(PRIO_PROCESS, 0, 0);
		break;
	}
	return r ? errno : 0;
}

OP(affinity)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;
	u64 mask = 1 + rng_below(&c->r, (1ull << (n < 8 ? n : 8)) - 1);

	CPU_ZERO(&set);
	for (int i = 0; i < 8; i++)
		if (mask & (1ull << i))
			CPU_SET(i, &set);
	*a = mask;
	(void)b;
	return sched_setaffinity(0, sizeof(set), &set) ? errno : 0;
}
