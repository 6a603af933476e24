// SPDX-License-Identifier: GPL-2.0
/*
 * abi: every rejected input of /dev/cosched with its exact errno, and a
 * check that the rejected call changed nothing; INFO, the extensible
 * struct rules, the mmap rules and the kernel-written control page
 * fields (on_cpu exactness included).
 */
#define _GNU_SOURCE
#include "check.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#define JOB	0xab100ull	/* jobs of this test: JOB + n */

static size_t page;

static u64 nr_endpoints(void)
{
	return sysfs_u64("stats/endpoints");
}

static u64 nr_jobs(void)
{
	return sysfs_u64("stats/jobs");
}

/* The fd holds no endpoint: STATS says so. */
static bool fd_has_no_endpoint(int fd)
{
	struct cosched_stats st;

	return ep_stats(fd, &st) == -ENXIO;
}

static void test_device_node(void)
{
	struct stat st;

	if (!ok(stat(COSCHED_DEVICE, &st) == 0, "device node exists"))
		return;
	ok(S_ISCHR(st.st_mode), "device node is a character device");
	expect_eq(st.st_mode & 07777, 0660, "device node mode 0660");
}

static void test_info(void)
{
	struct cosched_info info;
	char pol[32];
	int fd = open(COSCHED_DEVICE, O_RDONLY);

	/* INFO works on any fd, even a read-only one without endpoint. */
	if (!expect_neg(cs_info(fd, &info), 0, "INFO on a fresh O_RDONLY fd"))
		return;
	close(fd);
	expect_eq(info.abi_version, COSCHED_ABI_VERSION, "INFO abi_version");
	expect_eq(info.nr_policies, COSCHED_NR_POLICIES, "INFO nr_policies");
	expect_eq(info.ctrl_size, page, "INFO ctrl_size is the page size");
	if (!policy_get(pol, sizeof(pol)))
		expect_eq(info.policy, policy_index(pol),
			  "INFO policy matches sysfs policy");
	expect_eq(info.spin_us, sysfs_u64("spin_us"), "INFO spin_us = sysfs");
	expect_eq(info.pb_period_us, sysfs_u64("pb_period_us"),
		  "INFO pb_period_us = sysfs");
	expect_eq(info.boost_us, sysfs_u64("boost_us"),
		  "INFO boost_us = sysfs");
}

/* CREATE with a modified argument must fail with err and change nothing. */
static void create_rejected(struct cosched_create c, int err, const char *name)
{
	int fd = dev_open();
	u64 eps = nr_endpoints(), jobs = nr_jobs();
	char n[160];

	errno = 0;
	expect_errno(ioctl(fd, COSCHED_IOC_CREATE, &c), err, name);
	snprintf(n, sizeof(n), "%s: nothing changed", name);
	ok(nr_endpoints() == eps && nr_jobs() == jobs &&
	   fd_has_no_endpoint(fd) && (!c.job_id || !job_dir_exists(c.job_id)),
	   n);
	close(fd);
}

static void test_create_errors(void)
{
	struct cosched_create good = {
		.abi_version = COSCHED_ABI_VERSION, .job_id = JOB + 1,
	}, c;
	struct ep a, b;
	u64 eps, id;
	int fd;

	c = good; c.abi_version = 0;
	create_rejected(c, EPROTO, "CREATE abi_version 0 -> EPROTO");
	c = good; c.abi_version = COSCHED_ABI_VERSION + 1;
	create_rejected(c, EPROTO, "CREATE abi_version 2 -> EPROTO");
	c = good; c.flags = 1;
	create_rejected(c, EINVAL, "CREATE flags 1 -> EINVAL");
	c = good; c.flags = 0x80000000u;
	create_rejected(c, EINVAL, "CREATE flags bit 31 -> EINVAL");
	c = good; c.__reserved = 1;
	create_rejected(c, EINVAL, "CREATE __reserved 1 -> EINVAL");
	c = good; c.job_id = 0;
	create_rejected(c, EINVAL, "CREATE job_id 0 -> EINVAL");
	c = good; c.rank = COSCHED_MAX_RANKS;
	create_rejected(c, EINVAL, "CREATE rank MAX_RANKS -> EINVAL");
	c = good; c.rank = 0xffffffffu;
	create_rejected(c, EINVAL, "CREATE rank 2^32-1 -> EINVAL");

	/* The edges that must work. */
	eps = nr_endpoints();
	if (!expect_neg(ep_open(&a, JOB + 1, COSCHED_MAX_RANKS - 1), 0,
			"CREATE rank MAX_RANKS-1 accepted"))
		return;
	ok(a.id != 0, "endpoint id is nonzero");
	expect_eq(a.ctrl->endpoint_id, a.id, "ctrl endpoint_id = CREATE's id");
	expect_eq(nr_endpoints(), eps + 1, "stats/endpoints counts it");
	ok(job_dir_exists(JOB + 1), "jobs/<id> directory appears");
	expect_eq(job_u64(JOB + 1, "endpoints"), 1, "jobs/<id>/endpoints = 1");
	expect_eq(job_u64(JOB + 1, "owner_uid"), geteuid(),
		  "jobs/<id>/owner_uid = creator's euid");

	if (expect_neg(ep_open(&b, ~0ull, 0), 0, "CREATE job_id 2^64-1 accepted")) {
		ok(job_dir_exists(~0ull), "jobs/18446744073709551615 exists");
		ok(b.id != a.id, "endpoint ids differ");
		ep_close(&b);
	}

	/* One endpoint per file: EBUSY, first endpoint intact. */
	eps = nr_endpoints();
	expect_neg(ep_create_fd(a.fd, JOB + 2, 0, &id), EBUSY,
		   "second CREATE on the same file -> EBUSY");
	ok(nr_endpoints() == eps && !job_dir_exists(JOB + 2) &&
	   a.ctrl->endpoint_id == a.id,
	   "EBUSY: nothing changed, first endpoint intact");

	/* (job, rank) taken: EEXIST. */
	fd = dev_open();
	expect_neg(ep_create_fd(fd, JOB + 1, COSCHED_MAX_RANKS - 1, &id),
		   EEXIST, "CREATE of an existing (job, rank) -> EEXIST");
	ok(nr_endpoints() == eps && fd_has_no_endpoint(fd) &&
	   job_u64(JOB + 1, "endpoints") == 1,
	   "EEXIST: nothing changed");
	/* Same job, another rank is fine. */
	expect_neg(ep_create_fd(fd, JOB + 1, 0, &id), 0,
		   "CREATE of another rank in the same job");
	expect_eq(job_u64(JOB + 1, "endpoints"), 2, "jobs/<id>/endpoints = 2");
	close(fd);
	ok(poll_until(job_u64(JOB + 1, "endpoints") == 1, 1000),
	   "close() removes the endpoint from its job");
	ep_close(&a);
	ok(poll_until(!job_dir_exists(JOB + 1), 1000),
	   "jobs/<id> vanishes with its last endpoint");
}

static void test_destroy(void)
{
	struct cosched_stats st;
	struct cosched_yield y;
	u64 eps = nr_endpoints(), id1, id2;
	int fd = dev_open();

	expect_neg(ep_destroy(fd), ENXIO, "DESTROY without endpoint -> ENXIO");
	if (!expect_neg(ep_create_fd(fd, JOB + 3, 7, &id1), 0, "CREATE"))
		return;
	expect_neg(ep_destroy(fd), 0, "DESTROY");
	expect_eq(nr_endpoints(), eps, "DESTROY: stats/endpoints back");
	ok(!job_dir_exists(JOB + 3), "DESTROY: job directory gone");
	expect_neg(doorbell(fd, JOB + 3, 7, 1), ENOENT,
		   "DOORBELL to a destroyed endpoint -> ENOENT");
	expect_neg(ep_destroy(fd), ENXIO, "second DESTROY -> ENXIO");
	expect_neg(ep_stats(fd, &st), ENXIO, "STATS after DESTROY -> ENXIO");
	expect_neg(ep_wait(fd, 0, 1000), ENXIO, "WAIT after DESTROY -> ENXIO");
	expect_neg(ep_yield(fd, 0, &y), ENXIO, "YIELD after DESTROY -> ENXIO");
	ok(ctrl_map(fd) == NULL && errno == ENXIO,
	   "mmap after DESTROY -> ENXIO");
	/* The file may create again, even the same (job, rank). */
	if (expect_neg(ep_create_fd(fd, JOB + 3, 7, &id2), 0,
		       "CREATE again on the same file after DESTROY"))
		ok(id2 != id1, "the new endpoint has a new id");
	close(fd);
	ok(poll_until(nr_endpoints() == eps, 1000), "close: endpoints back");
}

static void test_doorbell(void)
{
	struct cosched_doorbell good = { .job_id = JOB + 4, .count = 1 }, d;
	struct cosched_stats st0, st;
	u64 arr, last, dbs, t0, t1;
	struct ep e;
	int fd = dev_open();	/* no endpoint: doorbells work from any fd */
	struct { struct cosched_doorbell d; int err; const char *name; } bad[] = {
		{ good, EINVAL, "DOORBELL count 0 -> EINVAL" },
		{ good, EINVAL, "DOORBELL count MAX+1 -> EINVAL" },
		{ good, EINVAL, "DOORBELL count 2^32-1 -> EINVAL" },
		{ good, EINVAL, "DOORBELL flags 1 -> EINVAL" },
		{ good, EINVAL, "DOORBELL __reserved 1 -> EINVAL" },
		{ good, ENOENT, "DOORBELL to a missing rank -> ENOENT" },
		{ good, ENOENT, "DOORBELL to a missing job -> ENOENT" },
	};

	bad[0].d.count = 0;
	bad[1].d.count = COSCHED_MAX_DOORBELL + 1;
	bad[2].d.count = 0xffffffffu;
	bad[3].d.flags = 1;
	bad[4].d.__reserved = 1;
	bad[5].d.rank = 1;
	bad[6].d.job_id = JOB + 5;

	ep_must_open(&e, JOB + 4, 0);
	ep_stats(e.fd, &st0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char n[160];

		arr = RD(e.ctrl->arrivals);
		last = RD(e.ctrl->last_arrival_ns);
		dbs = sysfs_u64("stats/doorbells");
		d = bad[i].d;
		expect_errno(ioctl(fd, COSCHED_IOC_DOORBELL, &d), bad[i].err,
			     bad[i].name);
		ep_stats(e.fd, &st);
		snprintf(n, sizeof(n), "%s: nothing changed", bad[i].name);
		ok(RD(e.ctrl->arrivals) == arr &&
		   RD(e.ctrl->last_arrival_ns) == last &&
		   st.arrivals == st0.arrivals && st.doorbells == st0.doorbells &&
		   sysfs_u64("stats/doorbells") == dbs, n);
	}

	/* A good doorbell: arrivals += count, a fresh last_arrival_ns. */
	arr = RD(e.ctrl->arrivals);
	dbs = sysfs_u64("stats/doorbells");
	u64 garr = sysfs_u64("stats/arrivals");
	u64 jarr = job_u64(JOB + 4, "arrivals");
	t0 = now_ns();
	expect_neg(doorbell(fd, JOB + 4, 0, 3), 0, "DOORBELL count 3");
	t1 = now_ns();
	expect_eq(RD(e.ctrl->arrivals), arr + 3, "arrivals += 3");
	last = RD(e.ctrl->last_arrival_ns);
	okf(last >= t0 && last <= t1, "last_arrival_ns is CLOCK_MONOTONIC now",
	    "last_arrival_ns %llu not in [%llu, %llu]",
	    (unsigned long long)last, (unsigned long long)t0,
	    (unsigned long long)t1);
	ep_stats(e.fd, &st);
	expect_eq(st.arrivals, st0.arrivals + 3, "endpoint STATS arrivals += 3");
	expect_eq(st.doorbells, st0.doorbells + 1, "endpoint STATS doorbells += 1");
	expect_eq(sysfs_u64("stats/arrivals"), garr + 3, "stats/arrivals += 3");
	expect_eq(sysfs_u64("stats/doorbells"), dbs + 1, "stats/doorbells += 1");
	expect_eq(job_u64(JOB + 4, "arrivals"), jarr + 3,
		  "jobs/<id>/arrivals += 3");
	expect_eq(job_u64(JOB + 4, "doorbells"), st.doorbells,
		  "jobs/<id>/doorbells = endpoint doorbells");

	arr = RD(e.ctrl->arrivals);
	expect_neg(doorbell(e.fd, JOB + 4, 0, COSCHED_MAX_DOORBELL), 0,
		   "DOORBELL count MAX accepted (own fd)");
	expect_eq(RD(e.ctrl->arrivals), arr + COSCHED_MAX_DOORBELL,
		  "arrivals += MAX");
	ep_close(&e);
	close(fd);
}

/* ---- WAIT ---- */

static struct ep wep;
static pthread_t wait_owner;
static volatile int observed_blocked, observed_still_blocked;

static void on_usr1(int sig)
{
	(void)sig;
}

static void *ring_when_blocked(void *arg)
{
	bool interrupt = arg != NULL;

	observed_blocked = poll_until(RD(wep.ctrl->state) & COSCHED_STATE_BLOCKED,
				      5000);
	/* No timeout means no timeout: it must still sleep later. */
	sleep_ns(100000000);
	observed_still_blocked = !!(RD(wep.ctrl->state) & COSCHED_STATE_BLOCKED);
	if (interrupt)
		pthread_kill(wait_owner, SIGUSR1);
	else
		doorbell(wep.fd, wep.job, wep.rank, 1);
	return NULL;
}

static void test_wait(void)
{
	struct cosched_wait w;
	struct cosched_stats st0, st;
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */
	pthread_t th;
	u64 seen, t0, el;
	int fd = dev_open();

	expect_neg(ep_wait(fd, 0, 1000000), ENXIO, "WAIT without endpoint -> ENXIO");
	close(fd);

	ep_must_open(&wep, JOB + 6, 0);
	wait_owner = pthread_self();
	seen = RD(wep.ctrl->arrivals);
	ep_stats(wep.fd, &st0);

	w = (struct cosched_wait){ .seen = seen, .timeout_ns = 1000000, .flags = 1 };
	expect_errno(ioctl(wep.fd, COSCHED_IOC_WAIT, &w), EINVAL,
		     "WAIT flags 1 -> EINVAL");
	w = (struct cosched_wait){ .seen = seen, .timeout_ns = 1000000, .__reserved = 1 };
	expect_errno(ioctl(wep.fd, COSCHED_IOC_WAIT, &w), EINVAL,
		     "WAIT __reserved 1 -> EINVAL");
	ep_stats(wep.fd, &st);
	expect_eq(st.blocks, st0.blocks, "rejected WAITs did not block");

	expect_neg(ep_wait(wep.fd, seen + 1, 0), 0,
		   "WAIT returns 0 at once when arrivals != seen");
	ep_stats(wep.fd, &st);
	expect_eq(st.blocks, st0.blocks, "... without blocking");

	t0 = now_ns();
	expect_neg(ep_wait(wep.fd, seen, 20000000), ETIMEDOUT,
		   "WAIT times out -> ETIMEDOUT");
	el = now_ns() - t0;
	okf(el >= 19000000, "ETIMEDOUT not before the timeout",
	    "returned after %llu ns < 20 ms", (unsigned long long)el);
	ep_stats(wep.fd, &st);
	expect_eq(st.blocks, st0.blocks + 1, "the timed-out WAIT counted a block");
	expect_eq(st.wakeups, st0.wakeups, "... and no wakeup");
	ok(!(RD(wep.ctrl->state) & COSCHED_STATE_BLOCKED),
	   "BLOCKED clear after the timeout");

	/* Sleep without timeout until another thread rings. */
	st0 = st;
	pthread_create(&th, NULL, ring_when_blocked, NULL);
	expect_neg(ep_wait(wep.fd, seen, 0), 0, "WAIT woken by a doorbell -> 0");
	pthread_join(th, NULL);
	ok(observed_blocked, "state has BLOCKED while sleeping in WAIT");
	ok(observed_still_blocked, "timeout 0 = no timeout (still asleep after 100 ms)");
	ok(!(RD(wep.ctrl->state) & COSCHED_STATE_BLOCKED),
	   "BLOCKED clear after the wakeup");
	ep_stats(wep.fd, &st);
	expect_eq(st.blocks, st0.blocks + 1, "STATS blocks += 1");
	expect_eq(st.wakeups, st0.wakeups + 1, "STATS wakeups += 1");

	/* A signal ends the sleep with EINTR. */
	sigaction(SIGUSR1, &sa, NULL);
	seen = RD(wep.ctrl->arrivals);
	pthread_create(&th, NULL, ring_when_blocked, (void *)1);
	expect_neg(ep_wait(wep.fd, seen, 0), EINTR, "WAIT interrupted -> EINTR");
	pthread_join(th, NULL);
	ok(observed_blocked, "BLOCKED before the signal");
	ok(!(RD(wep.ctrl->state) & COSCHED_STATE_BLOCKED),
	   "BLOCKED clear after EINTR");
	expect_eq(RD(wep.ctrl->arrivals), seen, "EINTR: arrivals unchanged");
	ep_close(&wep);
}

static void test_no_endpoint(void)
{
	struct cosched_yield y;
	struct cosched_stats st;
	int fd = dev_open();

	expect_neg(ep_yield(fd, 0, &y), ENXIO, "YIELD without endpoint -> ENXIO");
	expect_neg(ep_stats(fd, &st), ENXIO, "STATS without endpoint -> ENXIO");
	ok(ctrl_map(fd) == NULL && errno == ENXIO,
	   "mmap without endpoint -> ENXIO");
	close(fd);

	struct ep e;
	struct cosched_yield yb = { .flags = 2 };
	int nice0 = getpriority(PRIO_PROCESS, 0);

	ep_must_open(&e, JOB + 7, 0);
	yb.seen = RD(e.ctrl->arrivals);
	expect_errno(ioctl(e.fd, COSCHED_IOC_YIELD, &yb), EINVAL,
		     "YIELD unknown flag 2 -> EINVAL");
	ok(!(RD(e.ctrl->state) & COSCHED_STATE_YIELDED) &&
	   getpriority(PRIO_PROCESS, 0) == nice0,
	   "rejected YIELD did not lower the caller");
	ep_close(&e);
}

/* ---- extensible structs ---- */

/* A buffer whose tail past the ABI struct is zero or nonzero. */
static unsigned char xbuf[512] __attribute__((aligned(16)));

static void fill(const void *s, size_t len, size_t total, bool dirty_tail)
{
	memset(xbuf, 0, sizeof(xbuf));
	memcpy(xbuf, s, len);
	if (dirty_tail)
		xbuf[total - 1] = 0x5a;
}

static void test_extensible(void)
{
	struct cosched_create c = {
		.abi_version = COSCHED_ABI_VERSION, .job_id = JOB + 8,
	};
	struct cosched_doorbell d = { .job_id = JOB + 8, .count = 1 };
	struct cosched_wait w;
	struct cosched_yield y;
	struct cosched_stats st, st2;
	struct cosched_info info;
	const size_t cs = sizeof(c), ds = sizeof(d), ws = sizeof(w);
	const size_t ys = sizeof(y), ss = sizeof(st), is = sizeof(info);
	u64 eps = nr_endpoints(), arr;
	struct cosched_ctrl *ctrl;
	int fd = dev_open(), r;

	/* CREATE */
	fill(&c, cs, cs - 4, false);
	expect_neg(ioctl_sized(fd, COSCHED_IOC_CREATE, cs - 4, xbuf), EINVAL,
		   "CREATE size-4 -> EINVAL");
	expect_neg(ioctl_sized(fd, COSCHED_IOC_CREATE, 4, xbuf), EINVAL,
		   "CREATE size 4 -> EINVAL");
	expect_neg(ioctl_sized(fd, COSCHED_IOC_CREATE, 0, xbuf), EINVAL,
		   "CREATE size 0 -> EINVAL");
	fill(&c, cs, cs + 8, true);
	expect_neg(ioctl_sized(fd, COSCHED_IOC_CREATE, cs + 8, xbuf), E2BIG,
		   "CREATE size+8, nonzero tail -> E2BIG");
	fill(&c, cs, 256, true);
	expect_neg(ioctl_sized(fd, COSCHED_IOC_CREATE, 256, xbuf), E2BIG,
		   "CREATE size 256, nonzero last byte -> E2BIG");
	ok(nr_endpoints() == eps && fd_has_no_endpoint(fd) &&
	   !job_dir_exists(JOB + 8), "rejected sized CREATEs changed nothing");
	fill(&c, cs, cs + 8, false);
	r = ioctl_sized(fd, COSCHED_IOC_CREATE, cs + 8, xbuf);
	if (!expect_neg(r, 0, "CREATE size+8, zero tail accepted"))
		return;
	memcpy(&c, xbuf, cs);
	ok(c.endpoint_id != 0, "sized CREATE returned an endpoint id");
	ctrl = ctrl_map(fd);
	if (!ok(ctrl, "mmap after sized CREATE"))
		return;
	expect_eq(ctrl->endpoint_id, c.endpoint_id, "... it is this endpoint");

	/* Also a big zero-tailed struct. */
	int fd2 = dev_open();

	c.rank = 1;
	fill(&c, cs, 256, false);
	expect_neg(ioctl_sized(fd2, COSCHED_IOC_CREATE, 256, xbuf), 0,
		   "CREATE size 256, zero tail accepted");
	close(fd2);

	/* DOORBELL */
	arr = RD(ctrl->arrivals);
	fill(&d, ds, ds, false);
	expect_neg(ioctl_sized(fd, COSCHED_IOC_DOORBELL, ds - 4, xbuf), EINVAL,
		   "DOORBELL size-4 -> EINVAL");
	fill(&d, ds, ds + 8, true);
	expect_neg(ioctl_sized(fd, COSCHED_IOC_DOORBELL, ds + 8, xbuf), E2BIG,
		   "DOORBELL size+8, nonzero tail -> E2BIG");
	expect_eq(RD(ctrl->arrivals), arr, "rejected sized DOORBELLs: arrivals unchanged");
	fill(&d, ds, ds + 8, false);
	expect_neg(ioctl_sized(fd, COSCHED_IOC_DOORBELL, ds + 8, xbuf), 0,
		   "DOORBELL size+8, zero tail accepted");
	expect_eq(RD(ctrl->arrivals), arr + 1, "... and it announced 1 arrival");

	/* WAIT: seen != arrivals so an accepted WAIT returns at once. */
	w = (struct cosched_wait){ .seen = arr, .timeout_ns = 1000000 };
	fill(&w, ws, ws, false);
	expect_neg(ioctl_sized(fd, COSCHED_IOC_WAIT, ws - 4, xbuf), EINVAL,
		   "WAIT size-4 -> EINVAL");
	fill(&w, ws, ws + 8, true);
	expect_neg(ioctl_sized(fd, COSCHED_IOC_WAIT, ws + 8, xbuf), E2BIG,
		   "WAIT size+8, nonzero tail -> E2BIG");
	fill(&w, ws, ws + 8, false);
	expect_neg(ioctl_sized(fd, COSCHED_IOC_WAIT, ws + 8, xbuf), 0,
		   "WAIT size+8, zero tail accepted");

	/* YIELD: a message already arrived, so it lowers nobody. */
	y = (struct cosched_yield){ .seen = arr };
	fill(&y, ys, ys, false);
	expect_neg(ioctl_sized(fd, COSCHED_IOC_YIELD, ys - 4, xbuf), EINVAL,
		   "YIELD size-4 -> EINVAL");
	fill(&y, ys, ys + 8, true);
	expect_neg(ioctl_sized(fd, COSCHED_IOC_YIELD, ys + 8, xbuf), E2BIG,
		   "YIELD size+8, nonzero tail -> E2BIG");
	fill(&y, ys, ys + 8, false);
	expect_neg(ioctl_sized(fd, COSCHED_IOC_YIELD, ys + 8, xbuf), 0,
		   "YIELD size+8, zero tail accepted");
	memcpy(&y, xbuf, ys);
	expect_eq(y.lowered, 0, "... lowered = 0 (a message had arrived)");

	/* STATS and INFO are output-only. */
	ep_stats(fd, &st);
	fill(&st, 0, ss, false);
	/* Version 1 ended at budget_exhausted; repay_refused came after. */
	expect_neg(ioctl_sized(fd, COSCHED_IOC_STATS,
			       offsetof(struct cosched_stats, budget_exhausted) + 4,
			       xbuf), EINVAL, "STATS shorter than version 1 -> EINVAL");
	expect_neg(ioctl_sized(fd, COSCHED_IOC_STATS,
			       offsetof(struct cosched_stats, repay_refused),
			       xbuf), 0, "STATS of version 1 accepted");
	fill(&st, 0, ss + 8, false);
	expect_neg(ioctl_sized(fd, COSCHED_IOC_STATS, ss + 8, xbuf), 0,
		   "STATS size+8 accepted");
	memcpy(&st2, xbuf, ss);
	ok(st2.arrivals == st.arrivals && st2.doorbells == st.doorbells,
	   "sized STATS returns the same counters");
	fill(&st, 0, ss + 8, true);
	r = ioctl_sized(fd, COSCHED_IOC_STATS, ss + 8, xbuf);
	t_diag("STATS size+8 with nonzero tail (output-only struct): %s",
	       r ? strerror(-r) : "accepted");

	fill(&info, 0, is, false);
	expect_neg(ioctl_sized(fd, COSCHED_IOC_INFO,
			       offsetof(struct cosched_info, ctrl_size), xbuf),
		   EINVAL, "INFO without ctrl_size -> EINVAL");
	fill(&info, 0, is + 8, false);
	expect_neg(ioctl_sized(fd, COSCHED_IOC_INFO, is + 8, xbuf), 0,
		   "INFO size+8 accepted");
	memcpy(&info, xbuf, is);
	expect_eq(info.abi_version, COSCHED_ABI_VERSION,
		  "sized INFO fills abi_version");
	fill(&info, 0, is + 8, true);
	r = ioctl_sized(fd, COSCHED_IOC_INFO, is + 8, xbuf);
	t_diag("INFO size+8 with nonzero tail (output-only struct): %s",
	       r ? strerror(-r) : "accepted");

	/*
	 * The direction is part of a command: one built with another
	 * direction is another command, unknown, and changes nothing.
	 */
	arr = RD(ctrl->arrivals);
	fill(&d, ds, ds, false);
	expect_neg(ioctl_sized_rw(fd, COSCHED_IOC_DOORBELL, ds, xbuf), ENOTTY,
		   "DOORBELL built as _IOC(READ|WRITE) -> ENOTTY");
	expect_eq(RD(ctrl->arrivals), arr,
		  "arrivals unchanged after the misdirected DOORBELL");
	w = (struct cosched_wait){ .seen = arr, .timeout_ns = 1000000 };
	fill(&w, ws, ws, false);
	expect_neg(ioctl_sized_rw(fd, COSCHED_IOC_WAIT, ws, xbuf), ENOTTY,
		   "WAIT built as _IOC(READ|WRITE) -> ENOTTY");
	fill(&st, 0, ss, false);
	expect_neg(ioctl_sized_rw(fd, COSCHED_IOC_STATS, ss, xbuf), ENOTTY,
		   "STATS built as _IOC(READ|WRITE) -> ENOTTY");
	fill(&info, 0, is, false);
	expect_neg(ioctl_sized_rw(fd, COSCHED_IOC_INFO, is, xbuf), ENOTTY,
		   "INFO built as _IOC(READ|WRITE) -> ENOTTY");

	munmap(ctrl, page);
	close(fd);
}

static void test_bad_pointers(void)
{
	unsigned char *pg = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct cosched_create c = {
		.abi_version = COSCHED_ABI_VERSION, .job_id = JOB + 9,
	};
	struct ep e;
	u64 eps, arr;
	int fd = dev_open();

	eps = nr_endpoints();
	expect_errno(ioctl(fd, COSCHED_IOC_CREATE, NULL), EFAULT,
		     "CREATE NULL -> EFAULT");
	expect_errno(ioctl(fd, COSCHED_IOC_CREATE, (void *)1), EFAULT,
		     "CREATE (void *)1 -> EFAULT");
	/* The struct runs into an unmapped page. */
	munmap(pg + page, page);
	memcpy(pg + page - 8, &c, 8);
	expect_errno(ioctl(fd, COSCHED_IOC_CREATE, pg + page - 8), EFAULT,
		     "CREATE straddling an unmapped page -> EFAULT");
	/* Readable but not writable: the endpoint id cannot be returned. */
	memcpy(pg, &c, sizeof(c));
	mprotect(pg, page, PROT_READ);
	expect_errno(ioctl(fd, COSCHED_IOC_CREATE, pg), EFAULT,
		     "CREATE on read-only memory -> EFAULT");
	ok(nr_endpoints() == eps && fd_has_no_endpoint(fd) &&
	   !job_dir_exists(JOB + 9), "EFAULT CREATEs changed nothing");
	expect_errno(ioctl(fd, COSCHED_IOC_INFO, NULL), EFAULT,
		     "INFO NULL -> EFAULT");
	expect_errno(ioctl(fd, COSCHED_IOC_INFO, pg), EFAULT,
		     "INFO into read-only memory -> EFAULT");
	expect_errno(ioctl(fd, COSCHED_IOC_DOORBELL, NULL), EFAULT,
		     "DOORBELL NULL -> EFAULT");

	ep_must_open(&e, JOB + 9, 0);
	arr = RD(e.ctrl->arrivals);
	expect_errno(ioctl(e.fd, COSCHED_IOC_WAIT, NULL), EFAULT,
		     "WAIT NULL -> EFAULT");
	expect_errno(ioctl(e.fd, COSCHED_IOC_YIELD, NULL), EFAULT,
		     "YIELD NULL -> EFAULT");
	expect_errno(ioctl(e.fd, COSCHED_IOC_STATS, NULL), EFAULT,
		     "STATS NULL -> EFAULT");
	expect_errno(ioctl(e.fd, COSCHED_IOC_STATS, pg), EFAULT,
		     "STATS into read-only memory -> EFAULT");
	expect_eq(RD(e.ctrl->arrivals), arr, "EFAULTs: arrivals unchanged");
	ok(!(RD(e.ctrl->state) & COSCHED_STATE_YIELDED),
	   "EFAULT YIELD did not lower the caller");
	ep_close(&e);
	munmap(pg, page);
	close(fd);
}

static void test_unknown_ioctls(void)
{
	struct cosched_info info;
	struct termios tio;
	int fd = dev_open();

	expect_errno(ioctl(fd, _IO(COSCHED_IOC_MAGIC, 0x07)), ENOTTY,
		     "ioctl nr 0x07 -> ENOTTY");
	expect_errno(ioctl(fd, _IOWR(COSCHED_IOC_MAGIC, 0x40, struct cosched_info),
			   &info), ENOTTY, "ioctl nr 0x40 -> ENOTTY");
	expect_errno(ioctl(fd, _IOR('x', 0x00, struct cosched_info), &info),
		     ENOTTY, "foreign magic -> ENOTTY");
	expect_errno(ioctl(fd, 0), ENOTTY, "ioctl cmd 0 -> ENOTTY");
	expect_errno(tcgetattr(fd, &tio), ENOTTY, "TCGETS -> ENOTTY");
	close(fd);
}

static void test_mmap(void)
{
	struct ep e;
	void *p;

	ep_must_open(&e, JOB + 10, 0);
	p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, e.fd, 0);
	ok(p == MAP_FAILED && errno == EINVAL, "mmap of two pages -> EINVAL");
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, e.fd, page);
	ok(p == MAP_FAILED && errno == EINVAL, "mmap at offset 1 page -> EINVAL");
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE, e.fd, 0);
	ok(p == MAP_FAILED && errno == EINVAL, "mmap MAP_PRIVATE -> EINVAL");
	p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_SHARED, e.fd, 0);
	ok(p == MAP_FAILED && errno == EPERM, "mmap PROT_EXEC -> EPERM");

	/* Two mappings are the same page. */
	struct cosched_ctrl *c2 = ctrl_map(e.fd);

	if (ok(c2 != NULL, "second mapping of the control page")) {
		WR(e.ctrl->consumed, 42);
		expect_eq(RD(c2->consumed), 42, "both mappings share the page");
		WR(e.ctrl->consumed, 0);
		p = c2;
		int r = mprotect(p, page, PROT_READ | PROT_EXEC);

		t_diag("mprotect(PROT_EXEC) on the control page: %s",
		       r ? strerror(errno) : "allowed");
		munmap(c2, page);
	}
	ep_close(&e);
}

static unsigned int wait_mode_of(int policy)
{
	switch (policy) {
	case COSCHED_POLICY_SB: case COSCHED_POLICY_DCS_SB:
	case COSCHED_POLICY_PB_SB: case COSCHED_POLICY_PBA_SB:
		return COSCHED_WAIT_BLOCK;
	case COSCHED_POLICY_SY: case COSCHED_POLICY_DCS_SY:
	case COSCHED_POLICY_PB_SY: case COSCHED_POLICY_PBA_SY:
	case COSCHED_POLICY_DCS_FAIR:
		return COSCHED_WAIT_YIELD;
	default:
		return COSCHED_WAIT_BUSY;
	}
}

static void test_ctrl_fields(void)
{
	struct cosched_info info;
	char orig[32], n[96];
	u64 spin = sysfs_u64("spin_us");
	struct ep e;

	ep_must_open(&e, JOB + 11, 0);
	cs_info(e.fd, &info);
	expect_eq(e.ctrl->arrivals, 0, "new endpoint: arrivals 0");
	expect_eq(e.ctrl->state, 0, "new endpoint: state 0");
	expect_eq(e.ctrl->policy, info.policy, "ctrl policy = INFO policy");
	expect_eq(e.ctrl->wait_mode, wait_mode_of(info.policy),
		  "ctrl wait_mode fits the policy");
	expect_eq(e.ctrl->spin_us, info.spin_us, "ctrl spin_us = INFO spin_us");

	/* The kernel keeps them current when the admin retunes. */
	policy_get(orig, sizeof(orig));
	for (int i = 0; i < COSCHED_NR_POLICIES; i++) {
		policy_set(policy_names[i]);
		snprintf(n, sizeof(n), "policy %s: ctrl policy and wait_mode follow",
			 policy_names[i]);
		ok(poll_until(RD(e.ctrl->policy) == (u32)i &&
			      RD(e.ctrl->wait_mode) == wait_mode_of(i), 1000), n);
		cs_info(e.fd, &info);
		snprintf(n, sizeof(n), "policy %s: INFO policy follows",
			 policy_names[i]);
		expect_eq(info.policy, i, n);
	}
	policy_set(orig);
	sysfs_set_u64("spin_us", 123);
	ok(poll_until(RD(e.ctrl->spin_us) == 123, 1000),
	   "ctrl spin_us follows sysfs spin_us");
	sysfs_set_u64("spin_us", spin);
	ep_close(&e);
}

/* ---- on_cpu ---- */

static struct ep oep;
static volatile int owner_sleeping, sampler_stop;
static volatile u32 on_cpu_while_asleep = 99;
static volatile long zeros, ones;

static void *watch_sleeper(void *arg)
{
	(void)arg;
	pin_cpu(1);
	while (!RD(owner_sleeping))
		cpu_relax();
	sleep_ns(100000000);	/* well inside the owner's 300 ms nanosleep */
	on_cpu_while_asleep = RD(oep.ctrl->on_cpu);
	return NULL;
}

static void *sample_on_cpu(void *arg)
{
	(void)arg;
	pin_cpu(1);
	while (!RD(sampler_stop)) {
		if (RD(oep.ctrl->on_cpu))
			ones++;
		else
			zeros++;
		sleep_ns(200000);
	}
	return NULL;
}

static void test_on_cpu(void)
{
	pthread_t th;
	pid_t hog;
	u64 end;

	if (nr_cpus() < 2) {
		t_diag("on_cpu tests need 2 CPUs; skipped");
		return;
	}
	pin_cpu(0);
	ep_must_open(&oep, JOB + 12, 0);
	sched_yield();
	expect_eq(RD(oep.ctrl->on_cpu), 1, "on_cpu = 1 read by the running owner");
	expect_eq(RD(oep.ctrl->cpu), 0, "cpu = 0 for an owner pinned to CPU 0");

	pthread_create(&th, NULL, watch_sleeper, NULL);
	WR(owner_sleeping, 1);
	sleep_ns(300000000);
	pthread_join(th, NULL);
	expect_eq(on_cpu_while_asleep, 0,
		  "on_cpu = 0 while the owner sleeps (read by a second thread)");
	expect_eq(RD(oep.ctrl->on_cpu), 1, "on_cpu = 1 again after the sleep");

	/* Runnable but waiting for the CPU is not on a CPU either. */
	hog = hog_start(0);
	pthread_create(&th, NULL, sample_on_cpu, NULL);
	end = now_ns() + 1000000000ull;
	while (now_ns() < end)
		cpu_relax();
	WR(sampler_stop, 1);
	pthread_join(th, NULL);
	hog_stop(hog);
	t_diag("owner spinning next to a hog: on_cpu sampled 1 x%ld, 0 x%ld",
	       ones, zeros);
	ok(ones > 0 && zeros > 0,
	   "on_cpu goes 0 while a hog holds the owner's CPU and back to 1");

	/* cpu follows a migration. */
	pin_cpu(1);
	sched_yield();
	expect_eq(RD(oep.ctrl->cpu), 1, "cpu = 1 after moving the owner to CPU 1");
	ep_close(&oep);
}

int main(void)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	if (!path_exists(COSCHED_SYSFS_DIR))
		bail("cosched module not loaded");
	test_device_node();
	test_info();
	test_create_errors();
	test_destroy();
	test_doorbell();
	test_wait();
	test_no_endpoint();
	test_extensible();
	test_bad_pointers();
	test_unknown_ioctls();
	test_mmap();
	test_ctrl_fields();
	test_on_cpu();
	ok(poll_until(nr_endpoints() == 0 && nr_jobs() == 0, 1000),
	   "all endpoints and jobs gone at the end");
	return t_done();
}
