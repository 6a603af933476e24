// SPDX-License-Identifier: GPL-2.0
/*
 * hook_stream: the cost of cosched's arrival hooks on a TCP stream.
 *
 * A sender (CPU 1) writes 64 KiB chunks over loopback TCP for -t seconds;
 * the receiver (CPU 0) reads with blocking recv() until EOF.  With -r the
 * receiver first creates an endpoint and registers its socket
 * (COSCHED_IOC_REGISTER), so every arrival goes through the hooks (the
 * built-in ones, or the BPF ones if bpf/hooks/cosched-hooks attached
 * them); without -r the socket is not registered.
 *
 * usage: hook_stream [-r] [-t seconds] [-l label]
 * prints: hook_stream: label=L registered=0|1 MBps=X arrivals=N secs=S
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/cosched.h>

#define CHUNK	65536

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static void die(const char *what)
{
	fprintf(stderr, "hook_stream: %s: %s\n", what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int opt, regd = 0, l, a, b, p[2];
	double secs = 3, t0, t1;
	const char *label = "-";
	static char buf[CHUNK];
	unsigned long long *res;
	pid_t pid;

	while ((opt = getopt(argc, argv, "rt:l:")) != -1) {
		switch (opt) {
		case 'r': regd = 1; break;
		case 't': secs = atof(optarg); break;
		case 'l': label = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-r] [-t seconds] [-l label]\n", argv[0]);
			return 2;
		}
	}
	res = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (void *)&sin, sizeof(sin)) || listen(l, 1) ||
	    getsockname(l, (void *)&sin, &len))
		die("listen");
	a = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(a, (void *)&sin, sizeof(sin)))
		die("connect");
	b = accept(l, NULL, NULL);
	if (b < 0 || pipe(p))
		die("accept");
	pid = fork();
	if (pid == 0) {
		struct cosched_create c = { .abi_version = COSCHED_ABI_VERSION,
					    .job_id = 0x57ea3, .rank = 0 };
		struct cosched_hook_reg r = { .fd = b, .kind = COSCHED_HOOK_TCP };
		struct cosched_stats st = { 0 };
		unsigned long long got = 0;
		int fd = -1;
		ssize_t n;

		pin(0);
		close(a);
		if (regd) {
			fd = open(COSCHED_DEVICE, O_RDWR);
			if (fd < 0 || ioctl(fd, COSCHED_IOC_CREATE, &c) ||
			    ioctl(fd, COSCHED_IOC_REGISTER, &r))
				die("endpoint/REGISTER");
		}
		if (write(p[1], "", 1) != 1)
			die("pipe");
		while ((n = recv(b, buf, sizeof(buf), 0)) > 0)
			got += n;
		if (fd >= 0)
			ioctl(fd, COSCHED_IOC_STATS, &st);
		res[0] = got;
		res[1] = st.arrivals;
		_exit(0);
	}
	close(b);
	pin(1);
	if (read(p[0], buf, 1) != 1)
		die("pipe");
	t0 = now();
	do {
		if (send(a, buf, sizeof(buf), 0) < 0)
			die("send");
	} while (now() - t0 < secs);
	shutdown(a, SHUT_WR);
	waitpid(pid, NULL, 0);
	t1 = now();
	printf("hook_stream: label=%s registered=%d MBps=%.1f arrivals=%llu secs=%.2f\n",
	       label, regd, res[0] / (t1 - t0) / 1e6, res[1], t1 - t0);
	return 0;
}
