// SPDX-License-Identifier: GPL-2.0
/*
 * cosched-fuzz: the driver.  Forks --procs worker processes (every other
 * one as uid 65534 in the device's group), each runs --threads threads
 * of seeded random operations (ops*.c) until --ops in all or --seconds
 * have passed.  The parent watches: kernel log lines that mean a warning,
 * workers that die, and threads that stop making progress; on any of
 * them it prints every thread's recent operations and fails.
 *
 * Exit status: 0 clean; 3 kernel warning; 4 no progress (hang); 5 a
 * worker died or failed; 2 usage.
 */
#define _GNU_SOURCE
#include "fuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shared *sh;
size_t page_size;
size_t ring_size;
const char *self_exe = "/proc/self/exe";

static struct {
	u64 seed, ops, seconds, watchdog;
	int threads, procs, verbose;
	unsigned int gid;
	int replay_proc, replay_thread;
	/* exec-child mode */
	int exec_child, proc;
	unsigned int uid;
	const char *fds;
} opt = {
	.ops = 100000, .threads = 2, .procs = 4, .watchdog = 30,
	.gid = 4242, .replay_proc = -1,
};

/* The kernel log patterns of tests/guest/run.sh's BAD_DMESG. */
static const char *const bad[] = {
	"BUG:", "Oops", "WARNING:", "Call Trace", "general protection",
	"KASAN", "kmemleak", "refcount_t", "list_del corruption", "UBSAN",
	"still has objects", "blocked for more than",
};

static void usage(void)
{
	fprintf(stderr,
		"usage: cosched-fuzz [--seed S] [--ops N] [--threads T] [--procs P]\n"
		"                    [--seconds S] [--watchdog S] [--gid G]\n"
		"                    [--replay P.T] [--verbose]\n");
	exit(2);
}

static void parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", 1, NULL, 's' }, { "ops", 1, NULL, 'n' },
		{ "threads", 1, NULL, 't' }, { "procs", 1, NULL, 'p' },
		{ "seconds", 1, NULL, 'S' }, { "watchdog", 1, NULL, 'w' },
		{ "gid", 1, NULL, 'g' }, { "replay", 1, NULL, 'r' },
		{ "verbose", 0, NULL, 'v' }, { "exec-child", 0, NULL, 'X' },
		{ "shm", 1, NULL, 'M' }, { "proc", 1, NULL, 'P' },
		{ "uid", 1, NULL, 'U' }, { "fds", 1, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	bool seeded = false;
	int o;

	while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (o) {
		case 's': opt.seed = strtoull(optarg, NULL, 0); seeded = true; break;
		case 'n': opt.ops = strtoull(optarg, NULL, 0); break;
		case 't': opt.threads = atoi(optarg); break;
		case 'p': opt.procs = atoi(optarg); break;
		case 'S': opt.seconds = strtoull(optarg, NULL, 0); break;
		case 'w': opt.watchdog = strtoull(optarg, NULL, 0); break;
		case 'g': opt.gid = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'r':
			if (sscanf(optarg, "%d.%d", &opt.replay_proc,
				   &opt.replay_thread) != 2)
				usage();
			break;
		case 'v': opt.verbose = 1; break;
		case 'X': opt.exec_child = 1; break;
		case 'M': shm_fd = atoi(optarg); break;
		case 'P': opt.proc = atoi(optarg); break;
		case 'U': opt.uid = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'F': opt.fds = optarg; break;
		default: usage();
		}
	}
	if (optind != argc || opt.threads < 1 || opt.threads > MAX_THREADS ||
	    opt.procs < 1 || opt.procs > MAX_PROCS)
		usage();
	if (!seeded)
		opt.seed = (u64)time(NULL) ^ ((u64)getpid() << 20);
}

static void shared_map(bool create)
{
	if (create) {
		shm_fd = memfd_create("cosched-fuzz", 0);	/* kept over exec */
		if (shm_fd < 0 || ftruncate(shm_fd, sizeof(*sh))) {
			perror("memfd");
			exit(2);
		}
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED,
		  shm_fd, 0);
	if (sh == MAP_FAILED) {
		perror("mmap shared");
		exit(2);
	}
}

static void probe_ring_size(void)
{
	struct cosched_info info;
	int fd = open(COSCHED_DEVICE, O_RDONLY | O_CLOEXEC);

	ring_size = page_size + 256 * 1024;
	if (fd >= 0 && !ioctl(fd, COSCHED_IOC_INFO, &info) && info.ring_size)
		ring_size = info.ring_size;
	if (fd >= 0)
		close(fd);
}

/* The short mode an exec()ed child runs: inherited descriptors, no fork. */
static int exec_child_main(void)
{
	static struct proc_state ps;
	struct ctx c;
	const char *p = opt.fds;
	int i = 0;

	shared_map(false);
	proc_state_init(&ps, opt.proc, opt.uid);
	while (p && *p && i < NSLOTS) {
		ps.fd[i++] = atoi(p);
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	signals_init();
	gen_init();
	ctx_init(&c, &ps, opt.proc, LOG_CHILD, 2, opt.seed);
	op_run(&c, opt.ops);
	_exit(0);
}

struct worker_thread {
	pthread_t th;
	struct ctx c;
	u64 n;
};

static void *worker_thread(void *arg)
{
	struct worker_thread *w = arg;

	w->c.log->tid = gettid();
	op_run(&w->c, w->n);
	return NULL;
}

static void worker_main(int proc, u32 uid, int only_thread)
{
	static struct proc_state ps;
	struct worker_thread *w = calloc(MAX_THREADS, sizeof(*w));
	u64 per = opt.ops / ((u64)opt.procs * (u64)opt.threads);

	uid_become(uid, opt.gid);
	/* Backup for the parent's watchdog: never outlive the run by much. */
	alarm((unsigned int)(opt.seconds ? opt.seconds + 3 * opt.watchdog : 0));
	signals_init();
	gen_init();
	proc_state_init(&ps, proc, uid);
	for (int t = 0; t < opt.threads; t++) {
		if (only_thread >= 0 && t != only_thread)
			continue;
		ctx_init(&w[t].c, &ps, proc, t, 0, seed_mix(opt.seed, proc, t));
		w[t].c.verbose = opt.verbose;
		w[t].n = per ? per : 1;
		if (pthread_create(&w[t].th, NULL, worker_thread, &w[t]))
			exit(5);
	}
	for (int t = 0; t < opt.threads; t++) {
		if (only_thread >= 0 && t != only_thread)
			continue;
		pthread_join(w[t].th, NULL);
		ctx_release(&w[t].c);
	}
	exit(0);
}

/* A task's state letter and scheduling policy and priority, from stat. */
static void task_state(pid_t pid, pid_t tid, char *out, size_t size)
{
	char path[128], buf[1024], state = '?', *p;
	int fd, i;
	ssize_t n;
	long prio = 0, policy = 0;

	snprintf(out, size, "state ?");
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	/* After the command's closing parenthesis: field 3, the state. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%c", &state) != 1)
		return;
	/* Fields 18 (priority) and 41 (policy), counted from field 3. */
	for (i = 3, p += 2; p && i < 41; i++) {
		if (i == 18)
			prio = strtol(p, NULL, 10);
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (p)
		policy = strtol(p, NULL, 10);
	snprintf(out, size, "state %c, prio %ld, policy %ld", state, prio,
		 policy);
}

/*
 * Kernel stacks of every task of the workers: where a hang sleeps.  A
 * running or runnable task shows no stack: its state says which.
 */
static void dump_stacks(void)
{
	char path[128], buf[4096], state[64];

	for (int p = 0; p < sh->nprocs; p++) {
		for (int s = 0; s < LOG_SLOTS; s++) {
			pid_t tid = sh->log[p][s].tid;
			int fd;
			ssize_t n;

			if (!tid || !__atomic_load_n(&sh->log[p][s].op_start_ns,
						     __ATOMIC_ACQUIRE))
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%d/stack",
				 sh->worker[p], tid);
			fd = open(path, O_RDONLY);
			if (fd < 0) {
				snprintf(path, sizeof(path), "/proc/%d/stack", tid);
				fd = open(path, O_RDONLY);
			}
			n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
			if (fd >= 0)
				close(fd);
			buf[n > 0 ? n : 0] = 0;
			task_state(sh->worker[p], tid, state, sizeof(state));
			fprintf(stderr, "# kernel stack of proc %d slot %d (tid %d, %s):\n%s",
				p, s, tid, state, buf);
		}
	}
}

/* New kernel log records; true (and prints them) on a bad one. */
static bool kmsg_check(int fd)
{
	char rec[2048];
	bool hit = false;
	ssize_t n;

	if (fd < 0)
		return false;
	while ((n = read(fd, rec, sizeof(rec) - 1)) != 0) {
		if (n < 0) {
			if (errno == EPIPE)
				continue;	/* overwritten: go on */
			break;
		}
		rec[n] = 0;
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			if (strstr(rec, bad[i]))
				hit = true;
		if (hit)
			fprintf(stderr, "# kernel: %s", strchr(rec, ';') ? strchr(rec, ';') + 1 : rec);
	}
	return hit;
}

static void stop_all(void)
{
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
}

static void kill_workers(void)
{
	for (int p = 0; p < sh->nprocs; p++)
		if (sh->worker[p] > 0)
			kill(sh->worker[p], SIGKILL);
}

int main(int argc, char **argv)
{
	u64 start, last_ops = 0, last_change, last_report, elapsed;
	int kfd, live, status = 0;
	bool kernel_bad = false;

	parse(argc, argv);
	page_size = (size_t)sysconf(_SC_PAGESIZE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	probe_ring_size();
	if (opt.exec_child)
		return exec_child_main();

	shared_map(true);
	sh->seed = opt.seed;
	sh->nprocs = opt.replay_proc >= 0 ? opt.replay_proc + 1 : opt.procs;
	printf("# cosched-fuzz: seed %llu ops %llu threads %d procs %d seconds %llu%s\n",
	       (unsigned long long)opt.seed, (unsigned long long)opt.ops,
	       opt.threads, opt.procs, (unsigned long long)opt.seconds,
	       opt.replay_proc >= 0 ? " (replay of one thread)" : "");
	if (!getuid()) {
		int r = uid_prepare_device(opt.gid);

		if (r)
			printf("# chgrp %u %s: %s\n", opt.gid, COSCHED_DEVICE, strerror(-r));
	}
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kfd >= 0)
		lseek(kfd, 0, SEEK_END);
	start = now_ns();
	if (opt.seconds)
		sh->deadline_ns = start + opt.seconds * 1000000000ull;

	for (int p = 0; p < sh->nprocs; p++) {
		u32 uid = (p & 1) ? NOBODY : 0;
		pid_t pid;

		if (opt.replay_proc >= 0 && p != opt.replay_proc)
			continue;
		pid = fork();
		if (pid < 0) {
			perror("fork");
			stop_all();
			break;
		}
		if (!pid)
			worker_main(p, uid, opt.replay_proc >= 0 ? opt.replay_thread : -1);
		sh->worker[p] = pid;
	}

	last_change = last_report = start;
	for (;;) {
		u64 now, ops;
		pid_t pid;
		int st;

		usleep(100000);
		now = now_ns();
		if (kmsg_check(kfd)) {
			usleep(500000);		/* the rest of the report */
			kmsg_check(kfd);
			kernel_bad = true;
			stop_all();
			log_dump_all("kernel warning");
			status = 3;
			break;
		}
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
			for (int p = 0; p < sh->nprocs; p++) {
				if (sh->worker[p] != pid)
					continue;
				sh->worker[p] = -pid;
				if (!WIFEXITED(st) || WEXITSTATUS(st)) {
					fprintf(stderr, "# worker %d (pid %d) %s %d\n", p, pid,
						WIFSIGNALED(st) ? "killed by signal" : "exited",
						WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
					if (!status) {
						log_dump_all("worker died");
						status = 5;
					}
				}
			}
		}
		live = 0;
		for (int p = 0; p < sh->nprocs; p++)
			live += sh->worker[p] > 0;
		if (!live)
			break;
		ops = __atomic_load_n(&sh->total_ops, __ATOMIC_RELAXED);
		if (ops != last_ops) {
			last_ops = ops;
			last_change = now;
		}
		/* A thread in one op for too long, or nobody moving at all. */
		for (int p = 0; p < sh->nprocs && !status; p++)
			for (int s = 0; s < LOG_SLOTS; s++) {
				u64 t0 = __atomic_load_n(&sh->log[p][s].op_start_ns,
							 __ATOMIC_ACQUIRE);

				if (t0 && now > t0 && now - t0 > opt.watchdog * 1000000000ull &&
				    sh->worker[p] > 0 && s < LOG_CHILD)
					status = 4;
			}
		if (!status && now - last_change > opt.watchdog * 1000000000ull)
			status = 4;
		if (status == 4) {
			fprintf(stderr, "# watchdog: no progress for %llu s\n",
				(unsigned long long)opt.watchdog);
			dump_stacks();
			sysfs_dump_tunables(stderr);
			log_dump_all("no progress");
			stop_all();
			break;
		}
		if (now - last_report > 10000000000ull) {
			last_report = now;
			printf("# %llu ops, %.0f ops/s\n", (unsigned long long)ops,
			       (double)ops * 1e9 / (double)(now - start));
		}
	}
	kill_workers();
	while (wait(NULL) > 0 || errno == EINTR)
		;
	if (kmsg_check(kfd) && !kernel_bad) {
		log_dump_all("kernel warning at the end");
		status = 3;
	}
	elapsed = now_ns() - start;
	log_summary(stdout);
	printf("# %llu ops in %.1f s: %.0f ops/s, seed %llu\n",
	       (unsigned long long)sh->total_ops, (double)elapsed / 1e9,
	       (double)sh->total_ops * 1e9 / (double)elapsed,
	       (unsigned long long)opt.seed);
	printf("# result: %s\n", status == 0 ? "clean" : status == 3 ? "kernel warning" :
	       status == 4 ? "hang (no progress)" : "a worker died");
	return status;
}
