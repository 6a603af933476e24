// SPDX-License-Identifier: GPL-2.0
/*
 * jobmix: co-scheduled parallel jobs on one node, the thesis's workload
 * in miniature.  Each job has two ranks, rank r pinned to CPU r (a CPU
 * stands for a node), that alternate a compute phase and a message
 * exchange through libcosched, bulk-synchronous: a rank cannot go on
 * until its peer has answered.  With several jobs, every CPU holds one
 * rank of each job, and a rank that waits for a descheduled peer wastes
 * its CPU unless the policy coschedules the pair.
 *
 * All jobs start together; each line gives one job's completion time,
 * and the last the makespan.  -j 1 gives a job's standalone time, so
 * the ideal (perfect gang scheduling) of N jobs is N standalone times.
 *
 * usage: jobmix [-j jobs] [-i iterations] [-c compute_us] [-s bytes]
 * Waits in the active policy's mode (COSCHED_MODE_DEFAULT).
 */
#define _GNU_SOURCE
#include <cosched.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_JOBS	16
#define MAX_MSG		65536

struct shared {
	int ready;		/* ranks that opened their endpoint */
	int go;			/* set by the parent: start together */
	int failed;
	uint64_t end_ns[MAX_JOBS][2];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Burn CPU for us microseconds of wall time spent running, roughly. */
static void compute(long us)
{
	struct timespec a, b;
	long spent = 0;

	/* CPU time, not wall time: a descheduled rank does not progress. */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	while (spent < us * 1000) {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
		spent = (b.tv_sec - a.tv_sec) * 1000000000L +
			(b.tv_nsec - a.tv_nsec);
	}
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static int send_retry(struct cosched_ep *ep, uint32_t to, const void *buf,
		      size_t len)
{
	struct timespec nap = { 0, 1000000 };
	int err, i;

	for (i = 0; i < 5000; i++) {
		err = cosched_send(ep, to, buf, len);
		if (err != -ENOENT)
			return err;
		nanosleep(&nap, NULL);
	}
	return err;
}

static int rank_main(struct shared *sh, uint64_t job, int j, int rank,
		     long iters, long compute_us, size_t bytes)
{
	static char buf[MAX_MSG];
	struct cosched_ep *ep;
	uint32_t peer = !rank;
	long i;
	int err;

	pin(rank);
	err = cosched_open(&ep, job, (uint32_t)rank, 2, 0);
	__atomic_fetch_add(&sh->ready, 1, __ATOMIC_RELEASE);
	if (err)
		return 1;
	while (!__atomic_load_n(&sh->go, __ATOMIC_ACQUIRE))
		sched_yield();
	for (i = 0; i < iters && !err; i++) {
		compute(compute_us);
		if (rank == 0) {
			err = send_retry(ep, peer, buf, bytes);
			if (!err && cosched_recv(ep, NULL, buf, sizeof(buf),
						 COSCHED_MODE_DEFAULT) < 0)
				err = 1;
		} else {
			if (cosched_recv(ep, NULL, buf, sizeof(buf),
					 COSCHED_MODE_DEFAULT) < 0)
				err = 1;
			else
				err = send_retry(ep, peer, buf, bytes);
		}
	}
	sh->end_ns[j][rank] = now_ns();
	cosched_close(ep);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	long iters = 200, compute_us = 1000;
	size_t bytes = 64;
	int jobs = 2, opt, j, r, status, bad = 0;
	uint64_t start, end, makespan = 0;
	struct shared *sh;

	while ((opt = getopt(argc, argv, "j:i:c:s:")) != -1) {
		switch (opt) {
		case 'j': jobs = atoi(optarg); break;
		case 'i': iters = atol(optarg); break;
		case 'c': compute_us = atol(optarg); break;
		case 's': bytes = (size_t)atol(optarg); break;
		default:
			fprintf(stderr, "usage: jobmix [-j jobs] [-i iters] [-c compute_us] [-s bytes]\n");
			return 2;
		}
	}
	if (jobs < 1 || jobs > MAX_JOBS || iters < 1 || compute_us < 0 ||
	    bytes > MAX_MSG) {
		fprintf(stderr, "jobmix: bad arguments\n");
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	memset(sh, 0, sizeof(*sh));
	for (j = 0; j < jobs; j++)
		for (r = 0; r < 2; r++)
			if (!fork())
				_exit(rank_main(sh, 0x70b0000000ull |
						((uint64_t)getppid() << 8) | (uint64_t)j,
						j, r, iters, compute_us, bytes));
	while (__atomic_load_n(&sh->ready, __ATOMIC_ACQUIRE) < 2 * jobs)
		sched_yield();
	start = now_ns();
	__atomic_store_n(&sh->go, 1, __ATOMIC_RELEASE);
	while (wait(&status) > 0)
		bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	for (j = 0; j < jobs; j++) {
		end = sh->end_ns[j][0] > sh->end_ns[j][1] ? sh->end_ns[j][0] :
							     sh->end_ns[j][1];
		printf("job=%d time_ms=%.1f\n", j, (double)(end - start) / 1e6);
		if (end - start > makespan)
			makespan = end - start;
	}
	printf("jobs=%d makespan_ms=%.1f%s\n", jobs, (double)makespan / 1e6,
	       bad ? " failed=1" : "");
	return bad;
}
