// SPDX-License-Identifier: GPL-2.0
/*
 * security: who may join a job and ring whom.  A user (uid 65534, no
 * capabilities) cannot join a job root created or ring root's endpoint,
 * but can create its own job and ring its own endpoints; another user
 * cannot touch that job; root without CAP_SYS_NICE is just another euid;
 * root with CAP_SYS_NICE may ring and join the user's job.
 */
#define _GNU_SOURCE
#include "check.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define JOB_ROOT	0x5ec000ull
#define JOB_USER	0x5ec001ull
#define NOBODY		65534
#define OTHER		65533

struct shared {
	int user_ready, done;
	u64 user_arrivals;	/* the user's endpoint, after root rang it */
};

static struct shared *sh;

static void become(uid_t uid)
{
	if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		bail("setresuid(%d): %s", uid, strerror(errno));
}

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

static void user_child(void)
{
	struct cosched_stats st;
	struct ep own, own2;
	u64 id;
	int fd;

	become(NOBODY);
	ok(no_caps(), "user: no effective capabilities after setresuid");
	fd = open(COSCHED_DEVICE, O_RDWR);
	if (!ok(fd >= 0, "user: can open /dev/cosched (0666)"))
		_exit(1);
	expect_neg(ep_create_fd(fd, JOB_ROOT, 1, &id), EPERM,
		   "user: CREATE in root's job -> EPERM");
	ok(ep_stats(fd, &st) == -ENXIO,
	   "user: the EPERM CREATE left the file without endpoint");
	expect_neg(doorbell(fd, JOB_ROOT, 0, 1), EPERM,
		   "user: DOORBELL to root's endpoint -> EPERM");
	expect_neg(doorbell(fd, JOB_ROOT, 9, 1), ENOENT,
		   "user: DOORBELL to a missing rank of root's job -> ENOENT");
	close(fd);

	if (!expect_neg(ep_open(&own, JOB_USER, 0), 0, "user: CREATE of its own job"))
		_exit(1);
	expect_neg(doorbell(own.fd, JOB_USER, 0, 1), 0, "user: DOORBELL to itself");
	expect_eq(RD(own.ctrl->arrivals), 1, "user: ... arrives");
	if (expect_neg(ep_open(&own2, JOB_USER, 1), 0,
		       "user: CREATE of a second rank in its job")) {
		expect_neg(doorbell(own2.fd, JOB_USER, 0, 1), 0,
			   "user: DOORBELL between its own endpoints");
		ep_close(&own2);
	}
	WR(sh->user_ready, 1);
	while (!RD(sh->done))
		sleep_ns(1000000);
	WR(sh->user_arrivals, RD(own.ctrl->arrivals));
	ep_close(&own);
	_exit(0);
}

static void other_user_child(void)
{
	int fd;

	become(OTHER);
	fd = dev_open();
	expect_neg(doorbell(fd, JOB_USER, 0, 1), EPERM,
		   "other user: DOORBELL to the user's endpoint -> EPERM");
	expect_neg(ep_create_fd(fd, JOB_USER, 5, NULL), EPERM,
		   "other user: CREATE in the user's job -> EPERM");
	expect_neg(ep_create_fd(fd, JOB_USER + 1, 0, NULL), 0,
		   "other user: CREATE of its own job");
	close(fd);
	_exit(0);
}

static void root_without_cap_child(void)
{
	int fd;

	drop_cap_sys_nice();
	fd = dev_open();
	expect_neg(doorbell(fd, JOB_USER, 0, 1), EPERM,
		   "root without CAP_SYS_NICE: DOORBELL to the user -> EPERM");
	expect_neg(ep_create_fd(fd, JOB_USER, 6, NULL), EPERM,
		   "root without CAP_SYS_NICE: CREATE in the user's job -> EPERM");
	expect_neg(doorbell(fd, JOB_ROOT, 0, 1), 0,
		   "root without CAP_SYS_NICE: DOORBELL to root's own endpoint");
	close(fd);
	_exit(0);
}

static void run_child(void (*fn)(void))
{
	pid_t pid = fork();

	if (!pid)
		fn();
	wait_child(pid);
}

int main(void)
{
	struct ep root_ep, root_in_user_job;
	pid_t user;
	u64 arr, eps;

	sh = shared_alloc(sizeof(*sh));
	ep_must_open(&root_ep, JOB_ROOT, 0);
	eps = sysfs_u64("stats/endpoints");

	user = fork();
	if (!user)
		user_child();
	if (!poll_until(RD(sh->user_ready), 5000)) {
		kill(user, SIGKILL);
		bail("the user child did not get ready");
	}
	expect_eq(RD(root_ep.ctrl->arrivals), 0,
		  "root's endpoint got no arrival from the user");
	expect_eq(sysfs_u64("stats/endpoints"), eps + 1,
		  "only the user's own endpoint was added");
	expect_eq(job_u64(JOB_ROOT, "owner_uid"), 0, "jobs/<root job>/owner_uid = 0");
	expect_eq(job_u64(JOB_USER, "owner_uid"), NOBODY,
		  "jobs/<user job>/owner_uid = 65534");
	expect_eq(job_u64(JOB_ROOT, "endpoints"), 1, "root's job still has 1 endpoint");

	run_child(other_user_child);
	run_child(root_without_cap_child);
	arr = RD(root_ep.ctrl->arrivals);
	expect_eq(arr, 1, "root's endpoint: only the same-euid doorbell arrived");

	expect_neg(doorbell(root_ep.fd, JOB_USER, 0, 1), 0,
		   "root (CAP_SYS_NICE): DOORBELL to the user's endpoint");
	expect_neg(ep_open(&root_in_user_job, JOB_USER, 7), 0,
		   "root (CAP_SYS_NICE): CREATE in the user's job");
	ep_close(&root_in_user_job);
	WR(sh->done, 1);
	wait_child(user);
	/* 1 from itself, 1 from its second rank, 1 from root. */
	expect_eq(sh->user_arrivals, 3, "the user's endpoint got exactly the allowed arrivals");
	ep_close(&root_ep);
	ok(poll_until(sysfs_u64("stats/endpoints") == 0 &&
		      sysfs_u64("stats/jobs") == 0, 2000),
	   "all endpoints and jobs gone");
	return t_done();
}
