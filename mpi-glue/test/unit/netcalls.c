// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * netcalls-unit: the glue's interposed connect(), accept(), accept4()
 * and listen() (netcalls.c) with sockets.c, on the host, without the
 * module: cosched_register_fd() is stubbed here, records the descriptor
 * and clobbers errno.  Checks that the calls keep errno exactly as the C
 * library set it, that only TCP sockets are registered (not AF_UNIX, not
 * UDP, not a failed connect), that a non-blocking connect in progress is,
 * that sockets made before the endpoint are registered when it comes
 * (unless closed meanwhile, even with the number reused), and that
 * nothing happens before glue_socks_arm() or after glue_socks_stop().
 * Last line "N passed, N failed" (test/check.sh).
 */
#define _GNU_SOURCE
#include "sockets.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int pass, fail;
static int regs[256], nreg, stub_err, stub_fail_once, ncalls;

static void ok(int cond, const char *what)
{
	if (cond)
		pass++;
	else
		fail++;
	printf("%s %d - %s\n", cond ? "ok" : "not ok", pass + fail, what);
}

/* The module's side, stubbed: errno clobbered as an ioctl might. */
int cosched_register_fd(struct cosched_ep *ep, int fd)
{
	int err = stub_fail_once;

	(void)ep;
	errno = EIO;
	ncalls++;
	stub_fail_once = 0;
	if (err)
		return err;
	if (stub_err)
		return stub_err;
	if (nreg < (int)(sizeof(regs) / sizeof(regs[0])))
		regs[nreg++] = fd;
	return 0;
}

static int unregs[16], nunreg;

int cosched_unregister_fd(struct cosched_ep *ep, int fd)
{
	(void)ep;
	errno = EIO;
	if (nunreg < (int)(sizeof(unregs) / sizeof(unregs[0])))
		unregs[nunreg++] = fd;
	return 0;
}

/* Registrations since mark() count (numbers get reused). */
static int from;

static void mark(void)
{
	from = nreg;
}

static bool registered(int fd)
{
	int i;

	for (i = from; i < nreg; i++)
		if (regs[i] == fd)
			return true;
	return false;
}

/* A TCP listener on 127.0.0.1 (listen() interposed), its address. */
static int tcp_listener(struct sockaddr_in *sa)
{
	socklen_t len = sizeof(*sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)sa, sizeof(*sa)) ||
	    getsockname(fd, (struct sockaddr *)sa, &len) || listen(fd, 8))
		return -1;
	return fd;
}

/* A port nobody listens on: a listener's, closed. */
static struct sockaddr_in dead_port(void)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	getsockname(fd, (struct sockaddr *)&sa, &len);
	close(fd);
	return sa;
}

static int unix_listener(struct sockaddr_un *su)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	memset(su, 0, sizeof(*su));
	su->sun_family = AF_UNIX;
	/* abstract name: nothing to clean up */
	snprintf(su->sun_path + 1, sizeof(su->sun_path) - 1,
		 "netcalls-unit-%d", getpid());
	if (fd < 0 || bind(fd, (struct sockaddr *)su, sizeof(*su)) ||
	    listen(fd, 8))
		return -1;
	return fd;
}

/* Before glue_socks_arm() and after stop: the C library's calls only. */
static void off(const char *when)
{
	struct sockaddr_in sa, dead = dead_port();
	char what[128];
	int l, c, a, rc, before = nreg;

	l = tcp_listener(&sa);
	c = socket(AF_INET, SOCK_STREAM, 0);
	errno = 1234;
	rc = connect(c, (struct sockaddr *)&sa, sizeof(sa));
	snprintf(what, sizeof(what), "%s: connect succeeds, errno untouched", when);
	ok(rc == 0 && errno == 1234, what);
	a = accept(l, NULL, NULL);
	close(c);
	c = socket(AF_INET, SOCK_STREAM, 0);
	rc = connect(c, (struct sockaddr *)&dead, sizeof(dead));
	snprintf(what, sizeof(what), "%s: refused connect: ECONNREFUSED", when);
	ok(rc == -1 && errno == ECONNREFUSED, what);
	snprintf(what, sizeof(what), "%s: nothing registered", when);
	ok(a >= 0 && nreg == before, what);
	close(a);
	close(c);
	close(l);
}

/*
 * Under local with a polling wait (park): the module is asked once, with
 * a socket of the glue's own, whether it can watch TCP sockets; then
 * nothing is registered until glue_socks_unpark(), which registers the
 * open ones, later ones at once.
 */
static void parked_cases(void)
{
	struct sockaddr_in sa2;
	struct cosched_ep *fake = (struct cosched_ep *)&sa2;
	struct glue_socks_stats st;
	uint64_t failed;
	int l, c, a, c2, a2, n, u, calls;

	glue_socks_arm();
	l = tcp_listener(&sa2);
	c = socket(AF_INET, SOCK_STREAM, 0);
	connect(c, (struct sockaddr *)&sa2, sizeof(sa2));
	a = accept(l, NULL, NULL);
	mark();
	u = nunreg;
	n = glue_socks_start(fake, 0, false, true);
	ok(n == 3 && nreg - from == 1 && nunreg == u + 1 &&
	   unregs[u] == regs[from] && !registered(l) && !registered(c) &&
	   !registered(a),
	   "parked: 3 open; a socket of its own registered and unregistered (the probe)");
	mark();
	c2 = socket(AF_INET, SOCK_STREAM, 0);
	connect(c2, (struct sockaddr *)&sa2, sizeof(sa2));
	a2 = accept(l, NULL, NULL);
	close(a);
	glue_socks_get_stats(&st);
	ok(nreg == from && st.parked == 4,
	   "parked: a new connection stays unregistered; 4 open parked, the closed one not counted");
	glue_socks_get_stats(&st);
	failed = st.failed;
	stub_fail_once = -ENOMEM;
	glue_socks_unpark();
	glue_socks_get_stats(&st);
	ok(nreg - from == 3 && st.failed == failed + 1 && !registered(a),
	   "unparked, the first registration refused: the other 3 still registered, 1 counted failed");
	ok(st.parked == 0, "unparked: none parked");
	mark();
	glue_socks_unpark();
	ok(nreg == from, "unpark again: nothing more");
	a = socket(AF_INET, SOCK_STREAM, 0);
	connect(a, (struct sockaddr *)&sa2, sizeof(sa2));
	ok(registered(a), "after unpark: a new connection registered at once");
	close(a);
	a = accept(l, NULL, NULL);
	close(a);
	close(a2);
	close(c2);
	close(c);
	glue_socks_stop();

	/* Stopped while parked (MPI_Finalize under local): nothing later. */
	glue_socks_arm();
	c = socket(AF_INET, SOCK_STREAM, 0);
	connect(c, (struct sockaddr *)&sa2, sizeof(sa2));
	a = accept(l, NULL, NULL);
	n = glue_socks_start(fake, 0, false, true);
	glue_socks_stop();
	mark();
	glue_socks_unpark();
	ok(n == 2 && nreg == from,
	   "stopped while parked: unpark registers nothing");
	close(a);
	close(c);

	/* A module that cannot watch TCP: the job goes plain at once. */
	glue_socks_arm();
	c = socket(AF_INET, SOCK_STREAM, 0);
	connect(c, (struct sockaddr *)&sa2, sizeof(sa2));
	a = accept(l, NULL, NULL);
	stub_err = -ENOTTY;
	calls = ncalls;
	n = glue_socks_start(fake, 0, false, true);
	stub_err = 0;
	ok(n == -ENOTTY && ncalls == calls + 1,
	   "parked, hooks refused (-ENOTTY): the probe's error returned, no retry");
	mark();
	glue_socks_unpark();
	c2 = socket(AF_INET, SOCK_STREAM, 0);
	connect(c2, (struct sockaddr *)&sa2, sizeof(sa2));
	ok(nreg == from, "after the error: nothing registered, unpark or not");
	a2 = accept(l, NULL, NULL);
	close(a2);
	close(c2);
	close(a);
	close(c);
	close(l);
	glue_socks_stop();
	off("after the parked cases");
}

int main(void)
{
	struct sockaddr_in sa, dead = dead_port();
	struct sockaddr_un su;
	struct glue_socks_stats st;
	struct cosched_ep *fake = (struct cosched_ep *)&sa;
	int l, c, a, u, ul, uc, ua, d, rc, n;

	off("before arm");

	/* Inside MPI_Init: remembered, registered with the endpoint. */
	glue_socks_arm();
	l = tcp_listener(&sa);
	c = socket(AF_INET, SOCK_STREAM, 0);
	connect(c, (struct sockaddr *)&sa, sizeof(sa));
	a = accept(l, NULL, NULL);
	ok(nreg == 0, "no endpoint yet: nothing registered");
	close(a);
	u = socket(AF_UNIX, SOCK_STREAM, 0);	/* takes a's number */
	n = glue_socks_start(fake, 0, false, false);
	ok(n == 2 && nreg == 2 && registered(l) && registered(c),
	   "endpoint made: the listener and the connection registered");
	ok(u == a && !registered(a),
	   "a remembered socket closed, its number reused by AF_UNIX: not registered");
	close(u);
	close(c);

	/* The endpoint exists: at once, errno as the C library left it. */
	c = socket(AF_INET, SOCK_STREAM, 0);
	mark();
	errno = 1234;
	rc = connect(c, (struct sockaddr *)&sa, sizeof(sa));
	ok(rc == 0 && errno == 1234 && registered(c),
	   "connect: registered at once, errno untouched");
	mark();
	errno = 4321;
	a = accept(l, NULL, NULL);
	ok(a >= 0 && errno == 4321 && registered(a),
	   "accept: registered at once, errno untouched");
	close(a);
	close(c);
	c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	mark();
	rc = connect(c, (struct sockaddr *)&sa, sizeof(sa));
	ok(rc == -1 && errno == EINPROGRESS && registered(c),
	   "non-blocking connect: EINPROGRESS kept, registered");
	mark();
	a = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	ok(a >= 0 && registered(a), "accept4: registered");
	close(a);
	close(c);
	d = socket(AF_INET, SOCK_STREAM, 0);
	n = nreg;
	rc = connect(d, (struct sockaddr *)&dead, sizeof(dead));
	ok(rc == -1 && errno == ECONNREFUSED && nreg == n,
	   "refused connect: ECONNREFUSED kept, not registered");
	close(d);
	d = socket(AF_INET, SOCK_DGRAM, 0);
	n = nreg;
	rc = connect(d, (struct sockaddr *)&sa, sizeof(sa));
	ok(rc == 0 && nreg == n, "UDP connect: not registered");
	close(d);

	n = nreg;
	ul = unix_listener(&su);
	uc = socket(AF_UNIX, SOCK_STREAM, 0);
	errno = 77;
	rc = connect(uc, (struct sockaddr *)&su, sizeof(su));
	ok(rc == 0 && errno == 77, "AF_UNIX connect: succeeds, errno untouched");
	ua = accept(ul, NULL, NULL);
	ok(ul >= 0 && ua >= 0 && nreg == n,
	   "AF_UNIX listen, connect, accept: not registered");
	close(ua);
	close(uc);
	close(ul);

	errno = 0;
	rc = listen(-1, 1);
	ok(rc == -1 && errno == EBADF, "listen(-1): EBADF kept");
	errno = 0;
	rc = accept(-1, NULL, NULL);
	ok(rc == -1 && errno == EBADF, "accept(-1): EBADF kept");

	/* The module's cap: counted, errno kept, the call succeeds. */
	stub_err = -ENOSPC;
	c = socket(AF_INET, SOCK_STREAM, 0);
	errno = 55;
	rc = connect(c, (struct sockaddr *)&sa, sizeof(sa));
	glue_socks_get_stats(&st);
	ok(rc == 0 && errno == 55 && st.full == 1,
	   "endpoint full (-ENOSPC): counted, connect unchanged");
	stub_err = 0;
	a = accept(l, NULL, NULL);
	close(a);
	close(c);
	glue_socks_get_stats(&st);
	ok(st.registered == (uint64_t)nreg,
	   "stats: registered counts every registration");
	close(l);

	glue_socks_stop();
	off("after stop");
	parked_cases();

	printf("%d passed, %d failed\n", pass, fail);
	return fail != 0;
}
