// SPDX-License-Identifier: GPL-2.0
/*
 * switch_cost: what cosched adds to a context switch.
 *
 * Two threads pinned to one CPU bounce a byte over two pipes; each round
 * trip is two context switches.  Prints the time per switch, the median
 * of several runs.  A task that creates an endpoint registers a preempt
 * notifier, so with -e both switching threads are tracked: each switch
 * runs their notifiers, which update the per-task record and mirror it
 * into the endpoints' control pages.  Without -e they have no notifier
 * and pay only the scheduler's test of an empty list.  With -E N the
 * process also holds N endpoints whose owner sleeps (it is never
 * switched, so they should cost the switching threads nothing).  With
 * -O N the main switching thread itself owns N more endpoints: its
 * notifiers then run for a task with N + 1 endpoints, which must cost
 * what one costs (the mirror is bounded, the record is per task).
 *
 * usage: switch_cost [-n round_trips] [-r runs] [-e] [-E idle] [-O owned]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <linux/cosched.h>

#define JOB 0x5c05711ull

static int to_peer[2], to_main[2];
static long round_trips = 20000;
static int with_endpoints;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(2);
	}
}

/* Returns the open file holding a new endpoint, or exits. */
static int endpoint(uint32_t rank)
{
	struct cosched_create c = {
		.abi_version = COSCHED_ABI_VERSION,
		.job_id = JOB,
		.rank = rank,
	};
	int fd = open(COSCHED_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0 || ioctl(fd, COSCHED_IOC_CREATE, &c)) {
		fprintf(stderr, "endpoint %u: %s\n", rank, strerror(errno));
		exit(2);
	}
	return fd;
}

static void *peer(void *arg)
{
	int fd = -1;
	char c;
	long i;

	(void)arg;
	pin(0);
	if (with_endpoints)
		fd = endpoint(1);
	for (i = 0; i < round_trips; i++) {
		if (read(to_peer[0], &c, 1) != 1 || write(to_main[1], &c, 1) != 1)
			exit(2);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static double run_once(void)
{
	pthread_t tid;
	uint64_t t0;
	char c = 'x';
	long i;

	if (pthread_create(&tid, NULL, peer, NULL))
		exit(2);
	usleep(10000);
	t0 = now_ns();
	for (i = 0; i < round_trips; i++) {
		if (write(to_peer[1], &c, 1) != 1 || read(to_main[0], &c, 1) != 1)
			exit(2);
	}
	t0 = now_ns() - t0;
	pthread_join(tid, NULL);
	return (double)t0 / (2.0 * round_trips);
}

static volatile int idle_ready;

/* Owns the idle endpoints and sleeps: its notifier never runs. */
static void *idle_owner(void *arg)
{
	long i, n = (long)arg;

	for (i = 0; i < n; i++)
		endpoint(100 + i);
	__atomic_store_n(&idle_ready, 1, __ATOMIC_RELEASE);
	for (;;)
		pause();
	return NULL;
}

/* One file per endpoint: -E 10000 needs more than the usual 1024. */
static void want_files(long n)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= (rlim_t)n + 64)
		return;
	rl.rlim_cur = n + 64;
	if (rl.rlim_max < rl.rlim_cur)
		rl.rlim_max = rl.rlim_cur;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		perror("setrlimit RLIMIT_NOFILE");
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int runs = 5, idle = 0, owned = 0, opt, i, main_fd = -1;
	double t[64];

	while ((opt = getopt(argc, argv, "n:r:eE:O:")) != -1) {
		switch (opt) {
		case 'n': round_trips = atol(optarg); break;
		case 'r': runs = atoi(optarg); break;
		case 'e': with_endpoints = 1; break;
		case 'E': idle = atoi(optarg); break;
		case 'O': owned = atoi(optarg); with_endpoints = 1; break;
		default:
			fprintf(stderr, "usage: %s [-n round_trips] [-r runs] [-e] [-E idle] [-O owned]\n",
				argv[0]);
			return 2;
		}
	}
	if (runs < 1 || runs > 64)
		runs = 5;
	pin(0);
	if (pipe(to_peer) || pipe(to_main))
		return 2;
	if (idle) {
		pthread_t tid;

		want_files(idle);
		if (pthread_create(&tid, NULL, idle_owner, (void *)(long)idle))
			return 2;
		while (!__atomic_load_n(&idle_ready, __ATOMIC_ACQUIRE))
			usleep(10000);
		usleep(100000);
	}
	if (owned > 0) {
		/* Made first: the mirror serves the oldest endpoints. */
		want_files(owned + idle);
		for (i = 0; i < owned; i++)
			endpoint(100 + idle + i);
	}
	for (i = 0; i < runs; i++) {
		if (with_endpoints && main_fd < 0)
			main_fd = endpoint(0);
		t[i] = run_once();
	}
	qsort(t, runs, sizeof(t[0]), cmp);
	printf("switch_cost: endpoints=%s idle_endpoints=%d owned_endpoints=%d ns_per_switch=%.0f min=%.0f max=%.0f\n",
	       with_endpoints ? "yes" : "no", idle, owned, t[runs / 2], t[0],
	       t[runs - 1]);
	return 0;
}
