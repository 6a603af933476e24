// SPDX-License-Identifier: GPL-2.0
/*
 * lifecycle: endpoints that go away at awkward moments.  DESTROY while
 * the owner sleeps in WAIT (EIDRM), owners that die blocked in WAIT or
 * while boosted (FIFO and nice boosts), an owner thread that exits while
 * its file stays open; CREATE racing mmap() of the same file (a deadlock
 * the fuzzer found); afterwards no endpoint, job or jobs/<id> directory
 * is left.  rmmod fails while an endpoint (or a mapping of one) exists
 * and leaves a working module; after the last close it succeeds, and the
 * module is loaded again for the next test.
 */
#define _GNU_SOURCE
#include "check.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define JOB	0x11fec0ull

static u64 nr_endpoints(void)
{
	return sysfs_u64("stats/endpoints");
}

/* ---- DESTROY from another thread while the owner waits ---- */

struct waiter {
	int fd;
	u64 job;
	struct cosched_ctrl *ctrl;
	int ready, ret;
};

static void *owner_waits(void *arg)
{
	struct waiter *w = arg;

	if (ep_create_fd(w->fd, w->job, 0, NULL) || !(w->ctrl = ctrl_map(w->fd))) {
		w->ret = -errno;
		WR(w->ready, 1);
		return NULL;
	}
	WR(w->ready, 1);
	w->ret = ep_wait(w->fd, RD(w->ctrl->arrivals), 0);
	return NULL;
}

static void test_destroy_wakes_waiter(void)
{
	struct waiter w = { .fd = dev_open(), .job = JOB + 1 };
	u64 eps = nr_endpoints();
	pthread_t th;

	pthread_create(&th, NULL, owner_waits, &w);
	poll_until(RD(w.ready), 2000);
	if (!ok(w.ctrl, "owner thread created its endpoint")) {
		pthread_join(th, NULL);
		return;
	}
	ok(poll_until(RD(w.ctrl->state) & COSCHED_STATE_BLOCKED, 2000),
	   "owner sleeps in WAIT (BLOCKED)");
	expect_neg(ep_destroy(w.fd), 0, "DESTROY from another thread");
	pthread_join(th, NULL);
	expect_neg(w.ret, EIDRM, "the sleeping WAIT returns EIDRM");
	expect_eq(nr_endpoints(), eps, "stats/endpoints back after DESTROY");
	ok(!job_dir_exists(w.job), "jobs/<id> gone after DESTROY");
	expect_neg(doorbell(w.fd, w.job, 0, 1), ENOENT,
		   "DOORBELL to the destroyed endpoint -> ENOENT");
	t_diag("state seen through the old mapping after DESTROY: 0x%x",
	       RD(w.ctrl->state));
	munmap(w.ctrl, (size_t)sysconf(_SC_PAGESIZE));
	close(w.fd);
}

/* ---- the owner process dies while blocked in WAIT ---- */

static void *wait_forever(void *arg)
{
	struct ep *e = arg;

	ep_wait(e->fd, RD(e->ctrl->arrivals), 0);
	return NULL;
}

/*
 * The job's blocks counter, 0 while it cannot be read: another process is
 * creating the job, and sysfs shows a new directory a moment before its
 * files.
 */
static u64 job_blocks(u64 job)
{
	char rel[128], buf[32];

	snprintf(rel, sizeof(rel), "jobs/%u-%llu/blocks", geteuid(),
		 (unsigned long long)job);
	return sysfs_read(rel, buf, sizeof(buf)) ? 0 : strtoull(buf, NULL, 10);
}

static void test_exit_while_blocked(bool by_kill)
{
	const u64 job = JOB + (by_kill ? 2 : 3);
	const char *how = by_kill ? "SIGKILL" : "exit_group";
	u64 eps = nr_endpoints();
	char n[128];
	pid_t pid;

	pid = fork();
	if (!pid) {
		struct ep e;
		pthread_t th;

		if (ep_open(&e, job, 0))
			_exit(1);
		if (by_kill) {
			wait_forever(&e);
			_exit(2);
		}
		/* A second thread waits; the main thread ends the process. */
		pthread_create(&th, NULL, wait_forever, &e);
		while (!(RD(e.ctrl->state) & COSCHED_STATE_BLOCKED))
			sleep_ns(1000000);
		_exit(0);
	}
	if (by_kill) {
		snprintf(n, sizeof(n), "%s: the owner blocked in WAIT", how);
		ok(poll_until(job_blocks(job) >= 1, 3000), n);
		kill(pid, SIGKILL);
	}
	wait_child(pid);
	snprintf(n, sizeof(n), "%s while blocked: stats/endpoints back", how);
	ok(poll_until(nr_endpoints() == eps, 2000), n);
	snprintf(n, sizeof(n), "%s while blocked: jobs/<id> gone", how);
	ok(poll_until(!job_dir_exists(job), 2000), n);
}

/* ---- the owner dies while boosted ---- */

static void test_kill_while_boosted(const char *mech)
{
	const u64 job = JOB + (strcmp(mech, "fifo") ? 5 : 4);
	u64 eps = nr_endpoints();
	int ring = dev_open(), boosted = 0;
	pid_t hog, r;
	char n[128];

	policy_set("dcs");
	sysfs_set("boost_mech", mech);
	sysfs_set_u64("boost_us", 100000);	/* a wide window to kill in */
	sysfs_set_u64("budget_pct", 100);
	hog = hog_start(0);
	r = fork();
	if (!r) {
		struct ep e;

		pin_cpu(0);
		if (ep_open(&e, job, 0))
			_exit(1);
		for (;;)
			cpu_relax();
	}
	poll_until(job_dir_exists(job), 2000);
	for (int i = 0; i < 50 && !boosted; i++) {
		sleep_ns(5000000);
		doorbell(ring, job, 0, 1);
		/* Boosted: the owner runs SCHED_FIFO or at nice -20 now. */
		boosted = poll_until(!strcmp(mech, "fifo") ?
				     (sched_getscheduler(r) & ~SCHED_RESET_ON_FORK) ==
				     SCHED_FIFO :
				     getpriority(PRIO_PROCESS, r) == -20, 20);
	}
	snprintf(n, sizeof(n), "dcs/%s: a doorbell boosted the owner", mech);
	ok(boosted, n);
	kill(r, SIGKILL);
	wait_child(r);
	sleep_ns(200000000);	/* past the end of the boost */
	snprintf(n, sizeof(n), "dcs/%s: killed while boosted: endpoints back", mech);
	ok(poll_until(nr_endpoints() == eps, 2000), n);
	snprintf(n, sizeof(n), "dcs/%s: killed while boosted: jobs/<id> gone", mech);
	ok(poll_until(!job_dir_exists(job), 2000), n);
	snprintf(n, sizeof(n), "dcs/%s: the hog next to it stays SCHED_OTHER nice 0",
		 mech);
	ok(sched_getscheduler(hog) == SCHED_OTHER &&
	   getpriority(PRIO_PROCESS, hog) == 0, n);
	hog_stop(hog);
	close(ring);
	sysfs_set_u64("boost_us", 2000);
	sysfs_set_u64("budget_pct", 30);
	sysfs_set("boost_mech", "fifo");
}

/* ---- the owner thread exits, its file stays open ---- */

static void *create_and_exit(void *arg)
{
	struct ep *e = arg;

	e->id = ep_create_fd(e->fd, e->job, 0, NULL) ? 0 : 1;
	return NULL;
}

static void test_owner_thread_exits(void)
{
	struct ep e = { .fd = dev_open(), .job = JOB + 6 };
	u64 eps = nr_endpoints();
	pthread_t th;
	int r;

	policy_set("dcs");
	pthread_create(&th, NULL, create_and_exit, &e);
	pthread_join(th, NULL);
	if (!ok(e.id, "a thread created an endpoint and exited"))
		return;
	sleep_ns(10000000);
	r = doorbell(e.fd, e.job, 0, 1);
	t_diag("doorbell to an endpoint whose owner thread exited: %s",
	       r ? strerror(-r) : "ok");
	sleep_ns(10000000);
	close(e.fd);
	ok(poll_until(nr_endpoints() == eps, 2000),
	   "dead owner thread: endpoint gone at close");
	policy_set("local");
}

static int jobs_dir_entries(void)
{
	DIR *d = opendir(COSCHED_SYSFS_DIR "/jobs");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* ---- rmmod ---- */

/* Maps the file's control page over and over: mmap() takes the file's
 * lock while it holds the mmap lock. */
static void *mmap_loop(void *arg)
{
	const int *fdp = arg;
	long page = sysconf(_SC_PAGESIZE);

	while (!RD(fdp[1])) {
		void *p = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED,
			       RD(fdp[0]), 0);

		if (p != MAP_FAILED)
			munmap(p, (size_t)page);
	}
	return NULL;
}

/*
 * The creation's arguments, in a private mapping of a file: CREATE's
 * read of them maps the page read-only, so its copy-out of the result
 * takes a write fault, and with it the mmap lock.
 */
static struct cosched_create *create_args_cow(const char *path, u64 job)
{
	struct cosched_create c = {
		.abi_version = COSCHED_ABI_VERSION,
		.job_id = job,
	};
	long page = sysconf(_SC_PAGESIZE);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	void *p;

	if (fd < 0 || pwrite(fd, &c, sizeof(c), 0) != sizeof(c) ||
	    ftruncate(fd, page))
		bail("%s: %s", path, strerror(errno));
	p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		bail("mmap %s: %s", path, strerror(errno));
	return p;
}

static void create_vs_mmap_child(int rounds)
{
	char path[] = "/dev/shm/cosched-create-XXXXXX";
	long page = sysconf(_SC_PAGESIZE);
	int *fdp = shared_alloc(2 * sizeof(int)), created = 0, r;
	pthread_t th;

	r = mkstemp(path);	/* the template's Xs become a unique name */
	if (r < 0)
		bail("mkstemp %s: %s", path, strerror(errno));
	close(r);
	fdp[0] = dev_open();
	pthread_create(&th, NULL, mmap_loop, fdp);
	for (r = 0; r < rounds; r++) {
		/*
		 * A job of its own each round: the other thread's mapping
		 * may keep the last round's endpoint a moment longer.
		 */
		struct cosched_create *c = create_args_cow(path, JOB + 100 + r);

		if (!ioctl(RD(fdp[0]), COSCHED_IOC_CREATE, c))
			created++;
		else
			printf("# create-vs-mmap round %d: %s\n", r, strerror(errno));
		munmap(c, (size_t)page);
		/* A fresh file, so the next CREATE is allowed. */
		close(RD(fdp[0]));
		WR(fdp[0], dev_open());
	}
	WR(fdp[1], 1);
	pthread_join(th, NULL);
	close(fdp[0]);
	unlink(path);
	printf("# create-vs-mmap: %d of %d creations succeeded\n", created,
	       rounds);
	_exit(created == rounds ? 0 : 2);
}

/*
 * The fuzzer's deadlock: CREATE copied its result out while holding the
 * file's lock, the copy faulted and waited for the mmap lock, and another
 * thread's mmap() of the same file held that and waited for the file's
 * lock.  Run in a child that the test kills if it does not finish.
 */
static void test_create_races_mmap(void)
{
	const int rounds = 300;
	int status = -1;
	pid_t pid = fork();

	if (!pid)
		create_vs_mmap_child(rounds);
	if (poll_until(waitpid(pid, &status, WNOHANG) == pid, 60000)) {
		ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "CREATE racing mmap() of its file: every creation succeeded");
		return;
	}
	t_diag("CREATE racing mmap(): no progress in 60 s; killing it");
	kill(pid, SIGKILL);
	wait_child(pid);
	ok(0, "CREATE racing mmap() of its file: every creation succeeded");
}

static void test_rmmod(void)
{
	struct ep e;
	u64 arr;
	int r, fd;

	ep_must_open(&e, JOB + 7, 0);
	r = module_unload();
	okf(r == -EBUSY || r == -EAGAIN, "delete_module with an endpoint fails (EBUSY/EWOULDBLOCK)",
	    "returned %d (%s)", r, r ? strerror(-r) : "success");
	if (!r)
		bail("module unloaded under a live endpoint");
	ok(system("rmmod cosched 2>/dev/null") != 0, "rmmod with an endpoint exits non-zero");
	ok(module_loaded() && path_exists(COSCHED_SYSFS_DIR), "module still loaded");
	arr = RD(e.ctrl->arrivals);
	expect_neg(doorbell(e.fd, e.job, 0, 1), 0, "... and its endpoint still works");
	expect_eq(RD(e.ctrl->arrivals), arr + 1, "... arrivals += 1");
	expect_eq(sysfs_u64("stats/endpoints"), 1, "... stats/endpoints still 1");

	/* A mapping keeps the endpoint (and the module) alive after close. */
	munmap(e.ctrl, (size_t)sysconf(_SC_PAGESIZE));
	e.ctrl = ctrl_map(e.fd);
	close(e.fd);
	r = module_unload();
	okf(r != 0, "delete_module fails while the control page is still mapped",
	    "module unloaded with a live mapping");
	if (!r)
		bail("module unloaded under a live mapping");
	munmap(e.ctrl, (size_t)sysconf(_SC_PAGESIZE));

	fd = dev_open();
	r = module_unload();
	t_diag("delete_module with an open file without endpoint: %s",
	       r ? strerror(-r) : "success");
	close(fd);
	if (!r)
		module_load(NULL);

	poll_until(sysfs_u64("stats/endpoints") == 0, 2000);
	expect_neg(module_unload(), 0, "rmmod after the last close succeeds");
	ok(!module_loaded(), "module gone");
	expect_neg(module_load(NULL), 0, "module loads again");
	ok(poll_until(path_exists(COSCHED_DEVICE), 2000), "device back");
	ep_must_open(&e, JOB + 8, 0);
	expect_neg(doorbell(e.fd, e.job, 0, 1), 0, "the reloaded module works");
	ep_close(&e);
}

int main(void)
{
	if (nr_cpus() < 2)
		bail("needs 2 CPUs");
	pin_cpu(1);
	test_destroy_wakes_waiter();
	test_exit_while_blocked(true);
	test_exit_while_blocked(false);
	test_kill_while_boosted("fifo");
	test_kill_while_boosted("nice");
	test_owner_thread_exits();
	test_create_races_mmap();
	ok(poll_until(sysfs_u64("stats/endpoints") == 0, 2000),
	   "after all that: stats/endpoints = 0");
	ok(poll_until(sysfs_u64("stats/jobs") == 0, 2000), "stats/jobs = 0");
	expect_eq(jobs_dir_entries(), 0, "jobs/ is empty");
	test_rmmod();
	return t_done();
}
