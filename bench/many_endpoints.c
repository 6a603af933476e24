// SPDX-License-Identifier: GPL-2.0
/*
 * many_endpoints: one user holds N endpoints, each in its own open
 * /dev/cosched file, until its standard input reaches end of file.
 *
 * Started as root: it raises RLIMIT_NOFILE, then drops to -u uid with
 * the single supplementary group -g gid (the device's group) before it
 * opens anything, so the endpoints are the unprivileged user's.  Ranks
 * go into jobs of -j ranks each.  After the N endpoints it tries one
 * more CREATE and prints its error (with user_max_endpoints = N that
 * should be EUSERS), then "ready" and waits.  At end of input it closes
 * them all.  Timings are wall clock over the whole loop.  With -m, it
 * prints that memory.current file (its own cgroup's) before and after
 * the creation, and the difference per endpoint.
 *
 * usage: many_endpoints [-n N] [-u uid] [-g gid] [-j ranks_per_job]
 *                       [-m memory.current]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <linux/cosched.h>

#define JOB_BASE 0x3a11e000ull

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Returns the file holding endpoint @i, or -errno. */
static int create(long i, long per_job)
{
	struct cosched_create c = {
		.abi_version = COSCHED_ABI_VERSION,
		.job_id = JOB_BASE + i / per_job,
		.rank = i % per_job,
	};
	int fd = open(COSCHED_DEVICE, O_RDWR | O_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, COSCHED_IOC_CREATE, &c)) {
		err = errno;
		close(fd);
		return -err;
	}
	return fd;
}

/* The cgroup's charge in bytes, or -1 without -m. */
static long long charged(const char *path)
{
	long long v = -1;
	FILE *f;

	if (!path)
		return -1;
	f = fopen(path, "r");
	if (!f || fscanf(f, "%lld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

static void drop(uid_t uid, gid_t gid)
{
	if (setgroups(1, &gid) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid)) {
		perror("dropping privileges");
		exit(2);
	}
}

int main(int argc, char **argv)
{
	long n = 10000, per_job = 1000, i;
	uid_t uid = 65534;
	gid_t gid = 4242;
	const char *mem = NULL;
	long long before, after;
	struct rlimit rl;
	uint64_t t0, t1;
	int *fds, fd, opt;
	char buf[64];

	while ((opt = getopt(argc, argv, "n:u:g:j:m:")) != -1) {
		switch (opt) {
		case 'n': n = atol(optarg); break;
		case 'u': uid = atoi(optarg); break;
		case 'g': gid = atoi(optarg); break;
		case 'j': per_job = atol(optarg); break;
		case 'm': mem = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-n N] [-u uid] [-g gid] [-j ranks_per_job] [-m memory.current]\n",
				argv[0]);
			return 2;
		}
	}
	if (n < 1 || per_job < 1 || per_job > COSCHED_MAX_RANKS)
		return 2;
	rl.rlim_cur = rl.rlim_max = n + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		perror("setrlimit RLIMIT_NOFILE");
		return 2;
	}
	drop(uid, gid);
	fds = calloc(n, sizeof(*fds));
	if (!fds)
		return 2;

	before = charged(mem);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		fds[i] = create(i, per_job);
		if (fds[i] < 0) {
			fprintf(stderr, "many_endpoints: endpoint %ld: %s\n", i,
				strerror(-fds[i]));
			return 1;
		}
	}
	t1 = now_ns();
	after = charged(mem);
	if (mem)
		printf("many_endpoints: memory.current before=%lld after=%lld per_endpoint=%.0f bytes\n",
		       before, after, (double)(after - before) / n);
	printf("many_endpoints: uid=%u created=%ld jobs=%ld create_us=%.1f per endpoint\n",
	       (unsigned int)uid, n, (n + per_job - 1) / per_job,
	       (t1 - t0) / 1000.0 / n);

	fd = create(n, per_job);
	printf("many_endpoints: endpoint %ld: %s\n", n,
	       fd >= 0 ? "created" : strerrorname_np(-fd));
	if (fd >= 0)
		close(fd);
	printf("ready\n");
	fflush(stdout);

	/* Hold them until the input ends. */
	while (read(0, buf, sizeof(buf)) > 0)
		;
	t0 = now_ns();
	for (i = 0; i < n; i++)
		close(fds[i]);
	t1 = now_ns();
	printf("many_endpoints: closed=%ld close_us=%.1f per endpoint\n", n,
	       (t1 - t0) / 1000.0 / n);
	return 0;
}
