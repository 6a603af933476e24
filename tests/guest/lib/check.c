// SPDX-License-Identifier: GPL-2.0
/* Shared helpers of the cosched guest tests; see check.h. */
#define _GNU_SOURCE
#include "check.h"

#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- TAP ---------------------------------------------------------- */

/* Counters live in shared memory so forked children report too. */
struct tap_state {
	int num;
	int failed;
};
static struct tap_state *tap;

__attribute__((constructor)) static void tap_init(void)
{
	tap = mmap(NULL, sizeof(*tap), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tap == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
}

static void emit(const char *buf)
{
	/* One write per line keeps lines whole across processes. */
	fflush(stdout);
	if (write(STDOUT_FILENO, buf, strlen(buf)) < 0)
		exit(2);
}

bool t_report(bool cond, const char *file, int line, const char *name,
	      const char *fmt, ...)
{
	char why[768], out[1200];
	int n = __atomic_add_fetch(&tap->num, 1, __ATOMIC_SEQ_CST);
	va_list ap;

	if (cond) {
		snprintf(out, sizeof(out), "ok %d - %s\n", n, name);
	} else {
		__atomic_add_fetch(&tap->failed, 1, __ATOMIC_SEQ_CST);
		va_start(ap, fmt);
		vsnprintf(why, sizeof(why), fmt, ap);
		va_end(ap);
		snprintf(out, sizeof(out), "not ok %d - %s # %s:%d: %s\n",
			 n, name, file, line, why);
	}
	emit(out);
	return cond;
}

void t_skip(const char *name, const char *fmt, ...)
{
	char why[768], out[1200];
	int n = __atomic_add_fetch(&tap->num, 1, __ATOMIC_SEQ_CST);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(out, sizeof(out), "ok %d - %s # SKIP %s\n", n, name, why);
	emit(out);
}

double host_steal_pct(int cpu, u64 ms, u64 gap_us, u64 *max_gap_ns)
{
	u64 start, last, t, stolen = 0, max = 0;
	cpu_set_t before;

	if (sched_getaffinity(0, sizeof(before), &before))
		bail("sched_getaffinity: %s", strerror(errno));
	pin_cpu(cpu);
	start = last = now_ns();
	do {
		t = now_ns();
		if (t - last > gap_us * 1000) {
			stolen += t - last;
			if (t - last > max)
				max = t - last;
		}
		last = t;
	} while (t - start < ms * 1000000);
	sched_setaffinity(0, sizeof(before), &before);
	if (max_gap_ns)
		*max_gap_ns = max;
	return 100.0 * (double)stolen / (double)(t - start);
}

void t_diag(const char *fmt, ...)
{
	char msg[1024], out[1100];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(out, sizeof(out), "# %s\n", msg);
	emit(out);
}

int t_failures(void)
{
	return __atomic_load_n(&tap->failed, __ATOMIC_SEQ_CST);
}

int t_done(void)
{
	char out[128];

	snprintf(out, sizeof(out), "1..%d\n", tap->num);
	emit(out);
	if (tap->failed)
		t_diag("%d of %d checks failed", tap->failed, tap->num);
	return tap->failed ? 1 : 0;
}

void t_bail(const char *file, int line, const char *fmt, ...)
{
	char why[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	t_report(false, file, line, "test aborted", "%s", why);
	t_done();
	exit(1);
}

const char *errno_name(int err)
{
	static const struct { int e; const char *n; } names[] = {
		{ 0, "0 (success)" }, { EINVAL, "EINVAL" }, { EPERM, "EPERM" }, { ENOENT, "ENOENT" },
		{ EEXIST, "EEXIST" }, { EBUSY, "EBUSY" }, { ENXIO, "ENXIO" },
		{ EPROTO, "EPROTO" }, { E2BIG, "E2BIG" }, { EFAULT, "EFAULT" },
		{ ENOTTY, "ENOTTY" }, { ETIMEDOUT, "ETIMEDOUT" },
		{ EINTR, "EINTR" }, { EIDRM, "EIDRM" }, { EAGAIN, "EAGAIN" },
		{ EACCES, "EACCES" }, { ENODEV, "ENODEV" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].e == err)
			return names[i].n;
	return "E?";
}

/* ---- time, CPUs, processes ----------------------------------------- */

u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void sleep_ns(u64 ns)
{
	struct timespec ts = { ns / 1000000000ull, ns % 1000000000ull };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

void spin_ns(u64 ns)
{
	u64 end = now_ns() + ns;

	while (now_ns() < end)
		cpu_relax();
}

void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		bail("sched_setaffinity(cpu %d): %s", cpu, strerror(errno));
}

int nr_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

pid_t hog_start(int cpu)
{
	pid_t pid = fork();

	if (pid < 0)
		bail("fork: %s", strerror(errno));
	if (pid == 0) {
		volatile unsigned long n = 0;

		pin_cpu(cpu);
		for (;;)
			n++;
	}
	return pid;
}

void hog_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

void become_user(uid_t uid, bool with_group)
{
	gid_t group = COSCHED_TEST_GID;

	if (setgroups(with_group ? 1 : 0, &group) ||
	    setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		bail("become_user(%d): %s", uid, strerror(errno));
}

bool task_schedstat(pid_t pid, u64 *ran, u64 *waited)
{
	unsigned long long r, w;
	char path[64];
	FILE *f;
	int n;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	else
		snprintf(path, sizeof(path), "/proc/thread-self/schedstat");
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fscanf(f, "%llu %llu", &r, &w);
	fclose(f);
	if (n != 2) {
		errno = EIO;
		return false;
	}
	if (ran)
		*ran = r;
	if (waited)
		*waited = w;
	return true;
}

u64 task_cpu_ns(pid_t pid)
{
	u64 ran;

	return task_schedstat(pid, &ran, NULL) ? ran : 0;
}

u32 rnd(u32 n)
{
	static __thread u64 s;

	if (!s)
		s = now_ns() ^ ((u64)gettid_() << 32) ^ 0x9e3779b97f4a7c15ull;
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return n ? (u32)(s % n) : 0;
}

void *shared_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		bail("mmap shared: %s", strerror(errno));
	return p;
}

int wait_child(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

static bool task_boosted(pid_t pid, int own_nice, bool *gone)
{
	int pol, nice;

	pol = sched_getscheduler(pid);
	errno = 0;
	nice = getpriority(PRIO_PROCESS, pid);
	*gone = pol < 0 || (nice == -1 && errno);
	return !*gone && ((pol & ~SCHED_RESET_ON_FORK) == SCHED_FIFO ||
			  nice < own_nice);
}

static void *boost_watcher(void *arg)
{
	struct boost_watch *w = arg;
	u64 start = 0, now;
	bool gone;

	pin_cpu(w->cpu);
	while (!RD(w->stop)) {
		bool b = task_boosted(w->pid, w->own_nice, &gone);

		if (gone)
			break;
		now = now_ns();
		w->samples++;
		if (b) {
			w->boosted++;
			if (!start)
				start = now;
		} else if (start) {
			if (now - start > w->longest_ns)
				w->longest_ns = now - start;
			start = 0;
		}
		sleep_ns(200000);
	}
	if (start && now_ns() - start > w->longest_ns)
		w->longest_ns = now_ns() - start;
	return NULL;
}

void boost_watch_start(struct boost_watch *w, pid_t pid, int own_nice, int cpu)
{
	pthread_t th;

	memset(w, 0, sizeof(*w));
	w->pid = pid;
	w->own_nice = own_nice;
	w->cpu = cpu;
	if (pthread_create(&th, NULL, boost_watcher, w))
		bail("pthread_create: %s", strerror(errno));
	w->th = (unsigned long)th;
}

void boost_watch_stop(struct boost_watch *w)
{
	WR(w->stop, 1);
	pthread_join((pthread_t)w->th, NULL);
}

/* ---- percentiles --------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

u64 percentile(u64 *v, size_t n, double p)
{
	size_t i;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

/* ---- sysfs --------------------------------------------------------- */

const char *const policy_names[COSCHED_NR_POLICIES] = {
	"local", "sb", "sy", "dcs", "dcs-sb", "dcs-sy",
	"pb", "pbt", "pb-sb", "pb-sy", "pba", "pba-sb", "pba-sy", "dcs-fair",
};

int policy_index(const char *name)
{
	for (int i = 0; i < COSCHED_NR_POLICIES; i++)
		if (!strcmp(policy_names[i], name))
			return i;
	return -1;
}

int sysfs_read(const char *name, char *buf, size_t size)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", COSCHED_SYSFS_DIR, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = 0;
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return 0;
}

u64 sysfs_u64(const char *name)
{
	char buf[64], *end;
	unsigned long long v;
	int r = sysfs_read(name, buf, sizeof(buf));

	if (r)
		bail("read %s: %s", name, strerror(-r));
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf || *end)
		bail("%s: not a number: '%s'", name, buf);
	return v;
}

int sysfs_write(const char *name, const char *val)
{
	char path[256];
	ssize_t n;
	int fd, r = 0;

	snprintf(path, sizeof(path), "%s/%s", COSCHED_SYSFS_DIR, name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		r = -errno;
	else if ((size_t)n != strlen(val))
		r = -EIO;
	if (close(fd) && !r)
		r = -errno;
	return r;
}

void sysfs_set(const char *name, const char *val)
{
	int r = sysfs_write(name, val);

	if (r)
		bail("write '%s' to %s: %s", val, name, strerror(-r));
}

void sysfs_set_u64(const char *name, u64 val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)val);
	sysfs_set(name, buf);
}

int policy_get(char *buf, size_t size)
{
	char all[256], *l, *r;
	int ret = sysfs_read("policy", all, sizeof(all));

	if (ret)
		return ret;
	l = strchr(all, '[');
	r = l ? strchr(l, ']') : NULL;
	if (!l || !r || (size_t)(r - l - 1) >= size)
		return -EINVAL;
	memcpy(buf, l + 1, r - l - 1);
	buf[r - l - 1] = 0;
	return 0;
}

void policy_set(const char *name)
{
	char cur[32];

	sysfs_set("policy", name);
	if (policy_get(cur, sizeof(cur)) || strcmp(cur, name))
		bail("policy is not %s after writing it", name);
}

bool path_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Jobs are per user: jobs/<owner uid>-<job id>. */
bool uid_job_dir_exists(unsigned int uid, u64 job)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/jobs/%u-%llu", COSCHED_SYSFS_DIR,
		 uid, (unsigned long long)job);
	return path_exists(path);
}

u64 uid_job_u64(unsigned int uid, u64 job, const char *name)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "jobs/%u-%llu/%s", uid,
		 (unsigned long long)job, name);
	return sysfs_u64(rel);
}

bool job_dir_exists(u64 job)
{
	return uid_job_dir_exists(geteuid(), job);
}

u64 job_u64(u64 job, const char *name)
{
	return uid_job_u64(geteuid(), job, name);
}

/* ---- endpoints ----------------------------------------------------- */

int dev_open(void)
{
	int fd = open(COSCHED_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		bail("open %s: %s", COSCHED_DEVICE, strerror(errno));
	return fd;
}

int ep_create_fd(int fd, u64 job, u32 rank, u64 *id)
{
	struct cosched_create c = {
		.abi_version = COSCHED_ABI_VERSION,
		.job_id = job,
		.rank = rank,
	};

	if (ioctl(fd, COSCHED_IOC_CREATE, &c))
		return -errno;
	if (id)
		*id = c.endpoint_id;
	return 0;
}

struct cosched_ctrl *ctrl_map(int fd)
{
	void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE),
		       PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

int ep_open(struct ep *ep, u64 job, u32 rank)
{
	int r;

	memset(ep, 0, sizeof(*ep));
	ep->fd = open(COSCHED_DEVICE, O_RDWR | O_CLOEXEC);
	if (ep->fd < 0)
		return -errno;
	r = ep_create_fd(ep->fd, job, rank, &ep->id);
	if (r) {
		close(ep->fd);
		ep->fd = -1;
		return r;
	}
	ep->ctrl = ctrl_map(ep->fd);
	if (!ep->ctrl) {
		r = -errno;
		close(ep->fd);
		ep->fd = -1;
		return r;
	}
	ep->job = job;
	ep->rank = rank;
	return 0;
}

void ep_must_open(struct ep *ep, u64 job, u32 rank)
{
	int r = ep_open(ep, job, rank);

	if (r)
		bail("endpoint (job %llu, rank %u): %s",
		     (unsigned long long)job, rank, strerror(-r));
}

void ep_close(struct ep *ep)
{
	if (ep->ctrl)
		munmap(ep->ctrl, (size_t)sysconf(_SC_PAGESIZE));
	if (ep->fd >= 0)
		close(ep->fd);
	ep->ctrl = NULL;
	ep->fd = -1;
}

int doorbell(int fd, u64 job, u32 rank, u32 count)
{
	struct cosched_doorbell d = {
		.job_id = job, .rank = rank, .count = count,
	};

	return ioctl(fd, COSCHED_IOC_DOORBELL, &d) ? -errno : 0;
}

void ring_every_ms(int fd, u64 job, u32 rank, u64 ms)
{
	u64 end = now_ns() + ms * 1000000ull, next;
	int err;

	for (next = now_ns(); next < end; next += 1000000ull) {
		while (now_ns() < next)
			;
		err = doorbell(fd, job, rank, 1);
		if (err)
			bail("doorbell: %s", strerror(-err));
	}
}

int ep_wait(int fd, u64 seen, u64 timeout_ns)
{
	struct cosched_wait w = { .seen = seen, .timeout_ns = timeout_ns };

	return ioctl(fd, COSCHED_IOC_WAIT, &w) ? -errno : 0;
}

int ep_yield(int fd, u64 seen, struct cosched_yield *out)
{
	struct cosched_yield y = { .seen = seen };
	int r = ioctl(fd, COSCHED_IOC_YIELD, &y) ? -errno : 0;

	if (out)
		*out = y;
	return r;
}

int ep_stats(int fd, struct cosched_stats *st)
{
	memset(st, 0, sizeof(*st));
	return ioctl(fd, COSCHED_IOC_STATS, st) ? -errno : 0;
}

int ep_destroy(int fd)
{
	return ioctl(fd, COSCHED_IOC_DESTROY) ? -errno : 0;
}

int cs_info(int fd, struct cosched_info *info)
{
	memset(info, 0, sizeof(*info));
	return ioctl(fd, COSCHED_IOC_INFO, info) ? -errno : 0;
}

int ioctl_sized(int fd, unsigned long cmd, size_t size, void *arg)
{
	cmd = _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), size);
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

int ioctl_sized_rw(int fd, unsigned long cmd, size_t size, void *arg)
{
	cmd = _IOC(_IOC_READ | _IOC_WRITE, _IOC_TYPE(cmd), _IOC_NR(cmd), size);
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

/* ---- module ---------------------------------------------------------- */

const char *module_path(char *buf, size_t size)
{
	const char *env = getenv("COSCHED_KO");
	struct utsname u;

	if (env && *env) {
		snprintf(buf, size, "%s", env);
		return buf;
	}
	uname(&u);
	snprintf(buf, size, "build/%s/cosched.ko", u.release);
	return buf;
}

int module_load(const char *params)
{
	char path[512];
	int fd, r = 0;

	fd = open(module_path(path, sizeof(path)), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, params ? params : "", 0))
		r = -errno;
	close(fd);
	return r;
}

/*
 * Each per-task record pins the module until an RCU grace period after
 * its last endpoint went, so an unload right after the last close may
 * be refused for a moment: retry busy for up to two seconds.
 */
int module_unload(void)
{
	int r;

	for (int i = 0; i < 200; i++) {
		r = syscall(SYS_delete_module, "cosched", O_NONBLOCK) ? -errno : 0;
		if (r != -EAGAIN && r != -EBUSY)
			break;
		sleep_ns(10000000);
	}
	return r;
}

bool module_loaded(void)
{
	return path_exists("/sys/module/cosched");
}

void module_reload(const char *params)
{
	int r;

	if (module_loaded()) {
		r = module_unload();
		if (r)
			bail("rmmod cosched: %s", strerror(-r));
	}
	r = module_load(params);
	if (r)
		bail("insmod cosched.ko %s: %s", params ? params : "",
		     strerror(-r));
	/* devtmpfs creates the node asynchronously on some setups. */
	for (int i = 0; i < 200 && !path_exists(COSCHED_DEVICE); i++)
		sleep_ns(10000000);
}
