// SPDX-License-Identifier: GPL-2.0
/*
 * wake_cost: what it costs to wake a receiver that has blocked, from
 * the sender's call to the sleeper's return, through cosched (the block
 * of spin-then-block: COSCHED_IOC_WAIT, ended by a send's doorbell) and
 * through a bare futex pair on shared memory (FUTEX_WAIT / FUTEX_WAKE),
 * between the same two pinned processes.
 *
 * The sleeper (CPU 1) waits; the waker (CPU 0) pauses GAP_NS so that the
 * sleeper is surely asleep, reads the clock, and sends (-m block: an
 * 8-byte cosched_send()) or stores and wakes (-m futex).  The sleeper
 * reads the clock as soon as its wait returns (CLOCK_MONOTONIC is one
 * clock for both CPUs) and hands the time back through shared memory.
 * slept=K/N on the output line counts the waits that really slept in
 * the kernel; any other wait found its message without sleeping.
 *
 * For -m block the active policy must make senders ring (sb, dcs-sb,
 * pb-sb, ...) and spin_us should be 0, so the wait blocks at once:
 *   echo sb > /sys/kernel/cosched/policy; echo 0 > /sys/kernel/cosched/spin_us
 *
 * usage: wake_cost [-n iters] [-w warmup] [-m block|futex]
 */
#define _GNU_SOURCE
#include <cosched.h>

#include "msgbench.h"

#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GAP_NS		2000000
#define MSG_LEN		8

struct wake_shm {
	struct mb_sync sync;
	uint32_t word;		/* futex: 1 = woken */
	uint64_t t1;		/* sleeper: when its wait returned */
	uint64_t ack;		/* sleeper: waits done */
	uint64_t slept;		/* sleeper: waits that slept */
	int err;
};

static long futex(uint32_t *uaddr, int op, uint32_t val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static struct cosched_ep *ep;
static uint64_t job;
static bool use_futex;

/* One wait of the sleeper; returns whether it slept in the kernel. */
static bool sleep_once(struct wake_shm *shm, unsigned char *buf)
{
	struct cosched_ep_stats a, b;
	bool slept = false;
	ssize_t r;

	if (use_futex) {
		while (!__atomic_load_n(&shm->word, __ATOMIC_ACQUIRE))
			if (futex(&shm->word, FUTEX_WAIT, 0) == 0)
				slept = true;
		shm->t1 = mb_now_ns();
		__atomic_store_n(&shm->word, 0, __ATOMIC_RELAXED);
		return slept;
	}
	cosched_stats(ep, &a);
	r = cosched_recv(ep, NULL, buf, MSG_LEN, COSCHED_MODE_BLOCK);
	shm->t1 = mb_now_ns();
	if (r != MSG_LEN)
		shm->err = r < 0 ? (int)r : -EBADMSG;
	cosched_stats(ep, &b);
	return b.blocks > a.blocks;
}

static void sleeper(struct wake_shm *shm, long total)
{
	unsigned char buf[MSG_LEN];
	uint64_t step = 0;
	long i;

	mb_pin(1);
	if (!use_futex)
		shm->err = cosched_open(&ep, job, 1, 2, 0);
	mb_barrier(&shm->sync, 1, &step);
	for (i = 0; i < total && !shm->err; i++) {
		if (sleep_once(shm, buf))
			__atomic_fetch_add(&shm->slept, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&shm->ack, (uint64_t)i + 1, __ATOMIC_RELEASE);
	}
	mb_barrier(&shm->sync, 1, &step);
	cosched_close(ep);
	_exit(0);
}

static void wake_once(struct wake_shm *shm, const unsigned char *buf)
{
	int r;

	if (use_futex) {
		__atomic_store_n(&shm->word, 1, __ATOMIC_RELEASE);
		futex(&shm->word, FUTEX_WAKE, 1);
		return;
	}
	r = cosched_send(ep, 1, buf, MSG_LEN);
	if (r)
		shm->err = r;
}

int main(int argc, char **argv)
{
	struct mb_result res = { -1, -1, -1, -1, -1, -1, -1 };
	struct timespec gap = { 0, GAP_NS };
	unsigned char buf[MSG_LEN] = { 0 };
	struct wake_shm *shm;
	uint64_t step = 0, t0, *lat;
	long i, n, w, total;
	struct mb_opts o;
	char extra[64];
	int status, r;
	pid_t pid;

	mb_parse(&o, argc, argv, "block|futex", "block");
	use_futex = !strcmp(o.mode, "futex");
	if (!use_futex && strcmp(o.mode, "block")) {
		fprintf(stderr, "wake_cost: -m block or -m futex\n");
		return 2;
	}
	n = o.iters;
	w = o.warmup >= 0 ? o.warmup : n / 10;
	total = w + n;
	lat = calloc((size_t)n, sizeof(*lat));
	shm = mb_shared(sizeof(*shm));
	job = 0x3a4e000000000000ull | (uint64_t)getpid();
	fflush(stdout);
	pid = fork();
	if (pid < 0 || !lat)
		return 2;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		sleeper(shm, total);
	}
	mb_pin(0);
	r = use_futex ? 0 : cosched_open(&ep, job, 0, 2, 0);
	mb_barrier(&shm->sync, 0, &step);
	if (r || shm->err) {
		fprintf(stderr, "wake_cost: open: %s\n",
			strerror(-(r ? r : shm->err)));
		kill(pid, SIGKILL);
		return 1;
	}
	for (i = 0; i < total && !shm->err; i++) {
		nanosleep(&gap, NULL);
		t0 = mb_now_ns();
		wake_once(shm, buf);
		while (__atomic_load_n(&shm->ack, __ATOMIC_ACQUIRE) < (uint64_t)i + 1 &&
		       !shm->err)
			mb_relax();
		if (i >= w)
			lat[i - w] = shm->t1 - t0;
	}
	mb_barrier(&shm->sync, 0, &step);
	waitpid(pid, &status, 0);
	cosched_close(ep);
	if (shm->err) {
		fprintf(stderr, "wake_cost: %s\n", strerror(-shm->err));
		return 1;
	}
	res.iters = n;
	res.lat_p50 = mb_quantile(lat, n, 0.50);
	res.lat_p99 = mb_quantile(lat, n, 0.99);
	snprintf(extra, sizeof(extra), "slept=%llu/%ld",
		 (unsigned long long)shm->slept, total);
	mb_print("wake", o.mode, use_futex ? "-" : "active", use_futex ? 0 : MSG_LEN,
		 &res, extra);
	return 0;
}
