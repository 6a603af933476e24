// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * test_hook - cosched_register_fd(), cosched_unregister_fd() and
 * cosched_set_wait_timeout() on the host, which has no module: the
 * busy-poll fallback answers -EOPNOTSUPP and changes nothing; a fake
 * endpoint whose file is /dev/null shows which calls reach the kernel
 * (-ENOTTY there) and which are refused before.  TAP output.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

static int tcp_socket(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);

	if (s < 0) {
		perror("socket");
		exit(1);
	}
	return s;
}

/* The real library without the module: nothing to register with. */
static void test_fallback(void)
{
	uint64_t job = ((uint64_t)getpid() << 20) ^ (uint64_t)time(NULL);
	struct cosched_ep *ep;
	int s = tcp_socket(), err;

	if (!access(COSCHED_DEVICE, F_OK)) {
		check(true, "# SKIP fallback: this host has %s", COSCHED_DEVICE);
		close(s);
		return;
	}
	if (!check(!cosched_open(&ep, job, 0, 1, 0),
		   "fallback: cosched_open without the module works")) {
		close(s);
		return;
	}
	err = cosched_register_fd(ep, s);
	check(err == -EOPNOTSUPP, "fallback: register a TCP socket: %d", err);
	err = cosched_unregister_fd(ep, s);
	check(err == -EOPNOTSUPP, "fallback: unregister: %d", err);
	err = cosched_register_fd(ep, -1);
	check(err == -EBADF, "fallback: register fd -1: %d", err);
	check(cosched_set_wait_timeout(ep, 1000) == 0,
	      "fallback: a wait timeout is accepted");
	check(cosched_set_wait_timeout(ep, -1) == -EINVAL,
	      "fallback: a negative wait timeout is -EINVAL");
	check(cosched_set_wait_timeout(ep, COSCHED_WAIT_TIMEOUT_MAX_US + 1) ==
	      -ERANGE, "fallback: a wait timeout above the maximum is -ERANGE");
	/* The socket is still ours and usable: nothing took it over. */
	check(fcntl(s, F_GETFD) >= 0, "fallback: the socket is untouched");
	cosched_close(ep);
	close(s);
}

/* A fake endpoint on /dev/null: the ioctl is made (ENOTTY), or not. */
static void test_reaches_kernel(void)
{
	struct cosched_ep ep = { .fd = open("/dev/null", O_RDWR) };
	int s = tcp_socket(), err;

	if (!check(ep.fd >= 0, "fake endpoint on /dev/null"))
		return;
	check(cosched_register_fd(&ep, s) == -ENOTTY,
	      "module path: register reaches the kernel");
	check(cosched_unregister_fd(&ep, s) == -ENOTTY,
	      "module path: unregister reaches the kernel");
	check(cosched_register_fd(&ep, -5) == -EBADF,
	      "module path: a negative fd never reaches it");
	check(cosched_register_fd(NULL, s) == -EINVAL,
	      "no endpoint: -EINVAL");
	err = cosched_set_wait_timeout(&ep, 2500);
	check(!err && ep.wait_timeout_ns == 2500000,
	      "wait timeout stored in ns: %d, %llu", err,
	      (unsigned long long)ep.wait_timeout_ns);
	check(cosched_set_wait_timeout(&ep, 0) == 0 && !ep.wait_timeout_ns,
	      "wait timeout 0: no bound");
	close(ep.fd);
	close(s);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	test_fallback();
	test_reaches_kernel();
	printf("1..%d\n", n_test);
	return n_fail ? 1 : 0;
}
