// SPDX-License-Identifier: GPL-2.0
/*
 * net_wake: how soon a receiver that shares its node's CPU with a CPU hog
 * answers a message that came over the network from another node.  The
 * echo side (one node) busy-polls next to a hog and sends every 8-byte
 * message straight back; the ping side (another node, idle) times each
 * round trip on its own clock, so the nodes' clocks never meet.  Run with
 * the hog (-h) under local and under dcs, and without it for the floor:
 * the round trip minus the floor is the time the message waited for the
 * receiver to be put on its CPU.  The ping side blocks for the answer, so
 * that its node's vCPU leaves the host's CPU to the emulated network.  Two transports:
 *
 *   tcp    a plain TCP socket, registered with the module
 *          (cosched_register_fd), polled with recv(MSG_DONTWAIT) as MPI
 *          over TCP does;
 *   uring  libcosched's own TCP transport (io_uring), a 2-rank job whose
 *          rank 0 pings and rank 1 echoes (COSCHED_PEERS from -a).
 *
 * usage:
 *   net_wake echo -T tcp|uring -p PORT [-a HOST0,HOST1] [-j JOB] [-h] [-t S]
 *   net_wake ping -T tcp|uring -p PORT -a HOST0,HOST1 [-j JOB] [-n N]
 *                 [-g MS] [-t S]
 * HOST1 is the echo node (tcp: the one ping connects to).  The echo side
 * prints what it answered, its endpoint's arrivals and boosts, how often
 * it was preempted (nivcsw), the hog's CPU time and how long it ran
 * (hog_ms, wall_ms); the ping side
 * prints samples=N p50_us= p90_us= max_us= of the round trips.  Both end
 * with status 3 when the run outlasts -t seconds (default 120).
 */
#define _GNU_SOURCE
#include <cosched.h>

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "timing.h"

#define WARMUP 5	/* round trips not counted: connections, caches */

struct opts {
	int echo;		/* 1 echo side, 0 ping side */
	int uring;		/* libcosched's transport, else plain TCP */
	int port, n, gap_ms, limit_s, hog;
	const char *addrs;	/* "HOST0,HOST1" */
	uint64_t job;
};

static void on_alarm(int sig)
{
	static const char msg[] = "net_wake: time limit reached\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(3);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The echo node's name: the part of "HOST0,HOST1" after the comma. */
static int echo_host(const char *addrs, char *host, size_t len)
{
	const char *c = strchr(addrs, ',');

	if (!c || c == addrs || !c[1] || strchr(c + 1, ',') ||
	    strlen(c + 1) >= len)
		return -1;
	strcpy(host, c + 1);
	return 0;
}

/* COSCHED_PEERS for the uring job: HOST0:port for rank 0, HOST1:port+1. */
static int set_peers(const struct opts *o)
{
	char peers[600], h0[256], h1[256];
	const char *c = strchr(o->addrs, ',');

	if (echo_host(o->addrs, h1, sizeof(h1)) ||
	    (size_t)(c - o->addrs) >= sizeof(h0)) {
		fprintf(stderr, "net_wake: -a wants HOST0,HOST1\n");
		return -1;
	}
	memcpy(h0, o->addrs, (size_t)(c - o->addrs));
	h0[c - o->addrs] = '\0';
	snprintf(peers, sizeof(peers), "%s:%d,%s:%d", h0, o->port, h1,
		 o->port + 1);
	return setenv("COSCHED_PEERS", peers, 1);
}

static void nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* The echo side of plain TCP: one connection accepted on port. */
static int tcp_accept(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_ANY) };
	int one = 1, l, fd;

	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0)
		return -1;
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1)) {
		close(l);
		return -1;
	}
	fd = accept(l, NULL, NULL);
	close(l);
	if (fd >= 0)
		nodelay(fd);
	return fd;
}

/* The ping side of plain TCP: connect to host:port, retrying until up. */
static int tcp_connect(const char *host, int port)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM }, *ai;
	char svc[16];
	int fd = -1, tries;

	snprintf(svc, sizeof(svc), "%d", port);
	if (getaddrinfo(host, svc, &hints, &ai)) {
		fprintf(stderr, "net_wake: cannot resolve %s\n", host);
		return -1;
	}
	/* The echo side may not be listening yet: 10 s of tries. */
	for (tries = 0; tries < 100; tries++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			break;
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		close(fd);
		fd = -1;
		usleep(100000);
	}
	if (fd < 0)
		fprintf(stderr, "net_wake: cannot connect to %s:%d: %s\n", host,
			port, strerror(errno));
	freeaddrinfo(ai);
	if (fd >= 0)
		nodelay(fd);
	return fd;
}

/*
 * Read exactly 8 bytes; 1 at end of stream.  With ep: recv(MSG_DONTWAIT)
 * polls, telling the module when nothing is left; without: blocking.
 */
static int read_u64(int fd, struct cosched_ep *ep, uint64_t *v)
{
	size_t got = 0;

	while (got < sizeof(*v)) {
		uint64_t seen = ep ? cosched_arrivals(ep) : 0;
		ssize_t r = recv(fd, (char *)v + got, sizeof(*v) - got,
				 ep ? MSG_DONTWAIT : 0);

		if (r > 0) {
			got += (size_t)r;
		} else if (r == 0) {
			return 1;
		} else if (errno != EAGAIN && errno != EINTR) {
			return -1;
		} else if (ep) {
			/* Nothing left: the module may stop counting us pending. */
			cosched_consumed(ep, seen);
		}
	}
	return 0;
}

static double cpu_ms(const struct rusage *ru)
{
	return (ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1e3 +
	       (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e3;
}

/*
 * After the hog was reaped: its CPU time is the children's; wall_ms is
 * how long it ran (0 without a hog), so hog_ms / wall_ms is its share.
 */
static void print_echo_stats(struct cosched_ep *ep, int answered,
			     double wall_ms)
{
	struct cosched_ep_stats st;
	struct rusage self, hog;

	if (cosched_stats(ep, &st) || getrusage(RUSAGE_SELF, &self) ||
	    getrusage(RUSAGE_CHILDREN, &hog))
		return;
	printf("echo: answered=%d arrivals=%llu boosts=%llu boosted_ms=%.1f nivcsw=%ld hog_ms=%.0f wall_ms=%.0f\n",
	       answered, (unsigned long long)st.module.arrivals,
	       (unsigned long long)st.module.boosts,
	       st.module.boosted_ns / 1e6, self.ru_nivcsw, cpu_ms(&hog),
	       wall_ms);
}

static int run_echo(const struct opts *o)
{
	struct cosched_ep *ep;
	pid_t hog = 0;
	uint64_t v, t_hog = 0;
	int fd = -1, answered = 0, st = 0;

	if (o->uring && set_peers(o))
		return 2;
	if (cosched_open(&ep, o->job, o->uring ? 1 : 0, o->uring ? 2 : 1, 0)) {
		perror("net_wake: cosched_open");
		return 1;
	}
	if (!o->uring) {
		fd = tcp_accept(o->port);
		if (fd < 0 || cosched_register_fd(ep, fd)) {
			perror("net_wake: accept or register");
			if (fd >= 0)
				close(fd);
			cosched_close(ep);
			return 1;
		}
	}
	if (o->hog) {
		hog = spawn_hog(0);
		if (hog < 0) {
			perror("net_wake: the hog");
			st = 1;
			goto out;
		}
		t_hog = now_ns();
	}
	for (;;) {
		if (o->uring) {
			if (cosched_recv(ep, NULL, &v, sizeof(v),
					 COSCHED_MODE_POLL) != sizeof(v)) {
				st = 1;
				break;
			}
			if (v == 0)	/* the ping side's end */
				break;
			if (cosched_send(ep, 0, &v, sizeof(v))) {
				st = 1;
				break;
			}
		} else {
			int r = read_u64(fd, ep, &v);

			if (r) {
				st = r < 0;
				break;
			}
			if (send(fd, &v, sizeof(v), MSG_NOSIGNAL) != sizeof(v)) {
				st = 1;
				break;
			}
		}
		answered++;
	}
	if (hog > 0) {
		kill(hog, SIGKILL);
		t_hog = now_ns() - t_hog;
		waitpid(hog, NULL, 0);
	}
	print_echo_stats(ep, answered, t_hog / 1e6);
out:
	if (fd >= 0)
		close(fd);
	cosched_close(ep);
	return st;
}

/* One round trip of v; 0 or -1. */
static int round_trip(struct cosched_ep *ep, int fd, uint64_t v)
{
	uint64_t back;

	if (ep) {
		if (cosched_send(ep, 1, &v, sizeof(v)) ||
		    cosched_recv(ep, NULL, &back, sizeof(back),
				 COSCHED_MODE_BLOCK) != sizeof(back))
			return -1;
	} else if (send(fd, &v, sizeof(v), MSG_NOSIGNAL) != sizeof(v) ||
		   read_u64(fd, NULL, &back)) {
		return -1;
	}
	return back == v ? 0 : -1;
}

static int run_ping(const struct opts *o)
{
	struct cosched_ep *ep = NULL;
	char host[256];
	uint64_t *rtt, t0, end = 0;
	int fd = -1, i, st = 0;

	if (echo_host(o->addrs, host, sizeof(host)) ||
	    (o->uring && set_peers(o)))
		return 2;
	rtt = calloc((size_t)o->n, sizeof(*rtt));
	if (!rtt)
		return 1;
	if (o->uring) {
		if (cosched_open(&ep, o->job, 0, 2, 0)) {
			perror("net_wake: cosched_open");
			free(rtt);
			return 1;
		}
		cosched_set_spin(ep, 0);	/* block at once, as tcp does */
	} else {
		fd = tcp_connect(host, o->port);
		if (fd < 0) {
			free(rtt);
			return 1;
		}
	}
	srandom((unsigned int)now_ns());
	for (i = -WARMUP; i < o->n; i++) {
		/* A random gap, so that arrivals fall anywhere in a slice. */
		usleep((useconds_t)(o->gap_ms * 1000 / 2 +
				    random() % (o->gap_ms * 1000 + 1)));
		t0 = now_ns();
		if (round_trip(ep, fd, (uint64_t)(i + WARMUP + 1))) {
			fprintf(stderr, "net_wake: round trip %d failed\n", i);
			st = 1;
			break;
		}
		if (i >= 0)
			rtt[i] = now_ns() - t0;
	}
	/* Tell the echo side to stop: end of stream, or a 0 message. */
	if (ep) {
		cosched_send(ep, 1, &end, sizeof(end));
		cosched_close(ep);
	} else {
		close(fd);
	}
	if (st) {
		free(rtt);
		return st;
	}
	qsort(rtt, (size_t)o->n, sizeof(*rtt), cmp_u64);
	printf("samples=%d p50_us=%.1f p90_us=%.1f max_us=%.1f\n", o->n,
	       rtt[o->n / 2] / 1e3, rtt[o->n * 9 / 10] / 1e3,
	       rtt[o->n - 1] / 1e3);
	free(rtt);
	return 0;
}

/* A decimal int option in [lo, hi], or exit through usage(). */
static int parse_int(const char *s, int lo, int hi, int *v)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(s, &end, 10);
	if (errno || end == s || *end || x < lo || x > hi)
		return -1;
	*v = (int)x;
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: net_wake echo -T tcp|uring -p PORT [-a HOST0,HOST1] [-j JOB] [-h] [-t S]\n"
		"       net_wake ping -T tcp|uring -p PORT -a HOST0,HOST1 [-j JOB] [-n N] [-g MS] [-t S]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct opts o = { .n = 200, .gap_ms = 5, .limit_s = 120,
			  .job = 0x7c9a00000001ull };
	const char *transport = NULL;
	char host[256];
	int c;

	if (argc < 2 || (strcmp(argv[1], "echo") && strcmp(argv[1], "ping")))
		return usage();
	o.echo = !strcmp(argv[1], "echo");
	optind = 2;
	while ((c = getopt(argc, argv, "T:p:a:j:hn:g:t:")) != -1) {
		switch (c) {
		case 'T':
			transport = optarg;
			break;
		case 'p':
			if (parse_int(optarg, 1024, 65534, &o.port))
				return usage();
			break;
		case 'a':
			o.addrs = optarg;
			break;
		case 'j':
			o.job = strtoull(optarg, NULL, 0);
			break;
		case 'h':
			o.hog = 1;
			break;
		case 'n':
			if (parse_int(optarg, 1, 1000000, &o.n))
				return usage();
			break;
		case 'g':
			if (parse_int(optarg, 1, 1000, &o.gap_ms))
				return usage();
			break;
		case 't':
			if (parse_int(optarg, 1, 86400, &o.limit_s))
				return usage();
			break;
		default:
			return usage();
		}
	}
	if (!transport || (strcmp(transport, "tcp") && strcmp(transport, "uring")))
		return usage();
	o.uring = !strcmp(transport, "uring");
	/* Every refusal before the alarm and pinning, which can fail too. */
	if (!o.port || !o.job || ((o.uring || !o.echo) && !o.addrs) ||
	    (o.addrs && echo_host(o.addrs, host, sizeof(host))))
		return usage();
	signal(SIGALRM, on_alarm);
	alarm((unsigned int)o.limit_s);
	if (pin_cpu(0)) {
		perror("net_wake: CPU 0");
		return 1;
	}
	return o.echo ? run_echo(&o) : run_ping(&o);
}
