// SPDX-License-Identifier: GPL-2.0
/*
 * tcp_wake: how soon a receiver that shares its CPU with a CPU hog sees a
 * message that came over libcosched's TCP transport (io_uring): rank 1
 * (on CPU 1) sends its CLOCK_MONOTONIC time every -g ms; rank 0 busy-polls
 * on CPU 0 next to a hog and takes now - stamp at receipt.  Under dcs the
 * module's arrival hook on the registered socket boosts rank 0 when data
 * arrives; under local nothing does.  Prints p50, p90 and max in us.
 *
 * A watchdog reports a run that has not ended after -t seconds: where
 * each side got to, the kernel stacks of every task, and the endpoint's
 * counters; then it ends the run with status 3.
 *
 * usage: tcp_wake [-n samples] [-g gap_ms] [-p port] [-t limit_s]
 */
#define _GNU_SOURCE
#include <cosched.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

/* How far each side got, in memory both share, for the watchdog. */
struct progress {
	int send_phase;		/* 0 open, 1 sending, 2 awaiting the end, 3 done */
	int sent;
	int recv_phase;		/* 0 open, 1 receiving, 2 ending */
	int received;
};

static const char *const send_phases[] = { "opening", "sending",
					   "awaiting the end", "done" };
static const char *const recv_phases[] = { "opening", "receiving",
					   "ending" };

struct watchdog {
	struct progress *prog;
	struct cosched_ep *ep;		/* set once open, atomically */
	pid_t snd, hog;			/* hog: set once spawned, atomically */
	int n, limit_s;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Print each task's kernel stack (/proc/PID/task/TID/stack; root only). */
static void dump_stacks(const char *who, pid_t pid)
{
	char path[64], line[256];
	struct dirent *d;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stack",
			 (int)pid, d->d_name);
		fprintf(stderr, "tcp_wake: %s task %s kernel stack:\n", who,
			d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			fprintf(stderr, "tcp_wake:   %s", line);
		fclose(f);
	}
	closedir(dir);
}

/*
 * A run normally takes n * gap: after limit_s, say where it stands and
 * end it, so that a hang is a report rather than a silent timeout.
 */
static void *watchdog(void *arg)
{
	struct watchdog *w = arg;
	struct progress *p = w->prog;
	struct cosched_ep_stats st;
	struct cosched_ep *ep;
	pid_t hog;

	sleep((unsigned int)w->limit_s);
	fprintf(stderr,
		"tcp_wake: no end after %d s: sender %s, %d of %d sent; receiver %s, %d of %d received\n",
		w->limit_s, send_phases[__atomic_load_n(&p->send_phase, __ATOMIC_RELAXED)],
		__atomic_load_n(&p->sent, __ATOMIC_RELAXED), w->n + 5,
		recv_phases[__atomic_load_n(&p->recv_phase, __ATOMIC_RELAXED)],
		__atomic_load_n(&p->received, __ATOMIC_RELAXED), w->n + 5);
	ep = __atomic_load_n(&w->ep, __ATOMIC_ACQUIRE);
	if (ep && !cosched_stats(ep, &st))
		fprintf(stderr,
			"tcp_wake: receiver endpoint: receives %llu spin_hits %llu blocks %llu\n",
			(unsigned long long)st.receives,
			(unsigned long long)st.spin_hits,
			(unsigned long long)st.blocks);
	dump_stacks("receiver", getpid());
	dump_stacks("sender", w->snd);
	kill(w->snd, SIGKILL);
	hog = __atomic_load_n(&w->hog, __ATOMIC_ACQUIRE);
	if (hog > 0)
		kill(hog, SIGKILL);
	_exit(3);
}

static int sender(struct progress *p, uint64_t job, int n, int gap_ms)
{
	struct timespec gap = { gap_ms / 1000, (gap_ms % 1000) * 1000000L };
	struct cosched_ep *ep;
	uint64_t t;
	int i;

	pin_cpu(1);
	if (cosched_open(&ep, job, 1, 2, 0))
		return 1;
	__atomic_store_n(&p->send_phase, 1, __ATOMIC_RELAXED);
	for (i = 0; i < n + 5; i++) {	/* 5 extra: the receiver warms up */
		nanosleep(&gap, NULL);
		t = now_ns();
		if (cosched_send(ep, 0, &t, sizeof(t)))
			break;
		__atomic_store_n(&p->sent, i + 1, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&p->send_phase, 2, __ATOMIC_RELAXED);
	cosched_recv(ep, NULL, &t, sizeof(t), COSCHED_MODE_POLL);
	__atomic_store_n(&p->send_phase, 3, __ATOMIC_RELAXED);
	cosched_close(ep);
	return 0;
}

int main(int argc, char **argv)
{
	int n = 100, gap_ms = 20, port = 24000, limit_s = 60, opt, i, status;
	struct watchdog w = { 0 };
	struct progress *prog;
	pthread_t wd;
	char peers[96];
	struct cosched_ep *ep;
	uint64_t *lat, t;
	pid_t snd, hog;
	uint64_t job;

	while ((opt = getopt(argc, argv, "n:g:p:t:")) != -1) {
		switch (opt) {
		case 'n': n = atoi(optarg); break;
		case 'g': gap_ms = atoi(optarg); break;
		case 'p': port = atoi(optarg); break;
		case 't': limit_s = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: tcp_wake [-n samples] [-g gap_ms] [-p port] [-t limit_s]\n");
			return 2;
		}
	}
	if (n < 1 || gap_ms < 1 || port < 1024 || port > 65534 || limit_s < 1)
		return 2;
	prog = mmap(NULL, sizeof(*prog), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (prog == MAP_FAILED)
		return 1;
	lat = calloc((size_t)n, sizeof(*lat));
	if (!lat)
		return 1;
	snprintf(peers, sizeof(peers), "127.0.0.1:%d,127.0.0.2:%d", port,
		 port + 1);
	setenv("COSCHED_PEERS", peers, 1);
	job = 0x7c9000000000ull | (uint64_t)getpid();
	snd = fork();
	if (!snd)
		_exit(sender(prog, job, n, gap_ms));
	w = (struct watchdog){ .prog = prog, .snd = snd, .n = n,
			       .limit_s = limit_s };
	if (pthread_create(&wd, NULL, watchdog, &w)) {
		kill(snd, SIGKILL);
		return 1;
	}
	pin_cpu(0);
	if (cosched_open(&ep, job, 0, 2, 0)) {
		kill(snd, SIGKILL);
		return 1;
	}
	__atomic_store_n(&w.ep, ep, __ATOMIC_RELEASE);
	hog = spawn_hog(0);
	if (hog < 0) {
		perror("tcp_wake: the hog");
		kill(snd, SIGKILL);
		return 1;
	}
	__atomic_store_n(&w.hog, hog, __ATOMIC_RELEASE);
	__atomic_store_n(&prog->recv_phase, 1, __ATOMIC_RELAXED);
	for (i = -5; i < n; i++) {
		if (cosched_recv(ep, NULL, &t, sizeof(t), COSCHED_MODE_POLL) !=
		    sizeof(t))
			break;
		__atomic_store_n(&prog->received, i + 6, __ATOMIC_RELAXED);
		if (i >= 0)
			lat[i] = now_ns() - t;
	}
	__atomic_store_n(&prog->recv_phase, 2, __ATOMIC_RELAXED);
	kill(hog, SIGKILL);
	waitpid(hog, &status, 0);
	cosched_send(ep, 1, &t, sizeof(t));
	waitpid(snd, &status, 0);
	cosched_close(ep);
	if (i < n) {
		fprintf(stderr, "tcp_wake: only %d samples\n", i);
		return 1;
	}
	qsort(lat, (size_t)n, sizeof(*lat), cmp_u64);
	printf("samples=%d p50_us=%.1f p90_us=%.1f max_us=%.1f\n", n,
	       lat[n / 2] / 1e3, lat[n * 9 / 10] / 1e3, lat[n - 1] / 1e3);
	free(lat);
	return 0;
}
