// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * latesock: TCP sockets made after MPI_Init are registered with the
 * glue's endpoint when they are made, before any other MPI call (no
 * scan; the guest test, mpiglue, runs it under the glue).  Each rank
 * makes a listener, a connection to it (blocking, then non-blocking) and
 * accepts both, and asks the module right after each call: a
 * registration of the socket with an endpoint of its own (raw ioctls,
 * another job) is refused with EEXIST when the glue's endpoint has it
 * already.  Prints "latesock: rank R: N passed, N failed"; exit status 1
 * on a failure.  Not a plain MPI program: it needs /dev/cosched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/cosched.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static int rank, pass, fail, probe = -1;

static void ok(int cond, const char *what, int fd)
{
	if (cond)
		pass++;
	else
		fail++;
	printf("%s - latesock rank %d: %s (fd %d)\n", cond ? "ok" : "not ok",
	       rank, what, fd);
}

/* An endpoint of our own, in a job of our own, to ask the module. */
static int open_probe(void)
{
	struct cosched_create c = {
		.abi_version = COSCHED_ABI_VERSION,
		.job_id = ((unsigned long long)getpid() << 20) | 0x1a7e,
		.rank = 0,
	};
	int fd = open(COSCHED_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, COSCHED_IOC_CREATE, &c)) {
		perror("latesock: " COSCHED_DEVICE);
		return -1;
	}
	return fd;
}

/* Does an endpoint (the glue's) have fd already?  Ours lets it go. */
static int registered(int fd)
{
	struct cosched_hook_reg r = { .fd = fd, .kind = COSCHED_HOOK_TCP };

	if (!ioctl(probe, COSCHED_IOC_REGISTER, &r)) {
		ioctl(probe, COSCHED_IOC_UNREGISTER, &r);
		return 0;
	}
	return errno == EEXIST;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int l, c, a, nb, a2, rc;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	probe = open_probe();
	if (probe < 0)
		MPI_Abort(MPI_COMM_WORLD, 2);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	bind(l, (struct sockaddr *)&sa, sizeof(sa));
	getsockname(l, (struct sockaddr *)&sa, &len);
	rc = listen(l, 4);
	ok(rc == 0 && registered(l), "listen: the listener is registered", l);

	c = socket(AF_INET, SOCK_STREAM, 0);
	rc = connect(c, (struct sockaddr *)&sa, sizeof(sa));
	ok(rc == 0 && registered(c), "connect: registered at once", c);
	a = accept(l, NULL, NULL);
	ok(a >= 0 && registered(a), "accept: registered at once", a);

	nb = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	rc = connect(nb, (struct sockaddr *)&sa, sizeof(sa));
	ok((rc == 0 || errno == EINPROGRESS) && registered(nb),
	   "non-blocking connect: registered at once", nb);
	a2 = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	ok(a2 >= 0 && registered(a2), "accept4: registered at once", a2);

	close(a2);
	close(nb);
	close(a);
	close(c);
	close(l);
	close(probe);
	printf("latesock: rank %d: %d passed, %d failed\n", rank, pass, fail);
	fflush(stdout);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return fail != 0;
}
