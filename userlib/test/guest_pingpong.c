// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * guest_pingpong - libcosched end to end, inside a guest with cosched.ko
 * loaded: two processes of one job ping-pong 10000 messages (5000 round
 * trips) of random sizes
 * through each other's rings and verify every byte, under the policies
 * local (busy polling, no doorbells), sb (spin then block) and sy (spin
 * then yield).  Every 50th message is held back 2 ms by the peer so that
 * a spin of spin_us runs out and the receiver really blocks or yields.
 * $COSCHED_PINGPONG_ROUNDS overrides the number of round trips (pass it
 * with vmrun.sh --env): busy polling in a TCG guest whose two vCPUs share
 * one busy host core costs a host time slice per message.
 * TAP output; the last line is "N passed, N failed".
 */
#define _GNU_SOURCE
#include <cosched.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "util.h"

#define ROUNDS_DEF	5000	/* round trips: 10000 messages in all */
#define SMALL_MAX	4096	/* most sizes below this: TCG copies slowly */
#define HOLD_EVERY	50
#define HOLD_NS		2000000

static uint32_t rounds = ROUNDS_DEF;


static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void hold(void)
{
	struct timespec ts = { 0, HOLD_NS };

	nanosleep(&ts, NULL);
}

/* Size of message i: mostly small, every 1000th the largest allowed. */
static size_t msg_len(uint32_t i, size_t max)
{
	uint32_t x = i * 2654435761u;

	if (i % 1000 == 999)
		return max;
	x ^= x >> 15;
	return x % (SMALL_MAX < max ? SMALL_MAX + 1 : max + 1);
}

static void fill(unsigned char *b, uint32_t seq, size_t len, uint32_t who)
{
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = (unsigned char)(seq * 31u + i * 13u + who);
}

static bool verify(const unsigned char *b, uint32_t seq, size_t len,
		   uint32_t who)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != (unsigned char)(seq * 31u + i * 13u + who))
			return false;
	return true;
}

struct side {
	struct cosched_ep *ep;
	uint32_t rank, peer;
	size_t max;
	unsigned char *sbuf, *rbuf;
	uint32_t bad;		/* wrong length, source or contents */
	int err;		/* first library error */
};

/* Send message seq, stamped by who (the sender's rank). */
static void send_one(struct side *s, uint32_t seq)
{
	size_t len = msg_len(seq, s->max);
	int r;

	fill(s->sbuf, seq, len, s->rank);
	r = cosched_send(s->ep, s->peer, s->sbuf, len);
	if (r && !s->err)
		s->err = r;
}

static void recv_one(struct side *s, uint32_t seq)
{
	size_t len = msg_len(seq, s->max);
	uint32_t src = ~0u;
	ssize_t r;

	r = cosched_recv(s->ep, &src, s->rbuf, s->max, COSCHED_MODE_DEFAULT);
	if (r < 0) {
		if (!s->err)
			s->err = (int)r;
		return;
	}
	if ((size_t)r != len || src != s->peer ||
	    !verify(s->rbuf, seq, len, s->peer))
		s->bad++;
}

static int side_open(struct side *s, uint64_t job, uint32_t rank)
{
	ssize_t max;
	int r;

	memset(s, 0, sizeof(*s));
	s->rank = rank;
	s->peer = !rank;
	r = cosched_open(&s->ep, job, rank, 2, 0);
	if (r)
		return r;
	max = cosched_max_msg(s->ep, rank);
	if (max < 0)
		return (int)max;
	s->max = (size_t)max;
	s->sbuf = malloc(s->max);
	s->rbuf = malloc(s->max);
	return s->sbuf && s->rbuf ? 0 : -ENOMEM;
}

/* Rank 1: echo every message back, stamped by itself. */
static int child(uint64_t job, int ready_fd, bool hold_back)
{
	struct cosched_ep_stats st;
	uint64_t armed;
	struct side s;
	uint32_t i;
	int r;

	r = side_open(&s, job, 1);
	if (write(ready_fd, "r", 1) != 1 || r) {
		printf("# child: open: %s\n", strerror(-r));
		return 1;
	}
	for (i = 0; i < rounds && !s.err; i++) {
		recv_one(&s, i);
		if (hold_back && i % HOLD_EVERY == HOLD_EVERY - 1)
			hold();
		send_one(&s, i);
	}
	cosched_stats(s.ep, &st);
	printf("# child: %u bad, err %d; sends %llu doorbells %llu receives %llu "
	       "spin hits %llu blocks %llu yields %llu; module blocks %llu wakeups %llu\n",
	       s.bad, s.err, (unsigned long long)st.sends,
	       (unsigned long long)st.doorbells, (unsigned long long)st.receives,
	       (unsigned long long)st.spin_hits, (unsigned long long)st.blocks,
	       (unsigned long long)st.yields,
	       (unsigned long long)st.module.blocks,
	       (unsigned long long)st.module.wakeups);
	fflush(stdout);
	/* How often we armed: the most doorbells rank 0 should ring. */
	armed = st.blocks + st.yields;
	if (write(ready_fd, &armed, sizeof(armed)) != sizeof(armed))
		return 1;
	cosched_close(s.ep);
	return s.bad || s.err ? 2 : 0;
}

static void run_policy(const char *policy, uint64_t job)
{
	bool rings = strcmp(policy, "local") != 0;
	bool blocks = !strcmp(policy, "sb");
	struct cosched_ep_stats st;
	uint64_t child_armed = 0;
	int fds[2], r, status;
	struct side s;
	uint64_t t0;
	uint32_t i;
	pid_t pid;
	char c;

	printf("# policy %s\n", policy);
	r = sysfs_write("policy", policy);
	if (!check(r == 0, "%s: set the policy (%s)", policy, strerror(-r)))
		return;
	if (pipe(fds))
		abort();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		_exit(child(job, fds[1], true));
	}
	close(fds[1]);
	r = side_open(&s, job, 0);
	check(r == 0, "%s: open rank 0 (%s)", policy, strerror(-r));
	/* Our endpoint exists before the child's is known to. */
	check(read(fds[0], &c, 1) == 1, "%s: child opened its endpoint", policy);
	t0 = now_ns();
	for (i = 0; i < rounds && !r && !s.err; i++) {
		if (i % HOLD_EVERY == HOLD_EVERY / 2)
			hold();
		send_one(&s, i);
		recv_one(&s, i);
	}
	printf("# %s: %u round trips in %.2f s\n", policy, i,
	       (double)(now_ns() - t0) / 1e9);
	check(!r && !s.err && i == rounds, "%s: %u round trips, no error (%d)",
	      policy, rounds, s.err);
	check(!s.bad, "%s: every reply intact (%u bad)", policy, s.bad);
	waitpid(pid, &status, 0);
	if (read(fds[0], &child_armed, sizeof(child_armed)) !=
	    sizeof(child_armed))
		child_armed = 0;
	close(fds[0]);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "%s: the child saw every message intact (status %d)", policy,
	      status);
	if (r)
		return;
	r = cosched_stats(s.ep, &st);
	check(r == 0, "%s: stats", policy);
	printf("# rank 0: sends %llu doorbells %llu receives %llu spin hits %llu "
	       "blocks %llu yields %llu; module arrivals %llu blocks %llu wakeups %llu yields %llu\n",
	       (unsigned long long)st.sends, (unsigned long long)st.doorbells,
	       (unsigned long long)st.receives, (unsigned long long)st.spin_hits,
	       (unsigned long long)st.blocks, (unsigned long long)st.yields,
	       (unsigned long long)st.module.arrivals,
	       (unsigned long long)st.module.blocks,
	       (unsigned long long)st.module.wakeups,
	       (unsigned long long)st.module.yields);
	check(st.sends == rounds && st.receives == rounds,
	      "%s: library counted %u sends and receives", policy, rounds);
	/*
	 * Senders ring only a receiver that is armed (about to block, or
	 * yielded): under local never; under sb and sy at most once for
	 * each time the child armed, give or take a few races (a message
	 * that came between arming and blocking), and not for every send.
	 * How often the child arms depends on how busy the host is.
	 */
	check(rings ? st.doorbells > 0 && st.doorbells < rounds &&
		      st.doorbells <= child_armed + rounds / 50 :
		      st.doorbells == 0,
	      "%s: doorbells only when needed: %llu of %u sends, child armed %llu times",
	      policy, (unsigned long long)st.doorbells, rounds,
	      (unsigned long long)child_armed);
	check(rings ? st.module.arrivals > 0 &&
		      st.module.arrivals >= st.module.wakeups :
		      st.module.arrivals == 0,
	      "%s: the child rang %llu times, at least once per wake-up (%llu)",
	      policy, (unsigned long long)st.module.arrivals,
	      (unsigned long long)st.module.wakeups);
	if (blocks) {
		check(st.blocks > 0 && st.module.blocks > 0,
		      "sb: receiver blocked (library %llu, module %llu)",
		      (unsigned long long)st.blocks,
		      (unsigned long long)st.module.blocks);
		check(st.module.wakeups > 0,
		      "sb: arrivals woke it (module wakeups %llu)",
		      (unsigned long long)st.module.wakeups);
	} else {
		check(st.blocks == 0 && st.module.blocks == 0,
		      "%s: receiver never blocked", policy);
	}
	cosched_close(s.ep);
	free(s.sbuf);
	free(s.rbuf);
}

int main(void)
{
	static const char *const policies[] = { "local", "sb", "sy" };
	unsigned int i;

	const char *env = getenv("COSCHED_PINGPONG_ROUNDS");

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (env && atoi(env) > 0)
		rounds = (uint32_t)atoi(env);
	for (i = 0; i < 3; i++)
		run_policy(policies[i], 0xc05c4ed0ull + i);
	sysfs_write("policy", "local");
	printf("1..%d\n", n_test);
	printf("%d passed, %d failed\n", n_test - n_fail, n_fail);
	return n_fail ? 1 : 0;
}
