// SPDX-License-Identifier: GPL-2.0
/*
 * stress: many processes create, map, ring, wait, yield, destroy and
 * close endpoints (random ranks in a few jobs, so EEXIST and ENOENT are
 * expected) while another process switches the policy among all of them and
 * retunes.  Afterwards no endpoint or job is left, the module's slab
 * caches (if it has any) are back to their baseline, and rmmod succeeds;
 * the module is loaded again at the end.
 *
 * usage: stress [-p processes] [-i iterations]
 */
#define _GNU_SOURCE
#include "check.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define JOB	0x57e550ull
#define NJOBS	4
#define NRANKS	8

struct shared {
	u64 created, eexist, rang, enoent, unexpected;
	int last_err, last_op;
	int stop;
	u64 switches;
};

static struct shared *sh;

enum { OP_OPEN, OP_CREATE, OP_MMAP, OP_RING, OP_WAIT, OP_YIELD, OP_STATS,
       OP_DESTROY };
static const char *const op_names[] = {
	"open", "create", "mmap", "doorbell", "wait", "yield", "stats", "destroy",
};

static void unexpected(int op, int err)
{
	__atomic_add_fetch(&sh->unexpected, 1, __ATOMIC_SEQ_CST);
	sh->last_op = op;
	sh->last_err = err;
}

static void add(u64 *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_SEQ_CST);
}

static void ring_random(int fd)
{
	int r = doorbell(fd, JOB + rnd(NJOBS), rnd(NRANKS), 1 + rnd(3));

	if (!r)
		add(&sh->rang);
	else if (r == -ENOENT)
		add(&sh->enoent);
	else
		unexpected(OP_RING, -r);
}

static void worker(int iters)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (int i = 0; i < iters; i++) {
		struct cosched_ctrl *ctrl;
		struct cosched_stats st;
		struct cosched_yield y;
		u64 job = JOB + rnd(NJOBS);
		u32 rank = rnd(NRANKS);
		int fd = open(COSCHED_DEVICE, O_RDWR), r;

		if (fd < 0) {
			unexpected(OP_OPEN, errno);
			continue;
		}
		r = ep_create_fd(fd, job, rank, NULL);
		if (r) {
			if (r == -EEXIST)
				add(&sh->eexist);
			else
				unexpected(OP_CREATE, -r);
			ring_random(fd);
			close(fd);
			continue;
		}
		add(&sh->created);
		ctrl = ctrl_map(fd);
		if (!ctrl) {
			unexpected(OP_MMAP, errno);
			close(fd);
			continue;
		}
		for (int k = rnd(4); k >= 0; k--)
			ring_random(fd);
		if ((r = doorbell(fd, job, rank, 1)))
			unexpected(OP_RING, -r);
		switch (rnd(3)) {
		case 0:
			r = ep_wait(fd, RD(ctrl->arrivals), 100000);
			/* Other threads close endpoints of the job: lost peers. */
			if (r == -ECONNRESET)
				WR(ctrl->lost_seen, RD(ctrl->peers_lost));
			else if (r && r != -ETIMEDOUT)
				unexpected(OP_WAIT, -r);
			break;
		case 1:
			WR(ctrl->consumed, RD(ctrl->arrivals));
			if ((r = ep_yield(fd, RD(ctrl->arrivals), &y)))
				unexpected(OP_YIELD, -r);
			break;
		default:
			if ((r = ep_stats(fd, &st)))
				unexpected(OP_STATS, -r);
		}
		switch (rnd(4)) {
		case 0:		/* close first, the mapping outlives the fd */
			close(fd);
			fd = open(COSCHED_DEVICE, O_RDWR);
			if (fd >= 0) {
				ring_random(fd);
				close(fd);
			}
			munmap(ctrl, page);
			break;
		case 1:		/* no DESTROY: close does it */
			munmap(ctrl, page);
			close(fd);
			break;
		default:
			if ((r = ep_destroy(fd)))
				unexpected(OP_DESTROY, -r);
			munmap(ctrl, page);
			close(fd);
		}
	}
	_exit(0);
}

static void switcher(void)
{
	static const char *const mech[] = { "fifo", "nice" };
	u64 n = 0;

	while (!RD(sh->stop)) {
		sysfs_write("policy", policy_names[n % COSCHED_NR_POLICIES]);
		if (n % 7 == 0)
			sysfs_write("boost_mech", mech[(n / 7) % 2]);
		if (n % 11 == 0)
			sysfs_write("pb_period_us", (n / 11) % 2 ? "1000" : "10000");
		n++;
		sleep_ns(rnd(2000000));
	}
	sh->switches = n;
	_exit(0);
}

/* Sum of active objects of slab caches whose name contains "cosched". */
static long slab_objects(void)
{
	char line[512], name[128], path[256];
	long total = 0, active;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %ld", name, &active) != 2 ||
		    !strstr(name, "cosched"))
			continue;
		/* Flush per-CPU slabs so freed objects count as free. */
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", name);
		int fd = open(path, O_WRONLY);

		if (fd >= 0) {
			if (write(fd, "1", 1) < 0)
				t_diag("shrink %s: %s", name, strerror(errno));
			close(fd);
		}
		total += active;
	}
	fclose(f);
	return total;
}

static long slab_objects_settled(void)
{
	slab_objects();			/* first pass shrinks */
	return slab_objects();
}

int main(int argc, char **argv)
{
	int nproc = 16, iters = 200, opt, bad = 0;
	pid_t pids[256], sw;
	long slab0, slab1;
	u64 t0;

	while ((opt = getopt(argc, argv, "p:i:")) != -1) {
		switch (opt) {
		case 'p': nproc = atoi(optarg); break;
		case 'i': iters = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-p processes] [-i iterations]\n",
				argv[0]);
			return 2;
		}
	}
	if (nproc < 1 || nproc > 256)
		bail("bad process count");
	sh = shared_alloc(sizeof(*sh));
	slab0 = slab_objects_settled();

	t0 = now_ns();
	if (!(sw = fork()))
		switcher();
	for (int i = 0; i < nproc; i++)
		if (!(pids[i] = fork()))
			worker(iters);
	for (int i = 0; i < nproc; i++)
		bad += wait_child(pids[i]) != 0;
	WR(sh->stop, 1);
	wait_child(sw);
	t_diag("%d processes x %d iterations in %.1f s: %llu created, %llu EEXIST, "
	       "%llu doorbells, %llu ENOENT, %llu policy switches", nproc, iters,
	       (now_ns() - t0) / 1e9, (unsigned long long)sh->created,
	       (unsigned long long)sh->eexist, (unsigned long long)sh->rang,
	       (unsigned long long)sh->enoent, (unsigned long long)sh->switches);

	expect_eq(bad, 0, "every worker exited cleanly");
	okf(!sh->unexpected, "no unexpected errno",
	    "%llu unexpected, last: %s -> %s", (unsigned long long)sh->unexpected,
	    op_names[sh->last_op], strerror(sh->last_err));
	ok(sh->created > 0 && sh->eexist > 0 && sh->enoent > 0,
	   "the mix had creations, EEXIST collisions and ENOENT doorbells");
	ok(poll_until(sysfs_u64("stats/endpoints") == 0, 3000), "stats/endpoints = 0");
	ok(poll_until(sysfs_u64("stats/jobs") == 0, 3000), "stats/jobs = 0");
	slab1 = slab_objects_settled();
	t_diag("cosched slab objects: %ld before, %ld after%s", slab0, slab1,
	       slab0 < 0 ? " (no /proc/slabinfo)" : "");
	expect_eq(slab1, slab0, "cosched slab objects back to baseline");
	policy_set("local");
	sysfs_set("boost_mech", "fifo");
	sysfs_set_u64("pb_period_us", 10000);
	expect_neg(module_unload(), 0, "rmmod succeeds after the stress");
	expect_neg(module_load(NULL), 0, "module loads again");
	poll_until(path_exists(COSCHED_DEVICE), 2000);
	return t_done();
}
