// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * net.c - the inter-node transport: TCP through io_uring, one connection
 * per pair of ranks on different nodes.
 *
 * Wire format, all integers big-endian:
 *   hello  [magic][version][rank][size][max_msg], five u32, each way once
 *   frame  [u32 len][u32 flags][len bytes of payload]
 * A frame with FRAME_BYE set (and len 0) is the orderly goodbye; a
 * connection that ends without one is a lost peer.
 *
 * Two rings: rx belongs to the receiving thread (net_poll, net_wait) and
 * keeps one recv armed per connection; tx is shared by the senders under
 * tx_lock, and each sender waits for its own completions before it lets
 * go, so there is never more than one frame in flight on it.
 *
 * net_send() never receives.  A sender blocked on a peer whose socket
 * buffers are full waits until that peer's receiving thread drains them,
 * so each side of a pair must keep a thread receiving while it sends.
 */
#define _GNU_SOURCE
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <liburing.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NET_MAGIC	0x43534e54u	/* "CSNT" */
#define NET_VERSION	1u
#define FRAME_HDR	8u
#define FRAME_BYE	1u
#define RX_INIT		65536u		/* first receive buffer of a peer */
#define MAX_MSG_LIMIT	(1u << 30)	/* keeps every length in an int */
#define TIMEOUT_DEFAULT	30

/* rx user_data: a rank, or one of these. */
#define TAG_EV		(UINT64_MAX - 1)
#define TAG_CANCEL	(UINT64_MAX - 2)
/* tx user_data */
#define TAG_SEND	1
#define TAG_LINK	2

struct conn {
	int fd;
	bool remote;
	bool tx_dead;		/* atomic: sends get -EPIPE from now on */
	/* Receive side, the receiving thread's alone. */
	unsigned char *buf;	/* frames from offset 0 to len */
	size_t cap, len;
	bool armed;		/* a recv into buf + len is in flight */
	bool held;		/* fn refused the first frame in buf */
	bool ended;		/* EOF, error or garbage: nothing more comes */
	bool bye;		/* the peer said goodbye */
	bool done;		/* finished: no more delivery, no re-arming */
};

struct net {
	uint32_t rank, size, max_msg;
	int ev_fd;
	int timeout_s;
	struct conn *c;
	struct io_uring rx, tx;
	bool rx_init, tx_init;
	pthread_mutex_t tx_lock;
	int tx_err;		/* the tx ring itself failed: all sends fail */
	uint32_t narmed, nheld;
	uint32_t nlost;		/* lost peers not yet reported by net_poll */
	bool ev_armed;
	bool kick;		/* recvs not armed yet */
};

struct hello {
	uint32_t magic, version, rank, size, max_msg;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int connect_timeout(int *secs)
{
	const char *s = getenv("COSCHED_CONNECT_TIMEOUT");
	char *end;
	long v;

	*secs = TIMEOUT_DEFAULT;
	if (!s)
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v <= 0 || v > INT_MAX / 1000)
		return -EINVAL;
	*secs = (int)v;
	return 0;
}

/* ---- connection setup: plain non-blocking sockets and poll() ---- */

static int resolve(const char *host, uint16_t port, struct addrinfo **res)
{
	struct addrinfo hints = {
		.ai_socktype = SOCK_STREAM,
		.ai_protocol = IPPROTO_TCP,
		.ai_flags = AI_NUMERICSERV,
	};
	char serv[8];
	int rc;

	snprintf(serv, sizeof(serv), "%u", port);
	rc = getaddrinfo(host, serv, &hints, res);
	switch (rc) {
	case 0:
		return 0;
	case EAI_AGAIN:
		return -EAGAIN;
	case EAI_MEMORY:
		return -ENOMEM;
	case EAI_SYSTEM:
		return errno ? -errno : -EIO;
	default:
		return -EADDRNOTAVAIL;
	}
}

/* Wait for ev on fd until deadline; EINTR just waits again. */
static int wait_fd(int fd, short ev, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int64_t left;
	int rc;

	for (;;) {
		left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		rc = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (rc > 0)
			return 0;
		if (rc < 0 && errno != EINTR)
			return -errno;
	}
}

static int write_full(int fd, const void *buf, size_t len, int64_t deadline)
{
	const char *p = buf;
	ssize_t k;
	int rc;

	while (len) {
		k = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k > 0) {
			p += k;
			len -= (size_t)k;
			continue;
		}
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		rc = wait_fd(fd, POLLOUT, deadline);
		if (rc)
			return rc;
	}
	return 0;
}

static int read_full(int fd, void *buf, size_t len, int64_t deadline)
{
	char *p = buf;
	ssize_t k;
	int rc;

	while (len) {
		k = recv(fd, p, len, MSG_DONTWAIT);
		if (k > 0) {
			p += k;
			len -= (size_t)k;
			continue;
		}
		if (k == 0)
			return -ECONNRESET;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		rc = wait_fd(fd, POLLIN, deadline);
		if (rc)
			return rc;
	}
	return 0;
}

static int send_hello(struct net *n, int fd, int64_t deadline)
{
	struct hello h = {
		.magic = htonl(NET_MAGIC),
		.version = htonl(NET_VERSION),
		.rank = htonl(n->rank),
		.size = htonl(n->size),
		.max_msg = htonl(n->max_msg),
	};

	return write_full(fd, &h, sizeof(h), deadline);
}

/* Read a hello; its rank must be a remote one that has no connection. */
static int recv_hello(struct net *n, int fd, uint32_t *rank, int64_t deadline)
{
	struct hello h;
	int rc;

	rc = read_full(fd, &h, sizeof(h), deadline);
	if (rc)
		return rc;
	*rank = ntohl(h.rank);
	if (ntohl(h.magic) != NET_MAGIC || ntohl(h.version) != NET_VERSION ||
	    ntohl(h.size) != n->size || ntohl(h.max_msg) != n->max_msg ||
	    *rank >= n->size || !n->c[*rank].remote)
		return -EPROTO;
	return 0;
}

static int listen_on(const char *host, uint16_t port, int backlog, int *lfd)
{
	struct addrinfo *ai;
	int fd, one = 1, rc;

	rc = resolve(host, port, &ai);
	if (rc)
		return rc;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, backlog)) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
	} else {
		*lfd = fd;
	}
	freeaddrinfo(ai);
	return rc;
}

/* Errors that mean "not listening yet" rather than "never will". */
static bool connect_retryable(int err)
{
	return err == ECONNREFUSED || err == ETIMEDOUT || err == ECONNRESET ||
	       err == EHOSTUNREACH || err == ENETUNREACH || err == EAGAIN;
}

static int connect_once(const struct addrinfo *ai, int64_t deadline, int *fdp)
{
	socklen_t len = sizeof(int);
	int fd, err = 0, rc;

	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen)) {
		if (errno != EINPROGRESS) {
			err = errno;
		} else {
			rc = wait_fd(fd, POLLOUT, deadline);
			if (rc) {
				close(fd);
				return rc;
			}
			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len))
				err = errno;
		}
	}
	if (err) {
		close(fd);
		return -err;
	}
	*fdp = fd;
	return 0;
}

/* Connect to entry, retrying until the peer listens or deadline. */
static int connect_to(const char *host, uint16_t port, int64_t deadline,
		      int *fdp)
{
	struct addrinfo *ai;
	int64_t left;
	int rc;

	rc = resolve(host, port, &ai);
	if (rc)
		return rc;
	for (;;) {
		rc = connect_once(ai, deadline, fdp);
		if (!rc || !connect_retryable(-rc))
			break;
		left = deadline - now_ms();
		if (left <= 0) {
			rc = -ETIMEDOUT;
			break;
		}
		usleep((useconds_t)(left < 50 ? left : 50) * 1000);
	}
	freeaddrinfo(ai);
	return rc;
}

/* Blocking again (io_uring waits for us) and no Nagle delay. */
static int conn_ready(int fd)
{
	int one = 1, fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		return -errno;
	return 0;
}

/*
 * Lower ranks connect to higher ones and say hello at once; then every
 * rank accepts its lower peers, and only then reads the hellos of its
 * higher ones.  A connect completes on the peer's listen alone, so no
 * rank waits for another that waits for it.
 */
static int connect_all(struct net *n, char **hosts, uint16_t *ports)
{
	int64_t deadline = now_ms() + (int64_t)n->timeout_s * 1000;
	uint32_t r, nlower = 0;
	int lfd = -1, fd, rc;

	for (r = 0; r < n->rank; r++)
		nlower += n->c[r].remote;
	rc = listen_on(hosts[n->rank], ports[n->rank], (int)n->size, &lfd);
	if (rc)
		return rc;
	for (r = n->rank + 1; r < n->size && !rc; r++) {
		if (!n->c[r].remote)
			continue;
		rc = connect_to(hosts[r], ports[r], deadline, &n->c[r].fd);
		if (!rc)
			rc = send_hello(n, n->c[r].fd, deadline);
	}
	while (!rc && nlower) {
		rc = wait_fd(lfd, POLLIN, deadline);
		if (rc)
			break;
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				rc = -errno;
			continue;
		}
		rc = send_hello(n, fd, deadline);
		if (!rc)
			rc = recv_hello(n, fd, &r, deadline);
		if (!rc && (r > n->rank || n->c[r].fd >= 0))
			rc = -EPROTO;
		if (rc) {
			close(fd);
			break;
		}
		n->c[r].fd = fd;
		nlower--;
	}
	close(lfd);
	for (r = n->rank + 1; r < n->size && !rc; r++) {
		uint32_t who;

		if (!n->c[r].remote)
			continue;
		rc = recv_hello(n, n->c[r].fd, &who, deadline);
		if (!rc && who != r)
			rc = -EPROTO;
	}
	for (r = 0; r < n->size && !rc; r++)
		if (n->c[r].remote)
			rc = conn_ready(n->c[r].fd);
	return rc;
}

/* ---- setup and teardown ---- */

static void net_release(struct net *n)
{
	uint32_t r;

	for (r = 0; r < n->size; r++) {
		if (n->c[r].fd >= 0)
			close(n->c[r].fd);
		free(n->c[r].buf);
	}
	if (n->rx_init)
		io_uring_queue_exit(&n->rx);
	if (n->tx_init)
		io_uring_queue_exit(&n->tx);
	free(n->c);
	free(n);
}

static void net_free(struct net *n)
{
	pthread_mutex_destroy(&n->tx_lock);
	net_release(n);
}

/* Split every entry; hosts[] point into one block the caller frees. */
static int split_addrs(char **addrs, uint32_t size, char **block,
		       char ***hosts, uint16_t **ports)
{
	uint32_t r;
	int rc = 0;

	*block = malloc((size_t)size * NET_HOST_MAX);
	*hosts = calloc(size, sizeof(**hosts));
	*ports = calloc(size, sizeof(**ports));
	if (!*block || !*hosts || !*ports)
		return -ENOMEM;
	for (r = 0; r < size && !rc; r++) {
		(*hosts)[r] = *block + (size_t)r * NET_HOST_MAX;
		rc = addrs[r] ? net_addr_split(addrs[r], (*hosts)[r],
					       NET_HOST_MAX, &(*ports)[r])
			      : -EINVAL;
	}
	return rc;
}

static int rings_init(struct net *n, uint32_t nremote)
{
	unsigned int entries = 8;
	int rc;

	/* One recv per peer, the ev_fd poll and a cancel: never full. */
	while (entries < nremote + 2)
		entries *= 2;
	rc = io_uring_queue_init(entries, &n->rx, 0);
	if (rc)
		return rc;
	n->rx_init = true;
	rc = io_uring_queue_init(4, &n->tx, 0);
	if (rc)
		return rc;
	n->tx_init = true;
	return 0;
}

static int net_setup(struct net *n, char **addrs)
{
	char *block = NULL, **hosts = NULL;
	uint16_t *ports = NULL;
	uint32_t r, nremote = 0;
	int rc;

	rc = split_addrs(addrs, n->size, &block, &hosts, &ports);
	for (r = 0; r < n->size && !rc; r++) {
		n->c[r].remote = strcmp(hosts[r], hosts[n->rank]) != 0;
		nremote += n->c[r].remote;
	}
	if (!rc)
		rc = rings_init(n, nremote);
	if (!rc && nremote)
		rc = connect_all(n, hosts, ports);
	free(block);
	free(hosts);
	free(ports);
	return rc;
}

int net_open(struct net **np, uint32_t rank, uint32_t size, char **addrs,
	     int ev_fd, uint32_t max_msg)
{
	struct net *n;
	uint32_t r;
	int rc;

	*np = NULL;
	if (!addrs || rank >= size || max_msg > MAX_MSG_LIMIT)
		return -EINVAL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->c = calloc(size, sizeof(*n->c));
	if (!n->c) {
		free(n);
		return -ENOMEM;
	}
	pthread_mutex_init(&n->tx_lock, NULL);
	n->rank = rank;
	n->size = size;
	n->max_msg = max_msg;
	n->ev_fd = ev_fd;
	n->kick = true;
	for (r = 0; r < size; r++)
		n->c[r].fd = -1;
	rc = connect_timeout(&n->timeout_s);
	if (!rc)
		rc = net_setup(n, addrs);
	if (rc) {
		net_free(n);
		return rc;
	}
	*np = n;
	return 0;
}

bool net_remote(const struct net *n, uint32_t rank)
{
	return rank < n->size && n->c[rank].remote;
}

int net_socket(const struct net *n, uint32_t rank)
{
	return net_remote(n, rank) ? n->c[rank].fd : -1;
}

/* ---- sending ---- */

static bool tx_dead(struct conn *c)
{
	return __atomic_load_n(&c->tx_dead, __ATOMIC_ACQUIRE);
}

static void set_tx_dead(struct conn *c)
{
	__atomic_store_n(&c->tx_dead, true, __ATOMIC_RELEASE);
}

/*
 * One sendmsg on the tx ring, waited for; with timeout_s, a linked
 * timeout cancels it (-ETIMEDOUT).  Every submitted SQE is reaped before
 * returning: they point into the caller's stack.
 */
static int tx_one(struct net *n, int fd, struct msghdr *msg, int timeout_s)
{
	struct __kernel_timespec ts = { .tv_sec = timeout_s };
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int want = 1, res = -EIO, rc;

	sqe = io_uring_get_sqe(&n->tx);
	io_uring_prep_sendmsg(sqe, fd, msg, MSG_NOSIGNAL);
	io_uring_sqe_set_data64(sqe, TAG_SEND);
	if (timeout_s) {
		sqe->flags |= IOSQE_IO_LINK;
		sqe = io_uring_get_sqe(&n->tx);
		io_uring_prep_link_timeout(sqe, &ts, 0);
		io_uring_sqe_set_data64(sqe, TAG_LINK);
		want = 2;
	}
	do
		rc = io_uring_submit(&n->tx);
	while (rc == -EINTR || rc == -EAGAIN || rc == -EBUSY);
	if (rc < 0) {
		/* The SQEs stay queued, pointing at our stack: stop here. */
		n->tx_err = rc;
		return rc;
	}
	while (want) {
		rc = io_uring_wait_cqe(&n->tx, &cqe);
		if (rc == -EINTR)
			continue;
		if (rc < 0) {
			n->tx_err = rc;
			return rc;
		}
		if (io_uring_cqe_get_data64(cqe) == TAG_SEND)
			res = cqe->res;
		io_uring_cqe_seen(&n->tx, cqe);
		want--;
	}
	return res == -ECANCELED && timeout_s ? -ETIMEDOUT : res;
}

/* Send all of iov[0..niov), resubmitting what a short send left. */
static int tx_all(struct net *n, int fd, struct iovec *iov, size_t niov,
		  int timeout_s)
{
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = niov };
	size_t k;
	int res;

	while (msg.msg_iovlen) {
		res = tx_one(n, fd, &msg, timeout_s);
		if (res == -EINTR || res == -EAGAIN)
			continue;
		if (res <= 0)
			return res ? res : -EPIPE;
		k = (size_t)res;
		while (msg.msg_iovlen && k >= msg.msg_iov->iov_len) {
			k -= msg.msg_iov->iov_len;
			msg.msg_iov++;
			msg.msg_iovlen--;
		}
		if (msg.msg_iovlen) {
			msg.msg_iov->iov_base = (char *)msg.msg_iov->iov_base + k;
			msg.msg_iov->iov_len -= k;
		}
	}
	return 0;
}

/*
 * Send one frame to c, tx_lock held.  Any failure may have left part of
 * a frame on the wire, so the connection is finished: shut our side so
 * the peer sees it end without a goodbye.
 */
static int tx_frame(struct net *n, struct conn *c, uint32_t len,
		    uint32_t flags, const void *buf, int timeout_s)
{
	uint32_t hdr[2] = { htonl(len), htonl(flags) };
	struct iovec iov[2] = {
		{ .iov_base = hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = (void *)buf, .iov_len = len },
	};

	if (n->tx_err)
		return n->tx_err;
	if (tx_dead(c))
		return -EPIPE;
	if (tx_all(n, c->fd, iov, len ? 2 : 1, timeout_s)) {
		set_tx_dead(c);
		shutdown(c->fd, SHUT_WR);
		return -EPIPE;
	}
	return 0;
}

int net_send(struct net *n, uint32_t rank, const void *buf, size_t len)
{
	int rc;

	if (!net_remote(n, rank))
		return -EINVAL;
	if (len > n->max_msg)
		return -EMSGSIZE;
	pthread_mutex_lock(&n->tx_lock);
	rc = tx_frame(n, &n->c[rank], (uint32_t)len, 0, buf, 0);
	pthread_mutex_unlock(&n->tx_lock);
	return rc;
}

/* ---- receiving ---- */

static void rx_arm(struct net *n, uint32_t r)
{
	struct conn *c = &n->c[r];
	struct io_uring_sqe *sqe;

	/* The ring has room for every peer's recv; this is only a guard. */
	sqe = io_uring_get_sqe(&n->rx);
	if (!sqe) {
		io_uring_submit(&n->rx);
		sqe = io_uring_get_sqe(&n->rx);
		if (!sqe)
			return;
	}
	io_uring_prep_recv(sqe, c->fd, c->buf + c->len, c->cap - c->len, 0);
	io_uring_sqe_set_data64(sqe, r);
	c->armed = true;
	n->narmed++;
}

/* Take note of one completion; delivery and re-arming come after. */
static void rx_complete(struct net *n, const struct io_uring_cqe *cqe)
{
	uint64_t tag = io_uring_cqe_get_data64(cqe);
	struct conn *c;

	if (tag == TAG_EV) {
		n->ev_armed = false;
		return;
	}
	if (tag >= n->size)
		return;
	c = &n->c[tag];
	c->armed = false;
	n->narmed--;
	if (cqe->res > 0)
		c->len += (size_t)cqe->res;
	else if (cqe->res != -EINTR && cqe->res != -EAGAIN &&
		 cqe->res != -ECANCELED)
		c->ended = true;	/* EOF or a socket error */
	/*
	 * -ECANCELED: the thread that armed it exited; the next net_poll
	 * re-arms from the current one.
	 */
}

/*
 * Hand c's complete frames to fn, then drop them from the buffer.  Stops
 * at a frame fn refuses (returns true), at the goodbye, and at a frame no
 * honest peer sends (which ends the connection).
 */
static bool rx_deliver(struct net *n, uint32_t r, net_deliver_fn fn,
		       void *arg, int *count)
{
	struct conn *c = &n->c[r];
	uint32_t hdr[2], len, flags;
	size_t off = 0;
	bool held = false;

	while (c->len - off >= FRAME_HDR) {
		memcpy(hdr, c->buf + off, sizeof(hdr));
		len = ntohl(hdr[0]);
		flags = ntohl(hdr[1]);
		if (flags == FRAME_BYE) {
			c->bye = true;
			break;
		}
		if (flags || len > n->max_msg) {
			c->ended = true;
			shutdown(c->fd, SHUT_RDWR);
			break;
		}
		if (c->len - off - FRAME_HDR < len)
			break;
		if (fn(arg, r, c->buf + off + FRAME_HDR, len)) {
			held = true;
			break;
		}
		off += FRAME_HDR + len;
		(*count)++;
	}
	if (off) {
		memmove(c->buf, c->buf + off, c->len - off);
		c->len -= off;
	}
	return held;
}

/* Room for the frame at the head of the buffer, and some. */
static int rx_room(struct net *n, struct conn *c)
{
	size_t need = FRAME_HDR, lim = (size_t)n->max_msg + FRAME_HDR, cap;
	uint32_t len;
	void *p;

	if (c->len >= FRAME_HDR) {
		memcpy(&len, c->buf, sizeof(len));
		need = FRAME_HDR + (size_t)ntohl(len);
	}
	if (need <= c->cap && c->cap > c->len)
		return 0;
	/* Double, start at RX_INIT, never beyond the largest frame. */
	cap = c->cap ? c->cap * 2 : RX_INIT;
	if (cap > lim)
		cap = lim;
	if (cap < need)
		cap = need;
	p = realloc(c->buf, cap);
	if (!p)
		return -ENOMEM;
	/*
	 * The kernel fills it through the ring, which memory checkers such
	 * as valgrind cannot see: zero it once so they see it defined.
	 */
	memset((char *)p + c->cap, 0, cap - c->cap);
	c->buf = p;
	c->cap = cap;
	return 0;
}

static void set_held(struct net *n, struct conn *c, bool held)
{
	if (c->held != held)
		n->nheld += held ? 1 : -1;
	c->held = held;
}

/* Deliver what peer r has ready, then re-arm its recv or finish it. */
static void rx_process(struct net *n, uint32_t r, net_deliver_fn fn,
		       void *arg, int *count)
{
	struct conn *c = &n->c[r];

	if (!c->remote || c->armed || c->done)
		return;
	set_held(n, c, rx_deliver(n, r, fn, arg, count));
	if (c->held)
		return;
	if (!c->bye && !c->ended && rx_room(n, c))
		c->ended = true;
	if (c->bye || c->ended) {
		c->done = true;
		set_tx_dead(c);
		if (!c->bye)
			n->nlost++;
		return;
	}
	rx_arm(n, r);
}

int net_poll(struct net *n, net_deliver_fn fn, void *arg)
{
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;
	int count = 0;
	uint32_t r;

	/* Reads the CQ ring's shared memory only: no system call. */
	io_uring_for_each_cqe(&n->rx, head, cqe) {
		rx_complete(n, cqe);
		seen++;
	}
	if (seen)
		io_uring_cq_advance(&n->rx, seen);
	if (seen || n->nheld || n->kick) {
		n->kick = false;
		for (r = 0; r < n->size; r++)
			rx_process(n, r, fn, arg, &count);
	}
	if (io_uring_sq_ready(&n->rx))
		io_uring_submit(&n->rx);
	if (count)
		return count;
	if (n->nlost) {
		n->nlost--;
		return -ECONNRESET;
	}
	return 0;
}

int net_fetch(struct net *n)
{
	return io_uring_get_events(&n->rx);
}

bool net_pending(struct net *n)
{
	return io_uring_cq_ready(&n->rx) || n->nheld || n->kick;
}

/* Arm every peer's first recv, from the receiving thread. */
static void rx_kick(struct net *n)
{
	uint32_t r;

	n->kick = false;
	for (r = 0; r < n->size; r++)
		if (n->c[r].remote && !n->c[r].armed && !rx_room(n, &n->c[r]))
			rx_arm(n, r);
}

/* Consume the ev_fd poll's completions at the head of the CQ. */
static void rx_eat_ev(struct net *n)
{
	struct io_uring_cqe *cqe;

	while (!io_uring_peek_cqe(&n->rx, &cqe) &&
	       io_uring_cqe_get_data64(cqe) == TAG_EV) {
		n->ev_armed = false;
		io_uring_cqe_seen(&n->rx, cqe);
	}
}

int net_wait(struct net *n, uint64_t timeout_ns)
{
	struct __kernel_timespec ts = {
		.tv_sec = (long long)(timeout_ns / 1000000000u),
		.tv_nsec = (long long)(timeout_ns % 1000000000u),
	};
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int rc;

	if (n->kick)
		rx_kick(n);
	/* A loss net_poll has yet to report is news already. */
	if (n->nlost)
		return 0;
	if (n->ev_fd >= 0 && !n->ev_armed) {
		sqe = io_uring_get_sqe(&n->rx);
		if (sqe) {
			io_uring_prep_poll_add(sqe, n->ev_fd, POLLIN);
			io_uring_sqe_set_data64(sqe, TAG_EV);
			n->ev_armed = true;
		}
	}
	if (io_uring_sq_ready(&n->rx)) {
		rc = io_uring_submit(&n->rx);
		if (rc < 0 && rc != -EAGAIN && rc != -EBUSY)
			return rc;
	}
	/* Waits only: the completion stays for net_poll to reap. */
	if (timeout_ns)
		rc = io_uring_wait_cqe_timeout(&n->rx, &cqe, &ts);
	else
		rc = io_uring_wait_cqe(&n->rx, &cqe);
	if (rc == -ETIME)
		return -ETIMEDOUT;
	if (rc < 0)
		return rc;
	rx_eat_ev(n);
	return 0;
}

/* ---- closing ---- */

/* Cancel every request still on rx and reap them all. */
static void rx_drain(struct net *n)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int rc;

	if (!n->narmed && !n->ev_armed)
		return;
	sqe = io_uring_get_sqe(&n->rx);
	if (sqe) {
		io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
		io_uring_sqe_set_data64(sqe, TAG_CANCEL);
	}
	io_uring_submit(&n->rx);
	while (n->narmed || n->ev_armed) {
		rc = io_uring_wait_cqe(&n->rx, &cqe);
		if (rc == -EINTR)
			continue;
		if (rc < 0)
			break;
		rx_complete(n, cqe);
		io_uring_cqe_seen(&n->rx, cqe);
	}
}

/* Discard what we never read: close() would answer it with a reset. */
static void discard_input(int fd)
{
	char sink[4096];

	while (recv(fd, sink, sizeof(sink), MSG_DONTWAIT | MSG_TRUNC) > 0)
		;
}

/* Has the peer acknowledged our FIN, and so everything before it? */
static bool fin_acked(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return true;
	return ti.tcpi_state != TCP_FIN_WAIT1 &&
	       ti.tcpi_state != TCP_CLOSING && ti.tcpi_state != TCP_LAST_ACK;
}

/*
 * Give each peer until the timeout to acknowledge what we sent, goodbye
 * and FIN included: closing with unread input sends a reset, and a reset
 * throws away whatever our side has not yet sent.
 */
static void wait_acked(struct net *n)
{
	int64_t deadline = now_ms() + (int64_t)n->timeout_s * 1000;
	uint32_t r;

	for (r = 0; r < n->size; r++) {
		if (n->c[r].fd < 0)
			continue;
		while (!fin_acked(n->c[r].fd) && now_ms() < deadline)
			usleep(1000);
	}
}

/* tx_lock may have been held by a parent's thread at the fork: left be. */
void net_forget(struct net *n)
{
	if (n)
		net_release(n);
}

void net_close(struct net *n)
{
	struct conn *c;
	uint32_t r;

	if (!n)
		return;
	for (r = 0; r < n->size; r++) {
		c = &n->c[r];
		if (!c->remote || c->fd < 0)
			continue;
		pthread_mutex_lock(&n->tx_lock);
		tx_frame(n, c, 0, FRAME_BYE, NULL, n->timeout_s);
		set_tx_dead(c);
		pthread_mutex_unlock(&n->tx_lock);
		/* After the goodbye: the FIN; SHUT_RD ends our own recv. */
		shutdown(c->fd, SHUT_RDWR);
	}
	rx_drain(n);
	wait_acked(n);
	for (r = 0; r < n->size; r++)
		if (n->c[r].fd >= 0)
			discard_input(n->c[r].fd);
	net_free(n);
}
