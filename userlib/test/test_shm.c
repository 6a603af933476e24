// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_shm - the library without the module (the host has none): real
 * cosched_open() in several processes, messages through rings in POSIX
 * shared memory, busy-poll waits, the one-time notice, a killed peer, a
 * closed peer, and a stale ring taken over.  TAP output.
 */
#define _GNU_SOURCE
#include "cosched.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "util.h"

static uint64_t job_base;

/* Rank 1: echo every message back until "bye"; die on "die". */
static void echo_child(uint64_t job)
{
	struct cosched_ep *ep;
	static char buf[1 << 17];
	uint32_t src;
	ssize_t n;

	if (cosched_open(&ep, job, 1, 2, 0))
		_exit(2);
	for (;;) {
		n = cosched_recv(ep, &src, buf, sizeof(buf), COSCHED_MODE_DEFAULT);
		if (n < 0)
			_exit(3);
		if (n == 3 && !memcmp(buf, "die", 3))
			raise(SIGKILL);
		if (n == 3 && !memcmp(buf, "bye", 3))
			break;
		if (send_retry(ep, src, buf, (size_t)n))
			_exit(4);
	}
	cosched_close(ep);
	_exit(0);
}

static pid_t spawn_echo(uint64_t job)
{
	pid_t pid = fork();

	if (!pid)
		echo_child(job);
	return pid;
}

static void test_echo(void)
{
	static char out[1 << 17], in[1 << 17];
	uint64_t job = job_base + 1;
	size_t sizes[] = { 0, 1, 15, 16, 17, 4096, 65536, 131056 };
	struct cosched_ep *ep;
	ssize_t max;
	uint32_t src;
	bool good = true;
	int status;
	size_t i, j;
	pid_t pid;

	check(cosched_open(&ep, job, 0, 2, 0) == 0, "open without the module");
	pid = spawn_echo(job);
	max = cosched_max_msg(ep, 0);
	check(max == 131056, "max message: half of the 256 KiB ring less a header");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (j = 0; j < sizes[i]; j++)
			out[j] = (char)(i * 31 + j);
		good &= send_retry(ep, 1, out, sizes[i]) == 0;
		good &= cosched_recv(ep, &src, in, sizeof(in),
				     COSCHED_MODE_BLOCK) == (ssize_t)sizes[i];
		good &= src == 1 && !memcmp(in, out, sizes[i]);
	}
	check(good, "echo of sizes 0 .. max, block mode busy-polls");
	check(cosched_get_policy(ep) == COSCHED_POLICY_LOCAL &&
	      cosched_get_wait_mode(ep, COSCHED_MODE_BLOCK) == COSCHED_MODE_POLL,
	      "without the module: policy local, every wait a poll");
	/* A fork()ed child that closes its copy leaves ours working. */
	pid_t kid = fork();

	if (!kid) {
		cosched_close(ep);
		_exit(0);
	}
	waitpid(kid, &status, 0);
	check(send_retry(ep, 1, "after", 5) == 0 &&
	      cosched_recv(ep, &src, in, sizeof(in), COSCHED_MODE_POLL) == 5 &&
	      !memcmp(in, "after", 5),
	      "a fork()ed child's cosched_close leaves the parent's endpoint open");
	check(cosched_send(ep, 1, out, (size_t)max + 1) == -EMSGSIZE,
	      "a message over the limit: -EMSGSIZE");
	check(send_retry(ep, 1, "bye", 3) == 0 && waitpid(pid, &status, 0) == pid &&
	      WIFEXITED(status) && WEXITSTATUS(status) == 0, "peer closed cleanly");
	nap_ms(20);
	check(cosched_send(ep, 1, "x", 1) == -EPIPE,
	      "send to a closed peer: -EPIPE");
	cosched_close(ep);
}

/* cosched_open()'s flags: one known, the rest refused. */
static void test_open_flags(void)
{
	uint64_t job = job_base + 7;
	struct cosched_ep *ep;

	check(cosched_open(&ep, job, 0, 1, 1U << 1) == -EINVAL && !ep,
	      "open with an unknown flag: -EINVAL");
	check(cosched_open(&ep, job, 0, 1, COSCHED_OPEN_CALLBACK) == 0 &&
	      send_retry(ep, 0, "cb", 2) == 0,
	      "COSCHED_OPEN_CALLBACK without the module: opens, busy-poll");
	cosched_close(ep);
}

static void test_killed_peer(void)
{
	uint64_t job = job_base + 2;
	struct cosched_ep *ep;
	char in[16];
	int status;
	pid_t pid;

	check(cosched_open(&ep, job, 0, 2, 0) == 0, "open for the killed-peer test");
	pid = spawn_echo(job);
	check(send_retry(ep, 1, "ping", 4) == 0 &&
	      cosched_recv(ep, NULL, in, sizeof(in), COSCHED_MODE_POLL) == 4,
	      "peer answers");
	cosched_send(ep, 1, "die", 3);
	waitpid(pid, &status, 0);
	check(cosched_recv(ep, NULL, in, sizeof(in), COSCHED_MODE_BLOCK) ==
	      -ECONNRESET, "a receiver whose peer was killed: -ECONNRESET");
	check(cosched_send(ep, 1, "x", 1) == 0,
	      "a dead peer's ring still takes what fits");
	/* Its stale ring is taken over by the next process of that rank. */
	pid = spawn_echo(job);
	nap_ms(100);
	check(send_retry(ep, 1, "again", 5) == 0 &&
	      cosched_recv(ep, NULL, in, sizeof(in), COSCHED_MODE_POLL) == 5,
	      "a new process took the dead rank's ring over; sends reach it");
	send_retry(ep, 1, "bye", 3);
	waitpid(pid, &status, 0);
	check(cosched_send(ep, 1, "x", 1) == -EPIPE,
	      "closed and not taken over: -EPIPE");
	cosched_close(ep);
}

static void test_rank_taken(void)
{
	uint64_t job = job_base + 3;
	struct cosched_ep *a, *b;

	check(cosched_open(&a, job, 0, 2, 0) == 0, "open rank 0");
	check(cosched_open(&b, job, 0, 2, 0) == -EEXIST,
	      "rank 0 again while its owner lives: -EEXIST");
	cosched_close(a);
	check(cosched_open(&b, job, 0, 2, 0) == 0, "after close: free again");
	cosched_close(b);
	check(cosched_open(&b, job, 2, 2, 0) == -EINVAL, "rank >= size: -EINVAL");
}

/* The notice goes to stderr once per process, however many endpoints. */
static void test_says_once(void)
{
	int fds[2], n = 0, status;
	char buf[4096];
	ssize_t r;
	pid_t pid;

	if (pipe(fds))
		abort();
	pid = fork();
	if (!pid) {
		struct cosched_ep *a, *b;

		dup2(fds[1], 2);
		cosched_open(&a, job_base + 4, 0, 2, 0);
		cosched_open(&b, job_base + 4, 1, 2, 0);
		cosched_close(a);
		cosched_close(b);
		_exit(0);
	}
	close(fds[1]);
	while ((r = read(fds[0], buf, sizeof(buf) - 1)) > 0) {
		buf[r] = 0;
		for (char *p = buf; (p = strstr(p, "busy-poll mode")); p++)
			n++;
	}
	close(fds[0]);
	waitpid(pid, &status, 0);
	check(n == 1, "without the module it says so once (%d times)", n);
}

static void ring_name(char *buf, size_t len, uid_t uid, uint64_t job,
		      uint32_t rank)
{
	snprintf(buf, len, "/cosched-%u-%llu-%u", (unsigned int)uid,
		 (unsigned long long)job, rank);
}

/*
 * A ring file its maker never finished (it died between creating and
 * filling it in; today's library never shows one under the real name):
 * senders see "not there yet" instead of SIGBUS on the empty file or
 * -EPROTO on the zero header, and the rank's next process takes the name
 * over instead of being refused for ever.
 */
static void test_half_made(void)
{
	uint64_t job = job_base + 4;
	struct cosched_ep *ep, *other;
	char name[64], tmp[128];
	int fd;

	ring_name(name, sizeof(name), geteuid(), job, 1);
	fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	check(fd >= 0, "a rank-1 ring file its maker left empty");
	check(cosched_open(&ep, job, 0, 2, 0) == 0, "open rank 0 beside it");
	check(cosched_send(ep, 1, "x", 1) == -ENOENT,
	      "an empty ring file: -ENOENT, not SIGBUS");
	check(ftruncate(fd, 1 << 20) == 0, "sized, header still zero");
	check(cosched_send(ep, 1, "x", 1) == -ENOENT,
	      "a zero header: -ENOENT, not -EPROTO");
	close(fd);
	check(cosched_open(&other, job, 1, 2, 0) == 0,
	      "the rank's next process takes the unfinished file over");
	check(cosched_send(ep, 1, "x", 1) == 0, "and the send goes through");
	snprintf(tmp, sizeof(tmp), "/dev/shm%s.new-%d-0", name, (int)getpid());
	check(access(tmp, F_OK) && errno == ENOENT,
	      "no private name is left behind");
	cosched_close(other);
	cosched_close(ep);
}

/*
 * Another user makes the names of our job's rings first (/dev/shm is
 * everyone's): we neither send into its file, which it could read, nor
 * take it for ours.  Needs root, to be that other user.
 */
static void test_squatter(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t job = job_base + 5;
	struct cosched_ring *h;
	struct cosched_ep *ep;
	char name0[64], name1[64];
	int status, fd;
	pid_t pid;

	if (geteuid()) {
		check(true, "# SKIP another user's ring files: not root");
		return;
	}
	ring_name(name0, sizeof(name0), geteuid(), job, 0);
	ring_name(name1, sizeof(name1), geteuid(), job, 1);
	pid = fork();
	if (!pid) {
		/* uid 65534 makes rank 1 look like a live, whole ring. */
		if (setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(2);
		fd = shm_open(name1, O_RDWR | O_CREAT | O_EXCL, 0666);
		if (fd < 0 || fchmod(fd, 0666) ||
		    ftruncate(fd, (off_t)(page + 256 * 1024)))
			_exit(3);
		h = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (h == MAP_FAILED)
			_exit(4);
		h->data_size = 256 * 1024;
		h->endpoint_id = (uint64_t)getppid();
		h->data_offset = (uint32_t)page;
		_exit(0);
	}
	check(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "uid 65534 makes our rank 1's ring name");
	check(cosched_open(&ep, job, 0, 2, 0) == 0, "open rank 0");
	check(cosched_send(ep, 1, "secret", 6) == -EACCES,
	      "a send to a ring another user made: -EACCES, nothing written");
	cosched_close(ep);
	check(cosched_open(&ep, job, 1, 2, 0) == -EACCES,
	      "opening the rank it squats: -EACCES, its file left alone");
	shm_unlink(name1);
	shm_unlink(name0);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (!access(COSCHED_DEVICE, F_OK)) {
		printf("1..0 # SKIP %s exists: these test the fallback\n",
		       COSCHED_DEVICE);
		return 0;
	}
	job_base = (uint64_t)getpid() << 8;
	/* First: the notice is said once per process, fork inherits that. */
	test_says_once();
	test_echo();
	test_open_flags();
	test_killed_peer();
	test_rank_taken();
	test_half_made();
	test_squatter();
	printf("1..%d\n", n_test);
	return n_fail ? 1 : 0;
}
