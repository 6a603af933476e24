// SPDX-License-Identifier: GPL-2.0
/* Stall watch of the cosched guest tests; see stall.h. */
#define _GNU_SOURCE
#include "stall.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void wake(int sig)
{
	(void)sig;
}

static void __attribute__((noreturn)) watch_cpu(struct stall_watch *w, int cpu)
{
	struct sched_param sp = { .sched_priority = 99 };
	struct stall_cpu *c = &w->cpu[cpu];
	uint64_t next, t, late;
	struct sigaction sa = { .sa_handler = wake };
	struct timespec ts;
	cpu_set_t set;

	/* A test that bails out must not leave FIFO 99 processes behind. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Nor may a watcher hold the test's endpoints and sockets open. */
	close_range(3, ~0U, 0);
	sigaction(SIGUSR1, &sa, NULL);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    sched_setscheduler(0, SCHED_FIFO, &sp))
		_exit(1);
	next = mono_ns() + w->period_ns;
	while (!LD(w->stop)) {
		ts.tv_sec = next / 1000000000ull;
		ts.tv_nsec = next % 1000000000ull;
		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			continue;	/* stall_watch_stop(), or a stray signal */
		t = mono_ns();
		late = t > next ? t - next : 0;
		/*
		 * After a long stall the next deadlines are already past and
		 * come at once, each counted late: one per period stood still.
		 */
		ST(c->deadlines, c->deadlines + 1);
		if (late > STALL_LATE_US * 1000ull)
			ST(c->late, c->late + 1);
		if (late > c->max_late_ns)
			ST(c->max_late_ns, late);
		next += w->period_ns;
	}
	_exit(0);
}

struct stall_watch *stall_watch_start(void)
{
	struct stall_watch *w;
	int n = (int)sysconf(_SC_NPROCESSORS_ONLN);

	w = mmap(NULL, sizeof(*w), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (w == MAP_FAILED) {
		perror("stall_watch: mmap");
		exit(2);
	}
	memset(w, 0, sizeof(*w));
	w->period_ns = STALL_PERIOD_US * 1000ull;
	if (getenv("COSCHED_STALL_PERIOD_US"))
		w->period_ns = strtoull(getenv("COSCHED_STALL_PERIOD_US"), NULL, 10) * 1000;
	if (w->period_ns < 1000000)
		w->period_ns = 1000000;
	w->ncpu = n < STALL_MAX_CPUS ? n : STALL_MAX_CPUS;
	w->judge = -1;
	fflush(NULL);
	for (int i = 0; i < w->ncpu; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("stall_watch: fork");
			exit(2);
		}
		if (pid == 0)
			watch_cpu(w, i);
		w->cpu[i].pid = pid;
	}
	w->start_ns = mono_ns();
	return w;
}

void stall_watch_stop(struct stall_watch *w)
{
	int st;

	w->end_ns = mono_ns();
	ST(w->stop, 1);
	for (int i = 0; i < w->ncpu; i++)
		kill(w->cpu[i].pid, SIGUSR1);
	for (int i = 0; i < w->ncpu; i++) {
		while (waitpid(w->cpu[i].pid, &st, 0) < 0 && errno == EINTR)
			;
		/*
		 * Not pinned or not FIFO (no root): it measured nothing.  Killed
		 * by the wake-up signal: stopped before it could catch it.
		 */
		if ((!WIFEXITED(st) || WEXITSTATUS(st)) &&
		    !(WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR1))
			w->cpu[i].deadlines = 0;
	}
}

void stall_watch_free(struct stall_watch *w)
{
	munmap(w, sizeof(*w));
}

void stall_watch_judge(struct stall_watch *w, int cpu)
{
	w->judge = cpu >= 0 && cpu < w->ncpu ? cpu : -1;
}

double stall_pct(const struct stall_watch *w, int *cpu)
{
	double worst = 0;
	int at = 0;

	if (w->judge >= 0) {
		const struct stall_cpu *c = &w->cpu[w->judge];

		if (cpu)
			*cpu = w->judge;
		return c->deadlines ? 100.0 * c->late / c->deadlines : 0;
	}
	for (int i = 0; i < w->ncpu; i++) {
		const struct stall_cpu *c = &w->cpu[i];
		double p = c->deadlines ? 100.0 * c->late / c->deadlines : 0;

		if (p > worst) {
			worst = p;
			at = i;
		}
	}
	if (cpu)
		*cpu = at;
	return worst;
}

double stall_secs(const struct stall_watch *w)
{
	uint64_t end = w->end_ns ? w->end_ns : mono_ns();

	return (end - w->start_ns) / 1e9;
}

double stall_ms(const struct stall_watch *w)
{
	return stall_pct(w, NULL) / 100 * stall_secs(w) * 1e3;
}

uint64_t stall_longest_ns(const struct stall_watch *w)
{
	uint64_t max = 0;

	for (int i = 0; i < w->ncpu; i++)
		if (w->cpu[i].max_late_ns > max)
			max = w->cpu[i].max_late_ns;
	return max;
}

double stall_max_pct(void)
{
	const char *env = getenv("COSCHED_STALL_MAX_PCT");

	return env && *env ? atof(env) : STALL_MAX_PCT;
}

bool stall_too_busy(const struct stall_watch *w, double max_pct)
{
	return stall_pct(w, NULL) > max_pct;
}

void stall_describe(const struct stall_watch *w, char *buf, size_t size)
{
	int cpu;
	double pct = stall_pct(w, &cpu);

	snprintf(buf, size, "stall %.0f ms in %.1f s, %.1f%% of CPU %d, longest %.1f ms",
		 stall_ms(w), stall_secs(w), pct, cpu,
		 w->cpu[cpu].max_late_ns / 1e6);
}
