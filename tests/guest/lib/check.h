/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the cosched guest tests: TAP output with file:line,
 * assertion macros, sysfs access, endpoints, CPU pinning, CPU hogs,
 * percentiles and clocks.
 */
#ifndef COSCHED_TEST_CHECK_H
#define COSCHED_TEST_CHECK_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <linux/cosched.h>

typedef uint64_t u64;
typedef uint32_t u32;

/* ---- TAP ---------------------------------------------------------- */

/* Report one check; returns cond so callers can bail out on failure. */
bool t_report(bool cond, const char *file, int line, const char *name,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* "ok N - name # SKIP why": a check that this run cannot decide. */
void t_skip(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "# ..." diagnostic line. */
void t_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print the plan and return the exit status (0 if every check passed). */
int t_done(void);
/* Failures so far (also counts checks reported from forked children). */
int t_failures(void);
/* Abort the program: one failed check with this reason, then exit. */
void t_bail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

#define ok(cond, name) \
	t_report(!!(cond), __FILE__, __LINE__, (name), "condition false: %s", #cond)

#define okf(cond, name, ...) \
	t_report(!!(cond), __FILE__, __LINE__, (name), __VA_ARGS__)

#define bail(...) t_bail(__FILE__, __LINE__, __VA_ARGS__)

/* a == b as unsigned 64-bit. */
#define expect_eq(a, b, name) ({					\
	u64 __a = (u64)(a), __b = (u64)(b);				\
	t_report(__a == __b, __FILE__, __LINE__, (name),		\
		 "%s = %llu (0x%llx), expected %s = %llu",		\
		 #a, (unsigned long long)__a, (unsigned long long)__a,	\
		 #b, (unsigned long long)__b);				\
})

#define expect_ge(a, b, name) ({					\
	long long __a = (long long)(a), __b = (long long)(b);		\
	t_report(__a >= __b, __FILE__, __LINE__, (name),		\
		 "%s = %lld, expected >= %s = %lld", #a, __a, #b, __b);	\
})

#define expect_le(a, b, name) ({					\
	long long __a = (long long)(a), __b = (long long)(b);		\
	t_report(__a <= __b, __FILE__, __LINE__, (name),		\
		 "%s = %lld, expected <= %s = %lld", #a, __a, #b, __b);	\
})

/* call must return 0 (or any value >= 0). */
#define expect_ok(call, name) ({					\
	errno = 0;							\
	long __r = (long)(call);					\
	int __e = errno;						\
	t_report(__r >= 0, __FILE__, __LINE__, (name),			\
		 "%s returned %ld, errno %d (%s)", #call, __r, __e,	\
		 strerror(__e));					\
})

/* call must return -1 with errno == err exactly. */
#define expect_errno(call, err, name) ({				\
	errno = 0;							\
	long __r = (long)(call);					\
	int __e = errno;						\
	t_report(__r == -1 && __e == (err), __FILE__, __LINE__, (name),	\
		 "%s returned %ld errno %d (%s), expected -1 errno %s",	\
		 #call, __r, __r == -1 ? __e : 0,			\
		 __r == -1 ? strerror(__e) : "none", errno_name(err));	\
})

/* A helper returning 0 or -errno must return -err exactly. */
#define expect_neg(call, err, name) ({					\
	long __r = (long)(call);					\
	t_report(__r == -(long)(err), __FILE__, __LINE__, (name),	\
		 "%s returned %ld (%s), expected -%s", #call, __r,	\
		 __r < 0 ? strerror((int)-__r) : "success",		\
		 errno_name(err));					\
})

const char *errno_name(int err);

/* ---- time, CPUs, processes ----------------------------------------- */

u64 now_ns(void);
void sleep_ns(u64 ns);
/* Spin (no syscalls) for about ns. */
void spin_ns(u64 ns);
/* Pin the calling thread to one CPU; bails out on failure. */
void pin_cpu(int cpu);
/*
 * Percent of @ms of wall-clock time that a thread spinning on @cpu did not
 * get, counting gaps of more than @gap_us between two clock reads: under
 * TCG, what the host takes from the vCPU.  Runs the caller on @cpu
 * meanwhile, and then where it was allowed to run before.
 */
double host_steal_pct(int cpu, u64 ms, u64 gap_us, u64 *max_gap_ns);
/* Timing comparisons are not made when the host takes more than this. */
#define STEAL_MAX_PCT	5.0
int nr_cpus(void);
pid_t gettid_(void);
/* Fork a child pinned to cpu that spins until killed. */
pid_t hog_start(int cpu);
void hog_stop(pid_t pid);
/*
 * A task's (pid or tid; 0: the calling thread) time run and time waited
 * on a runqueue in ns, from /proc/<pid>/schedstat; false when it cannot
 * be read (the task is gone; errno says why).  Either out may be NULL.
 */
bool task_schedstat(pid_t pid, u64 *ran, u64 *waited);
/* CPU time of a task in ns (task_schedstat()'s ran); 0 when it is gone. */
u64 task_cpu_ns(pid_t pid);
/* Thread-safe xorshift random number in [0, n). */
u32 rnd(u32 n);
/* Shared anonymous memory that survives fork(); zeroed. */
void *shared_alloc(size_t size);
/* Wait for a child; returns its exit status, or 128+signal. */
int wait_child(pid_t pid);

/*
 * The group run.sh gives /dev/cosched (COSCHED_TEST_GID, what the udev
 * rule's "cosched" group is on a real system).
 */
#define COSCHED_TEST_GID	4242
/*
 * Drop the calling process to uid (real, effective and saved; gid the
 * same), in the supplementary group COSCHED_TEST_GID if with_group and
 * in none otherwise.  Bails out on failure.
 */
void become_user(uid_t uid, bool with_group);

/*
 * Watch a task from a thread pinned to cpu: the longest stretch during
 * which it ran boosted (SCHED_FIFO, or a nice below own_nice), sampled
 * every 200 us.  A boost must never outlive boost_us.
 */
struct boost_watch {
	pid_t pid;
	int own_nice, cpu, stop;
	u64 longest_ns, samples, boosted;
	unsigned long th;
};
void boost_watch_start(struct boost_watch *w, pid_t pid, int own_nice, int cpu);
void boost_watch_stop(struct boost_watch *w);

/* ---- percentiles --------------------------------------------------- */

/* p in [0, 100]; sorts v in place. */
u64 percentile(u64 *v, size_t n, double p);

/* ---- sysfs --------------------------------------------------------- */

/* Read /sys/kernel/cosched/<name> into buf (trailing newline removed).
 * Returns 0 or -errno. */
int sysfs_read(const char *name, char *buf, size_t size);
/* Returns the value, bails out if the file cannot be read. */
u64 sysfs_u64(const char *name);
/* Write val exactly as given (one write()); returns 0 or -errno. */
int sysfs_write(const char *name, const char *val);
/* Writes or bails out. */
void sysfs_set(const char *name, const char *val);
void sysfs_set_u64(const char *name, u64 val);
/* Active policy name from the policy file (the bracketed one). */
int policy_get(char *buf, size_t size);
void policy_set(const char *name);
/* Index of a policy name in the ABI enum, -1 if unknown. */
int policy_index(const char *name);
extern const char *const policy_names[COSCHED_NR_POLICIES];
bool path_exists(const char *path);
/* Does /sys/kernel/cosched/jobs/<job> exist? */
bool job_dir_exists(u64 job);
bool uid_job_dir_exists(unsigned int uid, u64 job);
u64 uid_job_u64(unsigned int uid, u64 job, const char *name);
/* Poll cond every millisecond for at most ms; true if it became true. */
#define poll_until(cond, ms) ({						\
	bool __ok = false;						\
	for (long __i = 0; __i <= (long)(ms); __i++) {			\
		if (cond) {						\
			__ok = true;					\
			break;						\
		}							\
		sleep_ns(1000000);					\
	}								\
	__ok;								\
})
/* /sys/kernel/cosched/jobs/<job>/<name>; bails out if unreadable. */
u64 job_u64(u64 job, const char *name);

/* ---- endpoints ----------------------------------------------------- */

struct ep {
	int fd;
	struct cosched_ctrl *ctrl;
	u64 id;
	u64 job;
	u32 rank;
};

/* open(); returns fd or bails out. */
int dev_open(void);
/* CREATE on an existing fd; returns 0 or -errno, fills id. */
int ep_create_fd(int fd, u64 job, u32 rank, u64 *id);
/* Map the control page of fd; NULL on failure (errno set). */
struct cosched_ctrl *ctrl_map(int fd);
/* open + CREATE + mmap; returns 0 or -errno (nothing left open on error). */
int ep_open(struct ep *ep, u64 job, u32 rank);
/* Same but bails out on failure. */
void ep_must_open(struct ep *ep, u64 job, u32 rank);
void ep_close(struct ep *ep);
/* The ioctls; each returns 0 or -errno. */
int doorbell(int fd, u64 job, u32 rank, u32 count);
/* One message to (job, rank) every ms, spun, for @ms; bails on an error. */
void ring_every_ms(int fd, u64 job, u32 rank, u64 ms);
int ep_wait(int fd, u64 seen, u64 timeout_ns);
int ep_yield(int fd, u64 seen, struct cosched_yield *out);
int ep_stats(int fd, struct cosched_stats *st);
int ep_destroy(int fd);
int cs_info(int fd, struct cosched_info *info);
/* cmd with its size field replaced by size (direction kept). */
int ioctl_sized(int fd, unsigned long cmd, size_t size, void *arg);
/* cmd rebuilt as _IOC(_IOC_READ | _IOC_WRITE, magic, nr, size). */
int ioctl_sized_rw(int fd, unsigned long cmd, size_t size, void *arg);

/* Accessors of memory another task or the kernel writes concurrently. */
#define RD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define WR(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
#define cpu_relax() __asm__ __volatile__("pause" ::: "memory")

/* ---- module ---------------------------------------------------------- */

/* Path of cosched.ko: $COSCHED_KO or build/$(uname -r)/cosched.ko. */
const char *module_path(char *buf, size_t size);
/* finit_module(); returns 0 or -errno. */
int module_load(const char *params);
/* delete_module(O_NONBLOCK); returns 0 or -errno. */
int module_unload(void);
bool module_loaded(void);
/* Unload if loaded, then load with params; bails out on failure. */
void module_reload(const char *params);

#endif
