// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong.c - mb_run(): the measurement loops that every transport
 * (the raw ring, libcosched) goes through, so that they differ only in
 * the transport.  The parent (side 0) runs on CPU 0 and the child (side
 * 1) on CPU 1.  Per size:
 *
 *   latency    warm-up round trips, then iters round trips each timed by
 *              the parent; one-way = round trip / 2.  Both processes
 *              read their CPU time and counters around the timed loop.
 *   bandwidth  the parent streams msgs messages back to back and the
 *              child answers the last with an 8-byte ack; bytes / time.
 *
 * The two sides meet at barriers on shared memory between phases (never
 * inside a timed loop), spinning in user space so that a system-call
 * count of the whole run changes only with the number of messages.
 */
#define _GNU_SOURCE
#include "msgbench.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define ACK_LEN	8

/* What the child hands the parent, in shared memory. */
struct mb_shm {
	struct mb_sync sync;
	int skip;			/* parent: this size is too big */
	uint64_t cpu_ns;		/* child: CPU time of the timed loop */
	struct mb_counters cnt;		/* child: counters over the timed loop */
};

struct side {
	const struct mb_ops *ops;
	void *ctx;
	int id;
	unsigned char *sbuf, *rbuf;
	size_t buf_len;
	uint64_t step;			/* barrier steps taken */
};

static volatile sig_atomic_t finished;

/* The child died before the parent was done: its peer would wait forever. */
static void on_child(int sig)
{
	(void)sig;
	if (!finished) {
		static const char msg[] = "pingpong: the child side died\n";
		ssize_t r = write(2, msg, sizeof(msg) - 1);

		(void)r;
		_exit(1);
	}
}

static void fail(struct side *s, const char *what, long err)
{
	fprintf(stderr, "%s: side %d: %s: %s\n", s->ops->bench, s->id, what,
		strerror((int)-err));
	_exit(1);
}

static void xsend(struct side *s, size_t len)
{
	int r = s->ops->send(s->ctx, s->sbuf, len);

	if (r < 0)
		fail(s, "send", r);
}

static void xrecv(struct side *s, size_t len)
{
	long r = s->ops->recv(s->ctx, s->rbuf, s->buf_len);

	if (r < 0)
		fail(s, "recv", r);
	if ((size_t)r != len)
		fail(s, "recv: wrong length", -EBADMSG);
}

static void counters(struct side *s, struct mb_counters *c)
{
	memset(c, 0, sizeof(*c));
	if (s->ops->counters)
		s->ops->counters(s->ctx, c);
}

static void counters_since(struct side *s, struct mb_counters *c)
{
	struct mb_counters now;

	counters(s, &now);
	c->sends = now.sends - c->sends;
	c->doorbells = now.doorbells - c->doorbells;
	c->blocks = now.blocks - c->blocks;
}

/* The child's half of one size: echo, then sink the stream. */
static void child_size(const struct mb_opts *o, struct mb_shm *shm,
		       struct side *s, size_t size)
{
	long i, n = mb_iters(o, size), w = mb_warmup(o, size);
	struct mb_counters c;
	uint64_t cpu;

	mb_barrier(&shm->sync, 1, &s->step);
	if (shm->skip)
		return;
	if (o->what & MB_WHAT_LAT) {
		for (i = 0; i < w; i++) {
			xrecv(s, size);
			xsend(s, size);
		}
		mb_barrier(&shm->sync, 1, &s->step);
		counters(s, &c);
		cpu = mb_cpu_ns();
		for (i = 0; i < n; i++) {
			xrecv(s, size);
			xsend(s, size);
		}
		shm->cpu_ns = mb_cpu_ns() - cpu;
		counters_since(s, &c);
		shm->cnt = c;
		mb_barrier(&shm->sync, 1, &s->step);
	}
	if (o->what & MB_WHAT_BW) {
		n = mb_bw_msgs(o, size);
		mb_barrier(&shm->sync, 1, &s->step);
		for (i = 0; i < n; i++)
			xrecv(s, size);
		xsend(s, ACK_LEN);
	}
}

static void parent_lat(const struct mb_opts *o, struct mb_shm *shm,
		       struct side *s, size_t size, struct mb_result *r,
		       double *mean)
{
	long i, n = mb_iters(o, size), w = mb_warmup(o, size);
	uint64_t *lat = calloc((size_t)n, sizeof(*lat));
	uint64_t cpu, t, t0, wall;
	struct mb_counters c;
	uint64_t sends;

	if (!lat)
		fail(s, "calloc", -ENOMEM);
	for (i = 0; i < w; i++) {
		xsend(s, size);
		xrecv(s, size);
	}
	mb_barrier(&shm->sync, 0, &s->step);
	counters(s, &c);
	cpu = mb_cpu_ns();
	t0 = mb_now_ns();
	for (i = 0; i < n; i++) {
		t = o->quiet ? 0 : mb_now_ns();
		xsend(s, size);
		xrecv(s, size);
		if (!o->quiet)
			lat[i] = mb_now_ns() - t;
	}
	wall = mb_now_ns() - t0;
	cpu = mb_cpu_ns() - cpu;
	counters_since(s, &c);
	mb_barrier(&shm->sync, 0, &s->step);
	r->iters = n;
	if (!o->quiet) {
		r->lat_p50 = mb_quantile(lat, n, 0.50) / 2;
		r->lat_p99 = mb_quantile(lat, n, 0.99) / 2;
	}
	*mean = (double)wall / (double)n / 2;
	r->cpu_per_msg = (double)(cpu + shm->cpu_ns) / (double)(2 * n);
	sends = c.sends + shm->cnt.sends;
	if (s->ops->counters && sends) {
		r->doorbell_frac = (double)(c.doorbells + shm->cnt.doorbells) /
				   (double)sends;
		r->blocks_per_msg = (double)(c.blocks + shm->cnt.blocks) /
				    (double)(2 * n);
	}
	free(lat);
}

static double parent_bw(const struct mb_opts *o, struct mb_shm *shm,
			struct side *s, size_t size)
{
	long i, n = mb_bw_msgs(o, size);
	uint64_t t0;

	mb_barrier(&shm->sync, 0, &s->step);
	t0 = mb_now_ns();
	for (i = 0; i < n; i++)
		xsend(s, size);
	xrecv(s, ACK_LEN);
	/* bytes per ns * 1000 = 10^6 bytes per second */
	return (double)n * (double)size * 1e3 / (double)(mb_now_ns() - t0);
}

static void parent_size(const struct mb_opts *o, struct mb_shm *shm,
			struct side *s, size_t size, const char *policy)
{
	struct mb_result r = { -1, -1, -1, -1, -1, -1, -1 };
	double mean = -1;
	char extra[64];

	shm->skip = size > s->ops->max_msg(s->ctx) || size > s->buf_len;
	mb_barrier(&shm->sync, 0, &s->step);
	if (!shm->skip) {
		if (o->what & MB_WHAT_LAT)
			parent_lat(o, shm, s, size, &r, &mean);
		if (o->what & MB_WHAT_BW)
			r.mbps = parent_bw(o, shm, s, size);
		/* Streaming only: iters= says how many messages were streamed. */
		if (!(o->what & MB_WHAT_LAT))
			r.iters = mb_bw_msgs(o, size);
	}
	if (mean >= 0)
		snprintf(extra, sizeof(extra), "lat_ns_mean=%.0f", mean);
	else
		snprintf(extra, sizeof(extra), "lat_ns_mean=n/a");
	mb_print(s->ops->bench, o->mode, policy, size, &r, extra);
}

int mb_run(const struct mb_opts *o, const struct mb_ops *ops, void *ctx,
	   const char *policy)
{
	struct mb_shm *shm = mb_shared(sizeof(*shm));
	struct side s = { .ops = ops, .ctx = ctx };
	int i, err, status;
	pid_t pid;

	for (i = 0; i < o->nsizes; i++)
		if (o->sizes[i] > s.buf_len)
			s.buf_len = o->sizes[i];
	if (s.buf_len < ACK_LEN)
		s.buf_len = ACK_LEN;
	s.sbuf = malloc(s.buf_len);
	s.rbuf = malloc(s.buf_len);
	if (!s.sbuf || !s.rbuf)
		return 2;
	memset(s.sbuf, 0xa5, s.buf_len);
	/* Touch the receive buffer now, not in the first timed copy. */
	memset(s.rbuf, 0, s.buf_len);
	err = ops->setup ? ops->setup(ctx) : 0;
	if (err) {
		fprintf(stderr, "%s: setup: %s\n", ops->bench, strerror(-err));
		return 2;
	}
	signal(SIGCHLD, on_child);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 2;
	s.id = pid == 0;
	if (s.id)
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	mb_pin(s.id);
	err = ops->open(ctx, s.id);
	if (err)
		fail(&s, "open", err);
	/* Both endpoints exist before either sends. */
	mb_barrier(&shm->sync, s.id, &s.step);
	for (i = 0; i < o->nsizes; i++) {
		if (s.id)
			child_size(o, shm, &s, o->sizes[i]);
		else
			parent_size(o, shm, &s, o->sizes[i], policy);
	}
	/* Neither closes while the other may still be reading its ring. */
	mb_barrier(&shm->sync, s.id, &s.step);
	if (s.id) {
		ops->close(ctx);
		_exit(0);
	}
	finished = 1;
	waitpid(pid, &status, 0);
	ops->close(ctx);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
