// SPDX-License-Identifier: GPL-2.0
/*
 * security: who may open the device, whose job an id names, whom a
 * doorbell reaches, and how many endpoints a user may hold.
 *  - /dev/cosched is 0660, group COSCHED_TEST_GID: a user outside the
 *    group gets EACCES at open, one in it may use the device.
 *  - Jobs are per user: users 65534 and 65533 each make their own
 *    "job JOB_SHARED" beside root's, none joins or blocks another, and a
 *    doorbell or ring mmap names the caller's own job only.
 *  - Reaching an owner is checked against its credentials of the
 *    moment: once a root-created endpoint's owner has dropped to 65534,
 *    root without CAP_SYS_NICE may no longer ring it; with it, it may.
 *  - user_max_endpoints bounds one user's endpoints (EUSERS, nothing
 *    changed), not another user's; raising it allows more.
 */
#define _GNU_SOURCE
#include "check.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define JOB_SHARED	0x5ec000ull
#define JOB_SETUID	0x5ec002ull
#define JOB_LIMIT	0x5ec003ull
#define NOBODY		65534
#define OTHER		65533
#define LIMIT		4

struct shared {
	int ready, done;
	int phase;		/* the user_max_endpoints child's steps */
	u64 eps;		/* stats/endpoints as the child saw it */
};

static struct shared *sh;

static void drop_cap_sys_nice(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		bail("capget: %s", strerror(errno));
	d[0].effective &= ~(1u << CAP_SYS_NICE);
	d[0].permitted &= ~(1u << CAP_SYS_NICE);
	d[0].inheritable &= ~(1u << CAP_SYS_NICE);
	if (syscall(SYS_capset, &h, d))
		bail("capset: %s", strerror(errno));
}

/* Does this process have an effective capability set of zero? */
static bool no_caps(void)
{
	char line[256];
	bool none = false;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			none = strtoull(line + 7, NULL, 16) == 0;
	if (f)
		fclose(f);
	return none;
}

static void wait_done(void)
{
	while (!RD(sh->done))
		sleep_ns(1000000);
}

static void no_group_child(void)
{
	become_user(NOBODY, false);
	ok(no_caps(), "no group: no effective capabilities");
	expect_errno(open(COSCHED_DEVICE, O_RDWR), EACCES,
		     "user outside the device's group: open -> EACCES");
	_exit(0);
}

/* The ring of rank @rank of the caller's job, header page only. */
static int ring_map_err(int fd, u32 rank)
{
	void *p = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, COSCHED_RING_OFFSET(rank));

	if (p == MAP_FAILED)
		return -errno;
	munmap(p, getpagesize());
	return 0;
}

/* A user in the group, using the id root's job has. */
static void user_child(void)
{
	struct ep own;

	become_user(NOBODY, true);
	if (!expect_neg(ep_open(&own, JOB_SHARED, 0), 0,
			"user: CREATE (root's job id, rank 0) makes its own job"))
		_exit(1);
	expect_neg(doorbell(own.fd, JOB_SHARED, 0, 1), 0,
		   "user: DOORBELL (that id, 0) reaches its own endpoint");
	expect_eq(RD(own.ctrl->arrivals), 1, "user: ... arrives at its own");
	expect_neg(doorbell(own.fd, JOB_SHARED, 9, 1), ENOENT,
		   "user: DOORBELL (that id, rank only root has) -> ENOENT");
	expect_neg(ring_map_err(own.fd, 9), ENOENT,
		   "user: ring mmap of a rank only root's job has -> ENOENT");
	expect_neg(ring_map_err(own.fd, 0), 0, "user: ring mmap of its own rank");
	WR(sh->ready, 1);
	wait_done();
	/* Its own doorbell only: neither root nor the other user reached it. */
	expect_eq(RD(own.ctrl->arrivals), 1, "user: nobody else's doorbell arrived");
	ep_close(&own);
	_exit(0);
}

static void other_user_child(void)
{
	struct ep own;

	become_user(OTHER, true);
	if (!expect_neg(ep_open(&own, JOB_SHARED, 0), 0,
			"other user: CREATE (the same id, rank 0) while two users hold it"))
		_exit(1);
	expect_neg(doorbell(own.fd, JOB_SHARED, 0, 1), 0,
		   "other user: DOORBELL (that id, 0) reaches its own");
	expect_eq(RD(own.ctrl->arrivals), 1, "other user: ... arrives at its own");
	ep_close(&own);
	_exit(0);
}

/* Created as root, then drops to NOBODY for good. */
static void setuid_child(void)
{
	struct ep ep;

	if (ep_open(&ep, JOB_SETUID, 0))
		_exit(1);
	become_user(NOBODY, true);
	WR(sh->ready, 1);
	wait_done();
	WR(sh->eps, RD(ep.ctrl->arrivals));
	ep_close(&ep);
	_exit(0);
}

static void root_without_cap_child(void)
{
	int fd;

	drop_cap_sys_nice();
	fd = dev_open();
	expect_neg(doorbell(fd, JOB_SETUID, 0, 1), EPERM,
		   "root without CAP_SYS_NICE: DOORBELL to an owner now uid 65534 -> EPERM");
	expect_neg(doorbell(fd, JOB_SHARED, 0, 1), 0,
		   "root without CAP_SYS_NICE: DOORBELL to root's own endpoint");
	close(fd);
	_exit(0);
}

static void limit_child(void)
{
	struct ep eps[LIMIT + 2];
	struct cosched_stats st;
	u64 before;
	int i, fd;

	become_user(NOBODY, true);
	for (i = 0; i < LIMIT; i++)
		if (!expect_neg(ep_open(&eps[i], JOB_LIMIT, i), 0,
				"limit: CREATE below user_max_endpoints"))
			_exit(1);
	before = sysfs_u64("stats/endpoints");
	fd = dev_open();
	expect_neg(ep_create_fd(fd, JOB_LIMIT, LIMIT, NULL), EUSERS,
		   "limit: CREATE beyond user_max_endpoints -> EUSERS");
	expect_neg(ep_stats(fd, &st), ENXIO, "limit: ... the file has no endpoint");
	expect_eq(sysfs_u64("stats/endpoints"), before, "limit: ... no endpoint added");
	expect_neg(ep_create_fd(fd, JOB_LIMIT + 1, 0, NULL), EUSERS,
		   "limit: ... in another job of its own too");
	close(fd);
	WR(sh->phase, 1);
	while (RD(sh->phase) != 2)
		sleep_ns(1000000);
	expect_neg(ep_open(&eps[LIMIT], JOB_LIMIT, LIMIT), 0,
		   "limit: CREATE after user_max_endpoints was raised");
	expect_neg(ep_open(&eps[LIMIT + 1], JOB_LIMIT, LIMIT + 1), EUSERS,
		   "limit: ... and the raised limit holds");
	for (i = 0; i <= LIMIT; i++)
		ep_close(&eps[i]);
	_exit(0);
}

static pid_t start(void (*fn)(void))
{
	pid_t pid = fork();

	if (pid < 0)
		bail("fork: %s", strerror(errno));
	if (!pid)
		fn();
	return pid;
}

static void run_child(void (*fn)(void))
{
	wait_child(start(fn));
}

static void test_jobs(void)
{
	struct ep root_ep, root9;
	pid_t user;

	ep_must_open(&root_ep, JOB_SHARED, 0);
	ep_must_open(&root9, JOB_SHARED, 9);
	WR(sh->ready, 0);
	WR(sh->done, 0);
	user = start(user_child);
	/* Not fatal: the checks after this one test other bugs. */
	if (!ok(poll_until(RD(sh->ready), 5000), "the user child got ready")) {
		kill(user, SIGKILL);
		wait_child(user);
		ep_close(&root9);
		ep_close(&root_ep);
		return;
	}
	expect_eq(RD(root_ep.ctrl->arrivals), 0,
		  "root's endpoint got no arrival from the user");
	ok(uid_job_dir_exists(NOBODY, JOB_SHARED), "jobs/65534-<id> exists");
	expect_eq(uid_job_u64(NOBODY, JOB_SHARED, "endpoints"), 1,
		  "jobs/65534-<id> has the user's endpoint");
	expect_eq(uid_job_u64(NOBODY, JOB_SHARED, "owner_uid"), NOBODY,
		  "jobs/65534-<id>/owner_uid = 65534");
	expect_eq(uid_job_u64(0, JOB_SHARED, "endpoints"), 2,
		  "root's job of that id still has its 2 endpoints");
	run_child(other_user_child);
	expect_neg(doorbell(root_ep.fd, JOB_SHARED, 0, 1), 0,
		   "root: DOORBELL (that id, 0) reaches its own endpoint");
	expect_eq(RD(root_ep.ctrl->arrivals), 1, "root: ... arrives at root's");
	WR(sh->done, 1);
	wait_child(user);
	ep_close(&root9);
	ep_close(&root_ep);
}

static void test_setuid_owner(void)
{
	pid_t owner;
	int fd = dev_open();

	WR(sh->ready, 0);
	WR(sh->done, 0);
	owner = start(setuid_child);
	if (!poll_until(RD(sh->ready), 5000)) {
		kill(owner, SIGKILL);
		bail("the set-uid child did not get ready");
	}
	{
		struct ep root_ep;

		ep_must_open(&root_ep, JOB_SHARED, 0);
		run_child(root_without_cap_child);
		ep_close(&root_ep);
	}
	expect_neg(doorbell(fd, JOB_SETUID, 0, 1), 0,
		   "root with CAP_SYS_NICE: DOORBELL to an owner now uid 65534");
	WR(sh->done, 1);
	wait_child(owner);
	expect_eq(RD(sh->eps), 1,
		  "the owner that dropped to 65534 got only CAP_SYS_NICE's doorbell");
	close(fd);
}

static void test_limit(void)
{
	struct ep root_ep;
	bool made;
	pid_t child;

	if (!ok(sysfs_read("user_max_endpoints", (char[32]){ 0 }, 32) == 0,
		"a per-user endpoint limit exists (user_max_endpoints)"))
		return;
	sysfs_set_u64("user_max_endpoints", LIMIT);
	WR(sh->phase, 0);
	child = start(limit_child);
	if (!poll_until(RD(sh->phase) == 1, 10000)) {
		kill(child, SIGKILL);
		bail("the limit child did not reach its limit");
	}
	made = expect_neg(ep_open(&root_ep, JOB_LIMIT, 0), 0,
			  "limit: another user (root) still creates while 65534 is at its limit");
	sysfs_set_u64("user_max_endpoints", LIMIT + 1);
	WR(sh->phase, 2);
	wait_child(child);
	if (made)
		ep_close(&root_ep);
	sysfs_set_u64("user_max_endpoints", 256);
}

int main(void)
{
	sh = shared_alloc(sizeof(*sh));
	run_child(no_group_child);
	test_jobs();
	test_setuid_owner();
	test_limit();
	ok(poll_until(sysfs_u64("stats/endpoints") == 0 &&
		      sysfs_u64("stats/jobs") == 0, 2000),
	   "all endpoints and jobs gone");
	return t_done();
}
