// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_net - host tests of the TCP transport: address lists, and ranks in
 * forked processes talking over 127.0.0.1 and 127.0.0.2 (both loopback,
 * so two "nodes").  No module needed.  TAP output.
 *
 * Children print nothing: they exit with 0, or with the number of the step
 * that failed, and the parent turns that into one check.
 */
#define _GNU_SOURCE
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "util.h"

#define HOST_A	"127.0.0.1"
#define HOST_B	"127.0.0.2"

static int next_port;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Deterministic payload: byte i of message seq. */
/* An address list on the heap, as net_peers_from_env() makes them. */
static char **mkaddrs(uint32_t size, const char *const *hosts, int port)
{
	char **a = calloc(size, sizeof(*a));
	uint32_t r;

	for (r = 0; r < size; r++)
		if (asprintf(&a[r], "%s:%d", hosts[r], port + (int)r) < 0)
			abort();
	return a;
}

/* ---- children ---- */

typedef int (*child_fn)(void *arg, uint32_t rank);

static pid_t spawn(child_fn fn, void *arg, uint32_t rank)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		abort();
	if (!pid)
		_exit(fn(arg, rank));
	return pid;
}

/* The child's exit status, or 200 + signal. */
static int reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) < 0)
		return 255;
	if (WIFSIGNALED(st))
		return 200 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

struct job {
	uint32_t size;
	char **addrs;
	uint32_t max_msg;
};

static void job_init(struct job *j, uint32_t size, const char *const *hosts,
		     uint32_t max_msg)
{
	j->size = size;
	j->addrs = mkaddrs(size, hosts, next_port);
	j->max_msg = max_msg;
	next_port += (int)size;
}

static void job_free(struct job *j)
{
	net_peers_free(j->addrs, j->size);
}

/* Run fn as every rank in ranks[] at once; true if all exited 0. */
static bool run_ranks(const char *what, child_fn fn, void *arg,
		      const uint32_t *ranks, int nr)
{
	pid_t pid[8];
	bool ok = true;
	int i, st;

	for (i = 0; i < nr; i++)
		pid[i] = spawn(fn, arg, ranks[i]);
	for (i = 0; i < nr; i++) {
		st = reap(pid[i]);
		ok &= check(st == 0, "%s: rank %u (status %d)", what,
			    ranks[i], st);
	}
	return ok;
}

/* ---- receiving ---- */

/* What a receiver expects: per source, the next sequence number. */
struct rx {
	uint32_t next[8];
	uint32_t (*len_of)(uint32_t seq, uint32_t max_msg);
	uint32_t max_msg;
	uint32_t want;		/* messages per source */
	uint32_t got;		/* in all */
	int bad;
	/* -EAGAIN test */
	uint32_t offers, refused_seq;
	bool refused;
};

static int rx_fn(void *arg, uint32_t src, const void *buf, size_t len)
{
	struct rx *x = arg;
	uint32_t seq = x->next[src];

	if (len != x->len_of(seq, x->max_msg) || !pattern_check(buf, seq, len))
		x->bad++;
	x->next[src]++;
	x->got++;
	return 0;
}

/* Refuses every third offer; a refused message must come back first. */
static int rx_fn_eagain(void *arg, uint32_t src, const void *buf, size_t len)
{
	struct rx *x = arg;

	if (x->refused && x->next[src] != x->refused_seq)
		x->bad++;
	x->refused = false;
	if (++x->offers % 3 == 0) {
		x->refused = true;
		x->refused_seq = x->next[src];
		return -EAGAIN;
	}
	return rx_fn(arg, src, buf, len);
}

/* Poll and wait until x has want messages from each of nsrc sources. */
static int rx_until(struct net *n, net_deliver_fn fn, struct rx *x,
		    uint32_t total, int ms)
{
	int64_t deadline = now_ms() + ms;
	int rc, taken = 0;

	while (x->got < total) {
		rc = net_poll(n, fn, x);
		if (rc < 0)
			return rc;
		taken += rc;
		if (x->got >= total)
			break;
		if (now_ms() > deadline)
			return -ETIMEDOUT;
		rc = net_wait(n, 50 * 1000000ull);
		if (rc && rc != -ETIMEDOUT)
			return rc;
	}
	return (uint32_t)taken == x->got ? 0 : -EBADMSG;
}

/* ---- address lists ---- */

static int peers_env(const char *list, uint32_t size, char ***a)
{
	int rc;

	unsetenv("COSCHED_PEERS_FILE");
	setenv("COSCHED_PEERS", list, 1);
	rc = net_peers_from_env(size, a);
	unsetenv("COSCHED_PEERS");
	return rc;
}

static void test_peers_list(void)
{
	static const char *const bad[] = {
		"a:1,b:2,c:3",		/* one too many */
		"a:1",			/* one too few */
		"a:1,",			/* empty entry */
		":1,b:2",		/* empty host */
		"a:0,b:2",		/* port 0 */
		"a:65536,b:2",		/* port too big */
		"a:12x,b:2",		/* junk in the port */
		"a:+1,b:2",		/* sign */
		"a,b:2",		/* no port */
		"a:,b:2",		/* empty port */
		"::1:5,b:2",		/* bare IPv6 */
		"[::1]5,b:2",		/* no colon after ] */
		"a b:1,c:2",		/* blank in a host */
	};
	char **a;
	size_t i;
	int rc;

	unsetenv("COSCHED_PEERS");
	unsetenv("COSCHED_PEERS_FILE");
	rc = net_peers_from_env(2, &a);
	check(rc == 0 && !a, "peers: neither variable set gives no list");

	rc = peers_env(" 127.0.0.1:5000 ,node-b.example:65535", 2, &a);
	check(rc == 0 && a && !strcmp(a[0], "127.0.0.1:5000") &&
	      !strcmp(a[1], "node-b.example:65535"),
	      "peers: list parsed and trimmed, in rank order");
	net_peers_free(a, 2);

	rc = peers_env("[::1]:7,[fe80::1%lo]:8", 2, &a);
	check(rc == 0 && a && !strcmp(a[0], "[::1]:7"),
	      "peers: [IPv6]:port entries");
	net_peers_free(a, 2);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		a = (char **)1;
		rc = peers_env(bad[i], 2, &a);
		check(rc == -EINVAL && !a, "peers: \"%s\" is -EINVAL (%d)",
		      bad[i], rc);
	}
}

static void test_peers_file(void)
{
	char path[] = "/tmp/test_net_peersXXXXXX";
	FILE *f;
	char **a;
	int fd, rc;

	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		abort();
	fputs("# the job\n\n  127.0.0.1:4000  # rank 0\n"
	      "127.0.0.2:4001\n\t\n# end\n", f);
	fclose(f);
	setenv("COSCHED_PEERS_FILE", path, 1);
	rc = net_peers_from_env(2, &a);
	check(rc == 0 && a && !strcmp(a[0], "127.0.0.1:4000") &&
	      !strcmp(a[1], "127.0.0.2:4001"),
	      "peers file: comments and blank lines skipped");
	net_peers_free(a, 2);
	rc = net_peers_from_env(3, &a);
	check(rc == -EINVAL && !a, "peers file: wrong count is -EINVAL");
	setenv("COSCHED_PEERS", "10.0.0.1:1", 1);
	rc = net_peers_from_env(1, &a);
	check(rc == 0 && a && !strcmp(a[0], "10.0.0.1:1"),
	      "peers: COSCHED_PEERS wins over COSCHED_PEERS_FILE");
	net_peers_free(a, 1);
	unsetenv("COSCHED_PEERS");
	unlink(path);
	rc = net_peers_from_env(2, &a);
	check(rc == -ENOENT && !a, "peers file: missing file is -ENOENT");
	unsetenv("COSCHED_PEERS_FILE");
}

/* ---- every size, both ways, three ranks on two nodes ---- */

#define SIZES_MAX	70000	/* past the first receive buffer */

static uint32_t n_sizes;
static uint32_t sizes[200];

static void sizes_init(void)
{
	uint32_t s, p;

	for (s = 0; s <= 9; s++)
		sizes[n_sizes++] = s;
	for (p = 16; p < SIZES_MAX; p *= 2) {
		sizes[n_sizes++] = p - 9;	/* frame ends at a power */
		sizes[n_sizes++] = p - 8;
		sizes[n_sizes++] = p - 1;
		sizes[n_sizes++] = p;
		sizes[n_sizes++] = p + 1;
	}
	sizes[n_sizes++] = SIZES_MAX - 1;
	sizes[n_sizes++] = SIZES_MAX;
}

static uint32_t len_sizes(uint32_t seq, uint32_t max_msg)
{
	(void)max_msg;
	return sizes[seq % n_sizes];
}

/*
 * Ranks 0 and 1 on node A, rank 2 on node B.  0 and 1 each send every
 * size to 2, which checks them per source and echoes them back.
 */
static int sizes_rank(void *arg, uint32_t rank)
{
	static unsigned char buf[SIZES_MAX + 1];
	struct job *j = arg;
	struct rx x = { .len_of = len_sizes, .max_msg = j->max_msg };
	struct net *n;
	uint32_t k, src;
	int rc;

	if (net_open(&n, rank, j->size, j->addrs, -1, j->max_msg))
		return 1;
	if (net_remote(n, rank) || net_remote(n, rank == 2 ? 2 : 1 - rank) ||
	    !net_remote(n, rank == 2 ? 0 : 2) || net_remote(n, 3))
		return 2;
	if (rank == 2) {
		if (rx_until(n, rx_fn, &x, 2 * n_sizes, 20000) || x.bad)
			return 3;
		for (src = 0; src < 2; src++)
			for (k = 0; k < n_sizes; k++) {
				pattern_fill(buf, k, sizes[k]);
				if (net_send(n, src, buf, sizes[k]))
					return 4;
			}
	} else {
		if (net_send(n, rank ^ 1, buf, 1) != -EINVAL)
			return 5;
		if (net_send(n, 2, buf, SIZES_MAX + 1) != -EMSGSIZE)
			return 6;
		for (k = 0; k < n_sizes; k++) {
			pattern_fill(buf, k, sizes[k]);
			if (net_send(n, 2, buf, sizes[k]))
				return 7;
		}
		rc = rx_until(n, rx_fn, &x, n_sizes, 20000);
		if (rc || x.bad)
			return 8;
	}
	net_close(n);
	return 0;
}

static void test_sizes(void)
{
	static const char *const hosts[] = { HOST_A, HOST_A, HOST_B };
	static const uint32_t ranks[] = { 0, 1, 2 };
	struct job j;

	job_init(&j, 3, hosts, SIZES_MAX);
	run_ranks("every size 0..max_msg, 3 ranks on 2 nodes, echoed",
		  sizes_rank, &j, ranks, 3);
	job_free(&j);
}

/* ---- both sides sending big messages at once ---- */

#define FLOOD_N		400
#define FLOOD_MAX	65000

static uint32_t len_flood(uint32_t seq, uint32_t max_msg)
{
	return seq % 4 ? (seq * 7919u) % (max_msg + 1) : max_msg;
}

struct flood_rx {
	struct net *n;
	struct rx x;
	int rc;
	uint32_t sent;		/* by the main thread, so far */
	uint32_t sent_early;	/* when the receiver started */
};

static void *flood_thread(void *arg)
{
	struct flood_rx *f = arg;

	/* Start late: both senders fill the sockets and block first. */
	usleep(300 * 1000);
	f->sent_early = __atomic_load_n(&f->sent, __ATOMIC_RELAXED);
	f->rc = rx_until(f->n, rx_fn, &f->x, FLOOD_N, 120000);
	/* The sender may be blocked on a peer that waits for us: leave. */
	if (f->rc)
		_exit(f->rc == -ETIMEDOUT ? 11 : f->rc == -EBADMSG ? 12 : 13);
	return NULL;
}

/* The main thread sends, a second one receives: neither side stalls. */
static int flood_rank(void *arg, uint32_t rank)
{
	static unsigned char buf[FLOOD_MAX];
	struct job *j = arg;
	struct flood_rx f = { .x = { .len_of = len_flood,
				     .max_msg = j->max_msg } };
	pthread_t t;
	uint32_t k, len;

	if (net_open(&f.n, rank, j->size, j->addrs, -1, j->max_msg))
		return 1;
	if (pthread_create(&t, NULL, flood_thread, &f))
		return 2;
	for (k = 0; k < FLOOD_N; k++) {
		len = len_flood(k, j->max_msg);
		pattern_fill(buf, k, len);
		if (net_send(f.n, 1 - rank, buf, len))
			return 3;
		__atomic_store_n(&f.sent, k + 1, __ATOMIC_RELAXED);
	}
	pthread_join(t, NULL);
	if (f.rc || f.x.bad || f.x.got != FLOOD_N)
		return 4;
	/* The sender did block on full sockets before anyone received. */
	if (f.sent_early >= FLOOD_N)
		return 5;
	net_close(f.n);
	return 0;
}

static void test_flood(void)
{
	static const char *const hosts[] = { HOST_A, HOST_B };
	static const uint32_t ranks[] = { 0, 1 };
	struct job j;

	job_init(&j, 2, hosts, FLOOD_MAX);
	run_ranks("400 messages up to 65000 bytes both ways at once",
		  flood_rank, &j, ranks, 2);
	job_free(&j);
}

/* ---- -EAGAIN from the consumer ---- */

#define EAGAIN_N	300

static uint32_t len_small(uint32_t seq, uint32_t max_msg)
{
	return (seq * 13u) % (max_msg + 1);
}

static int eagain_rank(void *arg, uint32_t rank)
{
	static unsigned char buf[256];
	struct job *j = arg;
	struct rx x = { .len_of = len_small, .max_msg = j->max_msg };
	struct net *n;
	uint32_t k;

	if (net_open(&n, rank, j->size, j->addrs, -1, j->max_msg))
		return 1;
	if (rank == 1) {
		for (k = 0; k < EAGAIN_N; k++) {
			pattern_fill(buf, k, len_small(k, j->max_msg));
			if (net_send(n, 0, buf, len_small(k, j->max_msg)))
				return 2;
		}
		/* Stay until rank 0 has it all: its "done" message. */
		x.len_of = len_small;
		if (rx_until(n, rx_fn, &x, 1, 20000))
			return 3;
	} else {
		if (rx_until(n, rx_fn_eagain, &x, EAGAIN_N, 20000))
			return 4;
		if (x.bad || x.offers < EAGAIN_N + EAGAIN_N / 3)
			return 5;
		if (net_send(n, 1, buf, 0))
			return 6;
	}
	net_close(n);
	return 0;
}

static void test_eagain(void)
{
	static const char *const hosts[] = { HOST_A, HOST_B };
	static const uint32_t ranks[] = { 0, 1 };
	struct job j;

	job_init(&j, 2, hosts, 250);
	run_ranks("-EAGAIN from the consumer keeps the message, in order",
		  eagain_rank, &j, ranks, 2);
	job_free(&j);
}

/* ---- orderly close ---- */

static int bye_rank(void *arg, uint32_t rank)
{
	static unsigned char buf[1000];
	struct job *j = arg;
	struct rx x = { .len_of = len_small, .max_msg = j->max_msg };
	int64_t deadline;
	struct net *n;
	uint32_t k;
	int rc;

	if (net_open(&n, rank, j->size, j->addrs, -1, j->max_msg))
		return 1;
	if (rank == 1) {
		/* Leaves with rank 0's messages unread. */
		pattern_fill(buf, 0, len_small(0, j->max_msg));
		if (net_send(n, 0, buf, len_small(0, j->max_msg)))
			return 2;
		usleep(200 * 1000);
		net_close(n);
		return 0;
	}
	for (k = 0; k < 10; k++)
		if (net_send(n, 1, buf, 100))
			return 3;
	if (rx_until(n, rx_fn, &x, 1, 20000) || x.bad)
		return 4;
	/* The goodbye: no error from net_poll, -EPIPE from net_send. */
	deadline = now_ms() + 10000;
	while (net_send(n, 1, buf, 10) != -EPIPE) {
		rc = net_poll(n, rx_fn, &x);
		if (rc)
			return 5;
		if (now_ms() > deadline)
			return 6;
		net_wait(n, 10 * 1000000ull);
	}
	for (k = 0; k < 3; k++)
		if (net_poll(n, rx_fn, &x) != 0 ||
		    net_wait(n, 10 * 1000000ull) != -ETIMEDOUT)
			return 7;
	net_close(n);
	return 0;
}

static void test_bye(void)
{
	static const char *const hosts[] = { HOST_A, HOST_B };
	static const uint32_t ranks[] = { 0, 1 };
	struct job j;

	job_init(&j, 2, hosts, 1000);
	run_ranks("orderly close: -EPIPE to send, no error from poll",
		  bye_rank, &j, ranks, 2);
	job_free(&j);
}

/* ---- a peer killed ---- */

struct kill_arg {
	struct job j;
	int pipe[2];
};

static int killed_rank(void *arg, uint32_t rank)
{
	static unsigned char buf[1000];
	struct kill_arg *ka = arg;
	struct rx x = { .len_of = len_small, .max_msg = ka->j.max_msg };
	int64_t deadline;
	struct net *n;
	uint32_t k;
	int rc;

	if (net_open(&n, rank, ka->j.size, ka->j.addrs, -1, ka->j.max_msg))
		return 1;
	if (rank == 1) {
		for (k = 0; k < 5; k++) {
			pattern_fill(buf, k, len_small(k, ka->j.max_msg));
			net_send(n, 0, buf, len_small(k, ka->j.max_msg));
		}
		for (;;)
			pause();
	}
	if (rx_until(n, rx_fn, &x, 5, 20000) || x.bad)
		return 2;
	if (write(ka->pipe[1], "k", 1) != 1)
		return 3;
	deadline = now_ms() + 10000;
	while ((rc = net_poll(n, rx_fn, &x)) == 0) {
		if (now_ms() > deadline)
			return 4;
		net_wait(n, 10 * 1000000ull);
	}
	if (rc != -ECONNRESET)
		return 5;
	if (net_send(n, 1, buf, 10) != -EPIPE)
		return 6;
	if (net_poll(n, rx_fn, &x) != 0)
		return 7;
	net_close(n);
	return 0;
}

static void test_killed(void)
{
	static const char *const hosts[] = { HOST_A, HOST_B };
	struct kill_arg ka;
	pid_t p0, p1;
	char c = 0;
	int st;

	job_init(&ka.j, 2, hosts, 1000);
	if (pipe(ka.pipe))
		abort();
	p1 = spawn(killed_rank, &ka, 1);
	p0 = spawn(killed_rank, &ka, 0);
	/* Rank 0 has rank 1's messages: now kill rank 1. */
	if (read(ka.pipe[0], &c, 1) != 1)
		c = 0;
	kill(p1, SIGKILL);
	reap(p1);
	st = reap(p0);
	check(c == 'k' && st == 0,
	      "peer killed: -ECONNRESET after its messages, then -EPIPE "
	      "(status %d)", st);
	close(ka.pipe[0]);
	close(ka.pipe[1]);
	job_free(&ka.j);
}

/* ---- connect timeout and handshake mismatches ---- */

static void test_timeout(void)
{
	static const char *const hosts[] = { HOST_A, HOST_B };
	struct job j;
	struct net *n;
	int64_t t;
	int rc;

	job_init(&j, 2, hosts, 100);
	setenv("COSCHED_CONNECT_TIMEOUT", "1", 1);
	t = now_ms();
	rc = net_open(&n, 0, 2, j.addrs, -1, 100);
	t = now_ms() - t;
	check(rc == -ETIMEDOUT && !n && t >= 900 && t < 3000,
	      "connecting to a peer that never comes: -ETIMEDOUT in %lld ms",
	      (long long)t);
	t = now_ms();
	rc = net_open(&n, 1, 2, j.addrs, -1, 100);
	t = now_ms() - t;
	check(rc == -ETIMEDOUT && t >= 900 && t < 3000,
	      "waiting for a peer that never comes: -ETIMEDOUT in %lld ms",
	      (long long)t);
	setenv("COSCHED_CONNECT_TIMEOUT", "1s", 1);
	rc = net_open(&n, 0, 2, j.addrs, -1, 100);
	check(rc == -EINVAL, "COSCHED_CONNECT_TIMEOUT=1s is -EINVAL");
	unsetenv("COSCHED_CONNECT_TIMEOUT");
	job_free(&j);
}

struct mismatch {
	struct job j[2];	/* what each rank believes */
};

static int mismatch_rank(void *arg, uint32_t rank)
{
	struct mismatch *m = arg;
	struct job *j = &m->j[rank];
	struct net *n;
	int rc;

	setenv("COSCHED_CONNECT_TIMEOUT", "5", 1);
	rc = net_open(&n, rank, j->size, j->addrs, -1, j->max_msg);
	if (!rc)
		net_close(n);
	return rc == -EPROTO ? 0 : 1;
}

static void test_mismatch(void)
{
	static const char *const h2[] = { HOST_A, HOST_B };
	static const char *const h3[] = { HOST_A, HOST_B, HOST_B };
	static const uint32_t ranks[] = { 0, 1 };
	struct mismatch m;

	/* Rank 1 thinks the job has a third rank, on its own node. */
	job_init(&m.j[0], 2, h2, 100);
	m.j[1].size = 3;
	m.j[1].addrs = mkaddrs(3, h3, next_port - 2);
	m.j[1].max_msg = 100;
	run_ranks("job size mismatch: -EPROTO", mismatch_rank, &m, ranks, 2);
	job_free(&m.j[0]);
	job_free(&m.j[1]);

	job_init(&m.j[0], 2, h2, 100);
	m.j[1] = m.j[0];
	m.j[1].max_msg = 101;
	run_ranks("max_msg mismatch: -EPROTO", mismatch_rank, &m, ranks, 2);
	job_free(&m.j[0]);
}

/* A stranger speaks first to rank 1, with a hello of the given fields. */
static bool fake_hello(uint32_t magic, uint32_t version)
{
	static const char *const hosts[] = { HOST_A, HOST_B };
	struct mismatch m;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	uint32_t h[5];
	int64_t deadline;
	pid_t pid;
	int fd = -1, st;

	job_init(&m.j[1], 2, hosts, 100);
	pid = spawn(mismatch_rank, &m, 1);
	sa.sin_port = htons((uint16_t)(next_port - 1));
	inet_pton(AF_INET, HOST_B, &sa.sin_addr);
	deadline = now_ms() + 5000;
	while (now_ms() < deadline) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		close(fd);
		fd = -1;
		usleep(20 * 1000);
	}
	h[0] = htonl(magic);
	h[1] = htonl(version);
	h[2] = htonl(0);
	h[3] = htonl(2);
	h[4] = htonl(100);
	if (fd >= 0)
		send(fd, h, sizeof(h), MSG_NOSIGNAL);
	st = reap(pid);
	if (fd >= 0)
		close(fd);
	job_free(&m.j[1]);
	return fd >= 0 && st == 0;
}

static void test_hello(void)
{
	check(fake_hello(0x43534e54u, 99), "protocol version 99: -EPROTO");
	check(fake_hello(0x12345678u, 1), "wrong magic: -EPROTO");
}

/* ---- ev_fd ---- */

static int evfd_rank(void *arg, uint32_t rank)
{
	struct job *j = arg;
	struct net *n;
	int64_t t;
	int efd = eventfd(0, EFD_CLOEXEC);
	uint64_t one = 1;
	int rc;

	if (net_open(&n, rank, j->size, j->addrs, efd, j->max_msg))
		return 1;
	if (rank == 0) {
		t = now_ms();
		rc = net_wait(n, 100 * 1000000ull);
		if (rc != -ETIMEDOUT || now_ms() - t < 90)
			return 2;
		if (write(efd, &one, sizeof(one)) != sizeof(one))
			return 3;
		t = now_ms();
		if (net_wait(n, 2000 * 1000000ull) || now_ms() - t > 1000)
			return 4;
		/* Still readable: returns again at once. */
		if (net_wait(n, 2000 * 1000000ull) || now_ms() - t > 1000)
			return 5;
		if (read(efd, &one, sizeof(one)) != sizeof(one))
			return 6;
		if (net_poll(n, rx_fn, NULL) != 0)
			return 7;
		if (net_wait(n, 50 * 1000000ull) != -ETIMEDOUT)
			return 8;
		if (net_send(n, 1, &one, 0))
			return 9;
	} else {
		struct rx x = { .len_of = len_small, .max_msg = j->max_msg };

		if (rx_until(n, rx_fn, &x, 1, 20000))
			return 10;
	}
	net_close(n);
	close(efd);
	return 0;
}

static void test_evfd(void)
{
	static const char *const hosts[] = { HOST_A, HOST_B };
	static const uint32_t ranks[] = { 0, 1 };
	struct job j;

	job_init(&j, 2, hosts, 100);
	run_ranks("net_wait: timeout, and ev_fd readable wakes it",
		  evfd_rank, &j, ranks, 2);
	job_free(&j);
}

/*
 * With an argument, only the tests whose name contains it run; with
 * "!name", all but those.  (valgrind 3.19 cannot run the flood test: a
 * thread blocked in io_uring_enter keeps the others from running.)
 */
static const char *only;

static void run(const char *name, void (*fn)(void))
{
	if (!only || (only[0] == '!' ? !strstr(name, only + 1) :
				       !!strstr(name, only)))
		fn();
}

int main(int argc, char **argv)
{
	/* SIGPIPE stays fatal: the library must never raise it. */
	only = argc > 1 ? argv[1] : NULL;
	unsetenv("COSCHED_CONNECT_TIMEOUT");
	/*
	 * Below the kernel's ephemeral range (32768 up): a port some other
	 * connection on the host was given cannot be ours.  Two runs at
	 * once get different ranges unless their pids collide mod 22000.
	 */
	next_port = 10000 + (int)(getpid() * 37 % 22000);
	sizes_init();
	run("peers_list", test_peers_list);
	run("peers_file", test_peers_file);
	run("sizes", test_sizes);
	run("flood", test_flood);
	run("eagain", test_eagain);
	run("bye", test_bye);
	run("killed", test_killed);
	run("timeout", test_timeout);
	run("mismatch", test_mismatch);
	run("hello", test_hello);
	run("evfd", test_evfd);
	printf("1..%d\n", n_test);
	return n_fail ? 1 : 0;
}
