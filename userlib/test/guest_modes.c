// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * guest_modes - libcosched's receive modes and failure cases inside a
 * guest with cosched.ko loaded (run as root by tests/guest/run.sh):
 *
 *   - block and wake under every -sb policy: the receiver really sleeps
 *     (the module counts a block and a wake-up) and gets the message;
 *   - yield under every -sy policy: the receiver lowers itself, and its
 *     nice value is back once the message is in;
 *   - a receiver blocked on a peer that is killed gets -ECONNRESET, and
 *     poll() on its file says EPOLLERR;
 *   - a sender to a closed endpoint gets -EPIPE;
 *   - a process of another user is refused the job (-EPERM), and a
 *     process outside the job cannot map its rings;
 *   - spin "auto" measures a block and wake-up cost;
 *   - callback mode delivers in order and stops while blocked; under
 *     dcs it boosts the creating thread, or with COSCHED_OPEN_CALLBACK
 *     the callback thread;
 *   - a job on two nodes (127.0.0.1 and 127.0.0.2): a blocked receiver
 *     is woken both by its ring and by TCP, under sb and dcs-sb; a killed
 *     TCP peer gives -ECONNRESET;
 *   - a fork()ed child's cosched_close leaves the parent's endpoint
 *     working, with and without COSCHED_OPEN_CALLBACK, and ends;
 *   - in poll, block, yield and callback mode, through the ring and over
 *     TCP: once every message is received, consumed equals arrivals,
 *     poll() says not readable, and pb boosts the idle pair 0 times.
 *
 * TAP output; the last line is "N passed, N failed".
 */
#define _GNU_SOURCE
#include <cosched.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"	/* the control page and the endpoint's file */
#include "tap.h"
#include "util.h"

/* How long a sender holds back so that the spin runs out. */
#define HOLD_MS		30

static uint64_t job_next;

/*
 * Rank 1 of job: wait for "go", hold HOLD_MS, answer "msg"; then, per the
 * last word, exit cleanly (close) or get killed.
 */
static void peer_main(uint64_t job, bool die)
{
	struct cosched_ep *ep;
	char buf[16];

	if (cosched_open(&ep, job, 1, 2, 0))
		_exit(2);
	if (cosched_recv(ep, NULL, buf, sizeof(buf), COSCHED_MODE_POLL) < 0)
		_exit(3);
	nap_ms(HOLD_MS);
	if (send_retry(ep, 0, "msg", 3))
		_exit(4);
	if (die) {
		nap_ms(HOLD_MS);
		raise(SIGKILL);
	}
	/* Wait for the last word, then leave in order. */
	cosched_recv(ep, NULL, buf, sizeof(buf), COSCHED_MODE_POLL);
	cosched_close(ep);
	_exit(0);
}

static pid_t spawn_peer(uint64_t job, bool die)
{
	pid_t pid = fork();

	if (!pid)
		peer_main(job, die);
	return pid;
}

static void test_block(const char *policy)
{
	uint64_t job = ++job_next;
	struct cosched_ep_stats st;
	struct cosched_ep *ep;
	char buf[16];
	ssize_t n;
	pid_t pid;

	sysfs_write("policy", policy);
	if (!check(cosched_open(&ep, job, 0, 2, 0) == 0, "%s: open", policy))
		return;
	cosched_set_spin(ep, 0);
	pid = spawn_peer(job, false);
	send_retry(ep, 1, "go", 2);
	n = cosched_recv(ep, NULL, buf, sizeof(buf), COSCHED_MODE_DEFAULT);
	cosched_stats(ep, &st);
	check(n == 3 && st.blocks >= 1 && st.module.blocks >= 1 &&
	      st.module.wakeups >= 1,
	      "%s: blocked and woken by the message (blocks %llu, wakeups %llu)",
	      policy, (unsigned long long)st.module.blocks,
	      (unsigned long long)st.module.wakeups);
	send_retry(ep, 1, "end", 3);
	waitpid(pid, NULL, 0);
	cosched_close(ep);
}

static void test_yield(const char *policy)
{
	uint64_t job = ++job_next;
	struct cosched_ep_stats st;
	struct cosched_ep *ep;
	int nice_before;
	char buf[16];
	ssize_t n;
	pid_t pid;

	sysfs_write("policy", policy);
	if (!check(cosched_open(&ep, job, 0, 2, 0) == 0, "%s: open", policy))
		return;
	cosched_set_spin(ep, 0);
	nice_before = getpriority(PRIO_PROCESS, 0);
	pid = spawn_peer(job, false);
	send_retry(ep, 1, "go", 2);
	n = cosched_recv(ep, NULL, buf, sizeof(buf), COSCHED_MODE_DEFAULT);
	cosched_stats(ep, &st);
	check(n == 3 && st.yields >= 1 && st.module.yields >= 1,
	      "%s: yielded while waiting (yields %llu) and got the message",
	      policy, (unsigned long long)st.module.yields);
	check(getpriority(PRIO_PROCESS, 0) == nice_before,
	      "%s: nice back to %d after the message", policy, nice_before);
	send_retry(ep, 1, "end", 3);
	waitpid(pid, NULL, 0);
	cosched_close(ep);
}

static int recv_mode(struct cosched_ep *ep, int mode)
{
	char buf[16];

	return (int)cosched_recv(ep, NULL, buf, sizeof(buf), mode);
}

static void test_killed_peer(int mode, const char *name)
{
	uint64_t job = ++job_next;
	struct cosched_ep *ep;
	struct pollfd pfd;
	int ret, fd;
	pid_t pid;

	sysfs_write("policy", "sb");
	if (cosched_open(&ep, job, 0, 2, 0))
		return;
	pid = spawn_peer(job, true);
	send_retry(ep, 1, "go", 2);
	recv_mode(ep, mode);		/* "msg"; then it dies */
	ret = recv_mode(ep, mode);
	check(ret == -ECONNRESET, "%s: receiver whose peer was killed: %d",
	      name, ret);
	waitpid(pid, NULL, 0);
	check(cosched_send(ep, 1, "x", 1) == -EPIPE,
	      "%s: send to the killed peer: -EPIPE", name);
	cosched_close(ep);

	/* poll() on a bare endpoint of a job whose peer dies. */
	job = ++job_next;
	fd = open(COSCHED_DEVICE, O_RDWR);
	{
		struct cosched_create cr = {
			.abi_version = COSCHED_ABI_VERSION,
			.job_id = job,
		};

		if (ioctl(fd, COSCHED_IOC_CREATE, &cr))
			check(false, "raw CREATE: %d", -errno);
	}
	pid = spawn_peer(job, true);
	/* Wait until the peer has joined: its rank answers a doorbell. */
	for (ret = -1; ret && ret < 200; ret++) {
		struct cosched_doorbell db = { .job_id = job, .rank = 1,
					       .count = 1 };

		if (!ioctl(fd, COSCHED_IOC_DOORBELL, &db))
			break;
		nap_ms(5);
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ret = poll(&pfd, 1, 5000);
	check(ret == 1 && (pfd.revents & POLLERR),
	      "%s: poll() on the job's other endpoint: POLLERR (0x%x)", name,
	      pfd.revents);
	close(fd);
}

static void test_closed_peer(void)
{
	uint64_t job = ++job_next;
	struct cosched_ep *ep;
	pid_t pid;

	sysfs_write("policy", "local");
	if (cosched_open(&ep, job, 0, 2, 0))
		return;
	pid = spawn_peer(job, false);
	send_retry(ep, 1, "go", 2);
	recv_mode(ep, COSCHED_MODE_POLL);
	send_retry(ep, 1, "end", 3);
	waitpid(pid, NULL, 0);
	check(cosched_send(ep, 1, "x", 1) == -EPIPE,
	      "sender to a closed endpoint: -EPIPE");
	cosched_close(ep);
}

static void test_other_user(void)
{
	uint64_t job = ++job_next;
	struct cosched_ep *ep;
	int status, fds[2];
	pid_t pid;

	if (cosched_open(&ep, job, 0, 2, 0))
		return;
	if (pipe(fds))
		return;
	pid = fork();
	if (!pid) {
		struct cosched_ep *other;
		void *p;
		int r1, r2, fd;

		/* The device's group, as run.sh set it (udev does on a node). */
		gid_t dev_gid = 4242;

		if (setgroups(1, &dev_gid) || setgid(65534) || setuid(65534))
			_exit(9);
		r1 = cosched_open(&other, job, 1, 2, 0);
		/* A job of its own: rank 0 of our job is not in it. */
		fd = open(COSCHED_DEVICE, O_RDWR);
		{
			struct cosched_create cr = {
				.abi_version = COSCHED_ABI_VERSION,
				.job_id = job + 1000,
			};

			ioctl(fd, COSCHED_IOC_CREATE, &cr);
		}
		p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
			 (off_t)COSCHED_RING_OFFSET(1));
		r2 = p == MAP_FAILED ? -errno : 0;
		if (write(fds[1], &r1, sizeof(r1)) < 0 ||
		    write(fds[1], &r2, sizeof(r2)) < 0)
			_exit(8);
		_exit(0);
	}
	close(fds[1]);
	{
		int r1 = 1, r2 = 1;

		if (read(fds[0], &r1, sizeof(r1)) != sizeof(r1) ||
		    read(fds[0], &r2, sizeof(r2)) != sizeof(r2))
			r1 = r2 = 1;
		/* Jobs are per user: the same id is the other user's own job. */
		check(r1 == 0, "another user's same job id is its own job: %d",
		      r1);
		check(r2 == -ENOENT,
		      "a process outside the job maps its ring 1: %d", r2);
	}
	close(fds[0]);
	waitpid(pid, &status, 0);
	cosched_close(ep);
}

static void test_spin_auto(void)
{
	struct cosched_ep *ep;
	long us;
	int err;

	sysfs_write("policy", "sb");
	if (cosched_open(&ep, ++job_next, 0, 1, 0))
		return;
	err = cosched_set_spin(ep, COSCHED_SPIN_AUTO);
	us = cosched_get_spin(ep);
	check(!err && us > 0 && us < COSCHED_SPIN_MAX_US,
	      "spin auto: measured block and wake-up, spin %ld us (err %d)",
	      us, err);
	cosched_close(ep);
}

struct got {
	int n, bad;
};

static void on_msg(void *arg, int status, uint32_t src, const void *buf,
		   size_t len)
{
	struct got *g = arg;

	if (status || src != 0 || len != sizeof(int) ||
	    *(const int *)buf != g->n)
		g->bad++;
	__atomic_fetch_add(&g->n, 1, __ATOMIC_RELEASE);
}

static void test_callback(void)
{
	struct cosched_ep *ep;
	struct got g = { 0, 0 };
	int i;

	sysfs_write("policy", "sb");
	if (cosched_open(&ep, ++job_next, 0, 1, 0))
		return;
	check(cosched_recv_callback(ep, on_msg, &g, COSCHED_MODE_BLOCK) == 0,
	      "callback mode, blocking");
	for (i = 0; i < 100; i++) {
		cosched_send(ep, 0, &i, sizeof(i));
		if (i % 10 == 0)
			nap_ms(5);	/* let it block now and then */
	}
	for (i = 0; i < 5000 && __atomic_load_n(&g.n, __ATOMIC_ACQUIRE) < 100;
	     i++)
		nap_ms(1);
	check(g.n == 100 && !g.bad, "callback: 100 messages in order (%d, %d bad)",
	      g.n, g.bad);
	nap_ms(20);
	check(cosched_recv_callback(ep, NULL, NULL, 0) == 0,
	      "callback mode stops while its thread is blocked");
	cosched_close(ep);
}

/*
 * Which thread does dcs boost when a message comes for callback mode?
 * Rank 1, another process on CPU 1, sends OWNER_N messages a few ms
 * apart; rank 0 (both its threads) shares CPU 0 with a CPU hog, so that
 * its woken callback thread is not on a CPU when the message comes (on
 * an idle CPU it would run at once and need no boost).  Its callback
 * thread blocks between messages, its creating thread naps.  Each
 * callback notes whether it runs boosted (SCHED_FIFO, boost_mech fifo)
 * and whether the creating thread is.  With COSCHED_OPEN_CALLBACK the
 * module must steer the callback thread and never the creator; without,
 * it steers the creator (the case the flag exists for).
 */
#define OWNER_N	30

struct steer {
	pid_t creator;
	int n, self_fifo, creator_fifo;
};

/* A boost is SCHED_FIFO with reset-on-fork (boost_mech=fifo). */
static bool is_fifo(pid_t tid)
{
	return (sched_getscheduler(tid) & ~SCHED_RESET_ON_FORK) == SCHED_FIFO;
}

static void on_steer(void *arg, int status, uint32_t src, const void *buf,
		     size_t len)
{
	struct steer *st = arg;

	(void)src;
	(void)buf;
	(void)len;
	if (status)
		return;
	st->self_fifo += is_fifo(0);
	st->creator_fifo += is_fifo(st->creator);
	__atomic_fetch_add(&st->n, 1, __ATOMIC_RELEASE);
}

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void steer_sender(uint64_t job)
{
	struct cosched_ep *ep;
	char buf[4];
	int i;

	pin_to(1);
	if (cosched_open(&ep, job, 1, 2, 0))
		_exit(2);
	if (cosched_recv(ep, NULL, buf, sizeof(buf), COSCHED_MODE_POLL) < 0)
		_exit(3);
	for (i = 0; i < OWNER_N; i++) {
		nap_ms(3);
		if (send_retry(ep, 0, &i, sizeof(i)))
			_exit(4);
	}
	cosched_close(ep);
	_exit(0);
}

static void test_callback_owner(unsigned int flags, const char *name)
{
	struct steer st = { .creator = (pid_t)syscall(SYS_gettid) };
	uint64_t job = ++job_next;
	struct cosched_ep_stats es = { 0 };
	struct cosched_ep *ep;
	int i, status = -1;
	cpu_set_t old;
	pid_t pid, hog;

	sysfs_write("policy", "dcs");
	sched_getaffinity(0, sizeof(old), &old);
	pin_to(0);
	hog = fork();
	if (hog == 0)
		for (;;)
			;
	/* The library's thread is made here: it inherits CPU 0. */
	if (cosched_open(&ep, job, 0, 2, flags)) {
		check(0, "%s: open", name);
		kill(hog, SIGKILL);
		waitpid(hog, NULL, 0);
		sched_setaffinity(0, sizeof(old), &old);
		return;
	}
	pid = fork();
	if (pid == 0)
		steer_sender(job);
	check(cosched_recv_callback(ep, on_steer, &st, COSCHED_MODE_BLOCK) == 0,
	      "%s: callback mode", name);
	send_retry(ep, 1, "go", 2);
	for (i = 0; i < 5000 && __atomic_load_n(&st.n, __ATOMIC_ACQUIRE) <
	     OWNER_N; i++)
		nap_ms(1);
	waitpid(pid, &status, 0);
	cosched_recv_callback(ep, NULL, NULL, 0);
	cosched_stats(ep, &es);
	cosched_close(ep);
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);
	sched_setaffinity(0, sizeof(old), &old);
	check(st.n == OWNER_N && WIFEXITED(status) && !WEXITSTATUS(status),
	      "%s: %d of %d messages (module: %llu arrivals, %llu boosts, %llu refused by the budget)",
	      name, st.n, OWNER_N, (unsigned long long)es.module.arrivals,
	      (unsigned long long)es.module.boosts,
	      (unsigned long long)es.module.budget_exhausted);
	if (flags & COSCHED_OPEN_CALLBACK)
		check(st.self_fifo > 0 && st.creator_fifo == 0,
		      "%s: dcs boosts the callback thread (%d of %d callbacks ran boosted), never the creator (%d)",
		      name, st.self_fifo, st.n, st.creator_fifo);
	else
		check(st.self_fifo == 0 && st.creator_fifo > 0,
		      "%s: dcs boosts the creator (%d of %d callbacks saw it boosted), not the callback thread (%d)",
		      name, st.creator_fifo, st.n, st.self_fifo);
}

/*
 * The child of a fork closes its copy of the endpoint: it must end (the
 * owner thread of COSCHED_OPEN_CALLBACK is not in the child, and its
 * condition variable's copy still counts the parent's waiter), and the
 * parent's endpoint must still carry a message to itself.
 */
static void test_fork_close(unsigned int flags, const char *name)
{
	struct cosched_ep *ep;
	int status = -1;
	char buf[8];
	pid_t pid;

	if (!check(cosched_open(&ep, job_next++, 0, 1, flags) == 0,
		   "%s: open", name))
		return;
	nap_ms(20);		/* the owner thread waits for work by now */
	pid = fork();
	if (!pid) {
		alarm(10);
		cosched_close(ep);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "%s: a fork()ed child's cosched_close ends (status %#x)", name,
	      status);
	check(cosched_send(ep, 0, "x", 1) == 0 &&
	      cosched_recv(ep, NULL, buf, sizeof(buf), COSCHED_MODE_POLL) == 1,
	      "%s: ... and the parent's endpoint still works", name);
	cosched_close(ep);
}

/*
 * Ranks 0 and 1 on node 127.0.0.1 (rings), rank 2 on 127.0.0.2 (TCP).
 * Rank 0 blocks; 1 and 2 each send it N messages after a pause, then 2
 * waits for "end" (or dies when told to).
 */
#define NET_N	20

static void net_rank(uint64_t job, uint32_t rank, bool die)
{
	struct cosched_ep *ep;
	char buf[16];
	int i;

	if (cosched_open(&ep, job, rank, 3, 0))
		_exit(2);
	for (i = 0; i < NET_N; i++) {
		nap_ms(5);
		if (send_retry(ep, 0, &i, sizeof(i)))
			_exit(3);
	}
	if (die) {
		nap_ms(500);	/* after rank 1's messages */
		raise(SIGKILL);
	}
	cosched_recv(ep, NULL, buf, sizeof(buf), COSCHED_MODE_BLOCK);
	cosched_close(ep);
	_exit(0);
}

static void test_net(const char *policy, bool die)
{
	uint64_t job = ++job_next;
	int next[3] = { 0, 0, 0 }, bad = 0, got = 0, status, ret, i;
	struct cosched_ep_stats st;
	struct cosched_ep *ep;
	char peers[128];
	pid_t pid[3];
	uint32_t src;

	sysfs_write("policy", policy);
	snprintf(peers, sizeof(peers), "127.0.0.1:%u,127.0.0.1:%u,127.0.0.2:%u",
		 20000 + (unsigned)(job % 10000), 20000 + (unsigned)(job % 10000) + 1,
		 20000 + (unsigned)(job % 10000) + 2);
	setenv("COSCHED_PEERS", peers, 1);
	setenv("COSCHED_CONNECT_TIMEOUT", "20", 1);
	for (i = 1; i < 3; i++) {
		pid[i] = fork();
		if (!pid[i])
			net_rank(job, (uint32_t)i, die && i == 2);
	}
	ret = cosched_open(&ep, job, 0, 3, 0);
	unsetenv("COSCHED_PEERS");
	if (!check(ret == 0, "%s: a job on two nodes opens (%d)", policy, ret))
		goto out;
	cosched_set_spin(ep, 0);
	while (got < 2 * NET_N) {
		ret = (int)cosched_recv(ep, &src, &i, sizeof(i), COSCHED_MODE_BLOCK);
		if (ret < 0)
			break;
		if (src < 1 || src > 2 || i != next[src]++)
			bad++;
		got++;
	}
	cosched_stats(ep, &st);
	check(got == 2 * NET_N && !bad && st.blocks > 0,
	      "%s: blocked %llu times, woken by ring and TCP: %d messages, %d out of order",
	      policy, (unsigned long long)st.blocks, got, bad);
	if (die) {
		ret = (int)cosched_recv(ep, &src, &i, sizeof(i), COSCHED_MODE_BLOCK);
		check(ret == -ECONNRESET,
		      "%s: a blocked receiver whose TCP peer was killed: %d",
		      policy, ret);
		cosched_send(ep, 1, "end", 3);
	} else {
		cosched_send(ep, 1, "end", 3);
		check(cosched_send(ep, 2, "end", 3) == 0, "%s: send over TCP",
		      policy);
	}
out:
	for (i = 1; i < 3; i++)
		waitpid(pid[i], &status, 0);
	cosched_close(ep);
}

/* Two ranks on two nodes, TCP only: the module sees the data arrive. */
static void test_net_hooks(void)
{
	uint64_t job = ++job_next;
	struct cosched_ep_stats st;
	struct cosched_ep *ep;
	char peers[96];
	int i, got = 0, status;
	pid_t pid;

	sysfs_write("policy", "dcs-sb");
	snprintf(peers, sizeof(peers), "127.0.0.1:%u,127.0.0.2:%u",
		 30000 + (unsigned)(job % 10000), 30001 + (unsigned)(job % 10000));
	setenv("COSCHED_PEERS", peers, 1);
	pid = fork();
	if (!pid) {
		if (cosched_open(&ep, job, 1, 2, 0))
			_exit(2);
		for (i = 0; i < 5; i++) {
			nap_ms(20);
			cosched_send(ep, 0, &i, sizeof(i));
		}
		cosched_recv(ep, NULL, &i, sizeof(i), COSCHED_MODE_BLOCK);
		cosched_close(ep);
		_exit(0);
	}
	i = cosched_open(&ep, job, 0, 2, 0);
	unsetenv("COSCHED_PEERS");
	if (!check(i == 0, "TCP only: open (%d)", i))
		goto out;
	cosched_set_spin(ep, 0);
	while (got < 5 &&
	       cosched_recv(ep, NULL, &i, sizeof(i), COSCHED_MODE_BLOCK) > 0)
		got++;
	cosched_stats(ep, &st);
	check(got == 5 && st.module.arrivals >= 5,
	      "TCP only: 5 messages, the module's hooks counted %llu arrivals",
	      (unsigned long long)st.module.arrivals);
	cosched_send(ep, 1, "end", 3);
	cosched_close(ep);
out:
	waitpid(pid, &status, 0);
}

/*
 * True arrival accounting: rank 1 sends CONS_N messages while rank 0
 * waits elsewhere (a pipe), so that every arrival is counted before rank
 * 0 receives them all in one mode.  Then consumed must equal arrivals and
 * poll() must not call the endpoint readable; over TCP under pb, the
 * idle pair must get no boost in a second (a pending count that never
 * returns to 0 gets one every pb period).
 */
#define CONS_N	20

static void consumed_peer(uint64_t job, int go_fd, bool tcp)
{
	struct cosched_ep *ep;
	struct ep_ring *r;
	char buf[16];
	int i, err;

	if (cosched_open(&ep, job, 1, 2, 0))
		_exit(2);
	/* Rank 0 is open: its sockets are in the module's hooks. */
	cosched_recv(ep, NULL, buf, sizeof(buf), COSCHED_MODE_BLOCK);
	/*
	 * Under dcs a send rings a receiver that is off its CPU: wait until
	 * rank 0 sleeps on the pipe, so that every message is counted.
	 */
	r = tcp ? NULL : ep_peer(ep, 0, &err);
	for (i = 0; r && i < 5000 &&
	     __atomic_load_n(&r->v.hdr->on_cpu, __ATOMIC_RELAXED); i++)
		nap_ms(1);
	for (i = 0; i < CONS_N; i++)
		if (send_retry(ep, 0, &i, sizeof(i)))
			_exit(3);
	if (write(go_fd, "s", 1) != 1)
		_exit(4);
	cosched_recv(ep, NULL, buf, sizeof(buf), COSCHED_MODE_BLOCK);
	cosched_close(ep);
	_exit(0);
}

static void on_count(void *arg, int status, uint32_t src, const void *buf,
		     size_t len)
{
	(void)status;
	(void)src;
	(void)buf;
	(void)len;
	__atomic_fetch_add((int *)arg, 1, __ATOMIC_RELEASE);
}

/* Messages the callback thread has seen; it outlives recv_all(). */
static int cons_count;

/* Receive CONS_N in mode; callback: a library thread that polls. */
static int recv_all(struct cosched_ep *ep, int mode)
{
	int i, n = 0;

	if (mode != -1) {
		while (n < CONS_N &&
		       cosched_recv(ep, NULL, &i, sizeof(i), mode) == sizeof(i))
			n++;
		return n;
	}
	__atomic_store_n(&cons_count, 0, __ATOMIC_RELAXED);
	if (cosched_recv_callback(ep, on_count, &cons_count, COSCHED_MODE_POLL))
		return -1;
	for (i = 0; i < 5000 &&
	     __atomic_load_n(&cons_count, __ATOMIC_ACQUIRE) < CONS_N; i++)
		nap_ms(1);
	/* Its next look finds nothing: give it up to 2 s to publish. */
	for (i = 0; i < 2000 && __atomic_load_n(&ep->ctrl->consumed,
						__ATOMIC_RELAXED) !=
		    __atomic_load_n(&ep->ctrl->arrivals, __ATOMIC_RELAXED); i++)
		nap_ms(1);
	return __atomic_load_n(&cons_count, __ATOMIC_ACQUIRE);
}

static void test_consumed(const char *policy, int mode, const char *name,
			  bool tcp)
{
	uint64_t job = ++job_next, arr, cons, boosts;
	struct cosched_ep_stats st;
	struct cosched_ep *ep;
	int fds[2], got, ret, status;
	struct pollfd pfd;
	char peers[96], c;
	pid_t pid;

	sysfs_write("policy", policy);
	if (pipe(fds))
		return;
	snprintf(peers, sizeof(peers), "127.0.0.1:%u,127.0.0.2:%u",
		 40000 + (unsigned int)(job % 10000),
		 40001 + (unsigned int)(job % 10000));
	if (tcp)
		setenv("COSCHED_PEERS", peers, 1);
	pid = fork();
	if (!pid)
		consumed_peer(job, fds[1], tcp);
	ret = cosched_open(&ep, job, 0, 2, 0);
	unsetenv("COSCHED_PEERS");
	if (!check(ret == 0, "%s %s: open (%d)", policy, name, ret))
		goto out;
	send_retry(ep, 1, "go", 2);
	/* All sent; let loopback hand the last segments over. */
	if (read(fds[0], &c, 1) != 1)
		c = 0;
	nap_ms(50);
	got = recv_all(ep, mode);
	arr = __atomic_load_n(&ep->ctrl->arrivals, __ATOMIC_ACQUIRE);
	cons = __atomic_load_n(&ep->ctrl->consumed, __ATOMIC_RELAXED);
	pfd.fd = ep->fd;
	pfd.events = POLLIN;
	ret = poll(&pfd, 1, 0);
	check(got == CONS_N && c == 's' && arr > 0 && cons == arr && ret == 0,
	      "%s %s%s: %d messages, consumed %llu of %llu arrivals, poll() %d",
	      policy, name, tcp ? " over TCP" : "", got,
	      (unsigned long long)cons, (unsigned long long)arr, ret);
	if (!strncmp(policy, "pb", 2)) {
		cosched_stats(ep, &st);
		boosts = st.module.boosts + st.module.budget_exhausted;
		nap_ms(1000);
		cosched_stats(ep, &st);
		boosts = st.module.boosts + st.module.budget_exhausted - boosts;
		check(boosts == 0, "%s %s%s: idle and drained: %llu boosts in 1 s",
		      policy, name, tcp ? " over TCP" : "",
		      (unsigned long long)boosts);
	}
	if (mode == -1)
		cosched_recv_callback(ep, NULL, NULL, 0);
	send_retry(ep, 1, "end", 3);
	cosched_close(ep);
out:
	waitpid(pid, &status, 0);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	static const char *const sb[] = { "sb", "dcs-sb", "pb-sb", "pba-sb" };
	static const char *const sy[] = { "sy", "dcs-sy", "pb-sy", "pba-sy" };
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	job_next = (uint64_t)getpid() << 16;
	for (i = 0; i < sizeof(sb) / sizeof(sb[0]); i++)
		test_block(sb[i]);
	for (i = 0; i < sizeof(sy) / sizeof(sy[0]); i++)
		test_yield(sy[i]);
	test_killed_peer(COSCHED_MODE_BLOCK, "block");
	test_killed_peer(COSCHED_MODE_POLL, "poll");
	test_closed_peer();
	test_other_user();
	test_spin_auto();
	test_callback();
	test_callback_owner(0, "callback, plain endpoint");
	test_callback_owner(COSCHED_OPEN_CALLBACK, "callback, COSCHED_OPEN_CALLBACK");
	test_fork_close(0, "fork, plain endpoint");
	test_fork_close(COSCHED_OPEN_CALLBACK, "fork, COSCHED_OPEN_CALLBACK");
	test_net("sb", false);
	test_net("dcs-sb", false);
	test_net("sb", true);
	test_net_hooks();
	for (i = 0; i < 4; i++) {
		static const int mode[] = { COSCHED_MODE_POLL, COSCHED_MODE_BLOCK,
					    COSCHED_MODE_YIELD, -1 };
		static const char *const name[] = { "poll", "block", "yield",
						    "callback" };

		test_consumed("dcs", mode[i], name[i], false);
		test_consumed("pb", mode[i], name[i], true);
	}
	sysfs_write("policy", "local");
	printf("1..%d\n", n_test);
	printf("%d passed, %d failed\n", n_test - n_fail, n_fail);
	return n_fail ? 1 : 0;
}
