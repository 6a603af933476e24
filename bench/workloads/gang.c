// SPDX-License-Identifier: GPL-2.0
/*
 * gang: the gang-scheduling baseline, time slicing whole jobs with
 * SIGSTOP/SIGCONT the way Slurm's gang scheduler does.  Each job (an
 * mpiexec and everything it starts) gets its own process group; in turn
 * each job runs for one slice while every other job is stopped, so all
 * the ranks of a job run together and no rank waits for a descheduled
 * peer.  Runs until every job has exited; one line per job as it ends
 * and a summary; each job it starts is named first (not with -q):
 *
 *   gang started job=I pid=P
 *   job=I pid=P status=S end_s=E ran_s=R
 *   gang jobs=N slice_ms=S makespan_s=M switches=W idle=I failed=F
 *
 * end_s counts from gang's start; ran_s is the time the job held the
 * machine (its slices: under -R, also when its ranks had not appeared
 * yet; its launcher runs outside them).  A job's processes are its
 * process group plus any descendant that left it (launchers may give
 * ranks groups of their own), found in /proc at each switch.
 *
 * Jobs already running (mpiexec trees started by someone else) can be
 * handed over with -p: each pid is a job, its process group if it leads
 * one, and its descendants.  gang cannot wait for them, so it notices
 * their end within 10 ms and reports status=-1 (unknown).  Jobs given
 * by -p come first, then the commands.
 *
 * Across hosts (-H): a job's ranks on the other hosts are not in its
 * tree; an agent on each host (gang --agent MARK V,... UID, started
 * through the remote shell -r) stops and continues them by a variable of
 * their environment, -k MARK=V1,V2,... giving each job's value in the
 * order of the jobs (gang_remote.c), and only processes of gang's user.
 * A switch waits for every agent's answer, up to -t (20 s by default);
 * an agent late or gone fails gang, which terminates the jobs.  An agent
 * still there 10 s after gang closed its channel is terminated.
 * With -R only the ranks are stopped, through the agents (this host's
 * too), never the jobs' trees: mpiexec, its remote shells and MPI's
 * daemons run on, as Slurm's step daemons do (Open MPI did not start
 * jobs across the guest cluster's hosts while their mpiexec was stopped
 * for slices).  A job whose ranks no agent found fails gang.  Under -R
 * a job with no rank on any host at its switch (not started yet, or
 * ended while its launcher lingers) holds its slice for 10 ms only, if
 * another live job had ranks at its last switch: idle= counts those.
 *
 * usage: gang [-s slice] [-q] [-p pid[,pid...]] [-H host,... -k MARK=V,...
 *             [-r remote] [-t timeout] [-R]] [-- cmd1 [args] -- cmd2 ...]
 *        gang --agent MARK V,... UID
 */
#define _GNU_SOURCE
#include "dur.h"
#include "gang_remote.h"
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_JOBS	64
/* -R: how long a job with no rank on any host holds its slice. */
#define IDLE_SLICE_NS	10000000ull
#define MAX_PROCS	32768

struct job {
	char **argv;		/* NULL: attached with -p */
	const char *mark;	/* its MARK value on other hosts (-k) */
	int marked_seen;	/* an agent found a process with it */
	int ranks;		/* -R: processes found at its last switch */
	pid_t pid;		/* the leader, also the group id */
	int done, status;
	uint64_t end, ran;
};

static struct job jobs[MAX_JOBS];
static int njobs;
static sigset_t oldmask;
static int agent_timeout_ms = GANG_AGENT_TIMEOUT_MS;

static void usage(void)
{
	fprintf(stderr,
		"usage: gang [-s slice] [-q] [-p pid[,pid...]]\n"
		"            [-H host,... -k MARK=V,... [-r remote] [-t timeout] [-R]]\n"
		"            [-- cmd1 [args] -- cmd2 [args] ...]\n"
		"       gang --agent MARK V,... UID\n"
		"  -s  time slice per job (default 100ms; 2s, 500us, a bare number is ms)\n"
		"  -q  no per-job lines, only the summary\n"
		"  -p  time-slice these running jobs too (their trees; exit status unknown)\n"
		"  -H  hosts with ranks of the jobs outside their trees here: an agent\n"
		"      on each (\"REMOTE HOST gang --agent MARK V,... UID\") stops and\n"
		"      continues them (gang's user's only); it needs root or that\n"
		"      user there\n"
		"  -k  on those hosts a job's processes have MARK=V in their environment,\n"
		"      one V per job in the jobs' order (-p jobs first), all different\n"
		"  -r  the remote shell for -H, split on spaces (default ssh)\n"
		"  -t  with -H: an agent that takes longer to answer a switch has\n"
		"      failed (default 20s, a bare number is ms; 1ms to 60min)\n"
		"  -R  with -H: stop and continue the jobs' ranks only, through the agents\n"
		"      (list this host in -H too); launchers and MPI daemons run on\n"
		"  --agent  be the agent: lines \"run V\" on stdin, see gang_remote.c\n"
		"a job's own arguments cannot contain \"--\": it separates the jobs\n");
	exit(2);
}

/*
 * Send @sig to the job: its process group, then every descendant of its
 * leader that lives in another group.
 */
static void signal_job(struct job *j, int sig)
{
	static pid_t pid[MAX_PROCS], ppid[MAX_PROCS], pgid[MAX_PROCS];
	struct dirent *d;
	int n = 0, i, k, depth;
	DIR *dir;

	if (kill(-j->pid, sig) && errno != ESRCH)
		fprintf(stderr, "gang: signal %d to job %d: %s\n", sig,
			(int)(j - jobs), strerror(errno));
	/* An attached pid need not lead a group. */
	if (!j->argv)
		kill(j->pid, sig);
	dir = opendir("/proc");
	if (!dir)
		return;
	while ((d = readdir(dir)) && n < MAX_PROCS) {
		struct proc_stat st;
		char *end;
		long v = strtol(d->d_name, &end, 10);

		if (*end || v <= 0 || proc_stat_read((pid_t)v, &st))
			continue;
		pid[n] = (pid_t)v;
		ppid[n] = st.ppid;
		pgid[n++] = st.pgid;
	}
	closedir(dir);
	for (i = 0; i < n; i++) {
		pid_t up = ppid[i];

		if (pgid[i] == j->pid)
			continue;
		/* Walk up the parents; a bounded walk, /proc may change. */
		for (depth = 0; up > 1 && up != j->pid && depth < 64; depth++) {
			for (k = 0; k < n && pid[k] != up; k++)
				;
			up = k < n ? ppid[k] : 0;
		}
		if (up == j->pid)
			kill(pid[i], sig);
	}
}

static void start(struct job *j)
{
	int status;

	j->pid = fork();
	if (j->pid < 0) {
		perror("gang: fork");
		exit(1);
	}
	if (j->pid == 0) {
		/* Own group, then wait stopped until the first slice. */
		setpgid(0, 0);
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		signal(SIGPIPE, SIG_DFL);
		gang_remote_close_fds();
		kill(getpid(), SIGSTOP);
		execvp(j->argv[0], j->argv);
		fprintf(stderr, "gang: %s: %s\n", j->argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(j->pid, j->pid);	/* either side may win the race */
	if (waitpid(j->pid, &status, WUNTRACED) < 0 || !WIFSTOPPED(status)) {
		fprintf(stderr, "gang: job %d did not start\n", (int)(j - jobs));
		exit(1);
	}
}

/* Has an attached (not our child) job's leader gone, or become a zombie? */
static int gone(pid_t pid)
{
	struct proc_stat st;

	return proc_stat_read(pid, &st) || st.state == 'Z' || st.state == 'X';
}

/* Reap every leader that exited; returns how many did. */
static int reap(uint64_t t0, int quiet, int *failed)
{
	int i, n = 0, st;

	for (i = 0; i < njobs; i++) {
		struct job *j = &jobs[i];

		if (j->done)
			continue;
		if (!j->argv) {
			if (!gone(j->pid))
				continue;
			st = -1;
		} else if (waitpid(j->pid, &st, WNOHANG) != j->pid) {
			continue;
		}
		j->done = 1;
		if (!j->argv)
			j->status = -1;
		else
			j->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		j->end = dur_now() - t0;
		/* Leftovers of the job must not stay stopped forever. */
		kill(-j->pid, SIGCONT);
		if (j->status > 0)
			(*failed)++;
		if (!quiet)
			printf("job=%d pid=%d status=%d end_s=%.3f ran_s=%.3f\n", i,
			       j->pid, j->status, j->end * 1e-9, j->ran * 1e-9);
		fflush(stdout);
		n++;
	}
	return n;
}

/* -p: running jobs by pid, comma-separated. */
static int attach(const char *list)
{
	const char *p = list;
	char *end;
	long v;

	for (;;) {
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || end == p || v <= 1 || (*end && *end != ','))
			return -1;
		if (njobs == MAX_JOBS) {
			fprintf(stderr, "gang: at most %d jobs\n", MAX_JOBS);
			exit(2);
		}
		if (kill((pid_t)v, 0)) {
			fprintf(stderr, "gang: pid %ld: %s\n", v, strerror(errno));
			exit(1);
		}
		/* Stopping its group would stop gang itself. */
		if (v == getpid() || getpgid((pid_t)v) == getpgrp()) {
			fprintf(stderr, "gang: pid %ld is in gang's own process group\n", v);
			exit(2);
		}
		jobs[njobs++].pid = (pid_t)v;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/*
 * -k MARK=V1,V2,...: each job's value, in the jobs' order.  Returns MARK
 * (in @spec, which it cuts up) and the values' list in *@list, or NULL
 * when the values are not one per job, or one is empty, repeated, or not
 * a plain word.
 */
static char *split_marks(char *spec, char **list)
{
	char *eq = strchr(spec, '='), *v, *comma;
	int n = 0, k;

	if (!eq || eq == spec || !eq[1])
		return NULL;
	*eq = '\0';
	*list = strdup(eq + 1);
	if (!*list)
		return NULL;
	for (v = eq + 1; v; v = comma ? comma + 1 : NULL) {
		comma = strchr(v, ',');
		if (comma)
			*comma = '\0';
		if (n == njobs || !*v || strlen(v) > 60 || strpbrk(v, " \t\n="))
			return NULL;
		for (k = 0; k < n; k++)
			if (!strcmp(jobs[k].mark, v))
				return NULL;
		jobs[n++].mark = v;
	}
	return n == njobs ? spec : NULL;
}

/*
 * Reap gang's children until none is left (0) or @deadline passes (1:
 * some are left).  A job leader reaped is done, so that nothing is sent
 * to its pid again (it may be reused).  Attached jobs are not children.
 */
static int children_left_until(uint64_t deadline)
{
	for (;;) {
		pid_t pid = waitpid(-1, NULL, WNOHANG);
		int i;

		for (i = 0; pid > 0 && i < njobs; i++)
			if (jobs[i].argv && jobs[i].pid == pid)
				jobs[i].done = 1;
		if (pid > 0 || (pid < 0 && errno == EINTR))
			continue;
		if (pid < 0)		/* ECHILD: none left */
			return 0;
		if (dur_now() >= deadline)
			return 1;
		usleep(10000);
	}
}

/*
 * Has job @j (one gang started) lost its leader, reaped, while members
 * of its group live on?  While the group has members its id is not given
 * to a new process; a process that has the id is a reuse: not the job's.
 */
static int orphan_group(const struct job *j)
{
	if (!j->argv || !j->done)
		return 0;
	if (!kill(j->pid, 0) || errno != ESRCH)
		return 0;
	return !kill(-j->pid, 0);
}

/* Until @deadline, while a job's orphaned group lives (1: one is left). */
static int orphan_groups_until(uint64_t deadline)
{
	int i, any;

	for (;;) {
		for (i = 0, any = 0; i < njobs && !any; i++)
			any = orphan_group(&jobs[i]);
		if (!any || dur_now() >= deadline)
			return any;
		usleep(10000);
	}
}

/*
 * On an interrupt, or an agent lost (which leaves the jobs' fate
 * unknown): terminate the jobs gang started, continue every job (here
 * and, through the agents, on the other hosts) and reap; what is left
 * 10 s after the SIGTERM (the agents' end counted in) is killed.
 * Returns how many agents had failed.
 */
static int abort_jobs(void)
{
	uint64_t deadline = dur_now() + 10000000000ull;
	int i, failed, left;

	for (i = 0; i < njobs; i++) {
		if (orphan_group(&jobs[i])) {
			kill(-jobs[i].pid, SIGTERM);
			kill(-jobs[i].pid, SIGCONT);
		}
		if (jobs[i].done)
			continue;
		if (jobs[i].argv)
			signal_job(&jobs[i], SIGTERM);
		signal_job(&jobs[i], SIGCONT);
	}
	failed = gang_remote_stop();
	left = children_left_until(deadline);
	left |= orphan_groups_until(deadline);
	if (left) {
		for (i = 0; i < njobs; i++)
			if (orphan_group(&jobs[i]))
				kill(-jobs[i].pid, SIGKILL);
			else if (jobs[i].argv && !jobs[i].done)
				signal_job(&jobs[i], SIGKILL);
		/* Reaped here: pid 1 may not reap orphans (zombies left). */
		children_left_until(dur_now() + 1000000000ull);
	}
	return failed;
}

/*
 * -R: had a live job other than @cur ranks at its last switch?  Only then
 * is an empty slice of @cur cut short: while every job's ranks are still
 * starting, or all have ended and the launchers wind down, slices run
 * whole rather than exchanging with the agents without pause.
 */
static int other_has_ranks(int cur)
{
	int i;

	for (i = 0; i < njobs; i++)
		if (i != cur && !jobs[i].done && jobs[i].ranks > 0)
			return 1;
	return 0;
}

static void stop_job(void *arg)
{
	signal_job(arg, SIGSTOP);
}

int main(int argc, char **argv)
{
	uint64_t slice = 100000000ull, this_slice, t0, s0, ran_from, now, timeout;
	int i, quiet = 0, left, cur = -1, failed = 0, sig, attached = 0;
	const char *hosts = NULL, *remote = NULL;
	char *marks = NULL, *mark_name = NULL, *mark_values = NULL;
	int prev, agents_failed = 0, ranks_only = 0, timeout_given = 0;
	int idle = 0;
	unsigned long switches = 0, idle_slices = 0;
	struct timespec ts;
	sigset_t set;

	if (argc == 5 && !strcmp(argv[1], "--agent"))
		return gang_agent(argv[2], argv[3], argv[4]);
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-H") && i + 1 < argc) {
			hosts = argv[++i];
		} else if (!strcmp(argv[i], "-k") && i + 1 < argc) {
			marks = argv[++i];
		} else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
			remote = argv[++i];
		} else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			if (dur_parse(argv[++i], 1000000ull, &slice))
				usage();
		} else if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			if (dur_parse(argv[++i], 1000000ull, &timeout) ||
			    timeout < 1000000ull || timeout > 3600000000000ull)
				usage();
			agent_timeout_ms = timeout / 1000000;
			timeout_given = 1;
		} else if (!strcmp(argv[i], "-R")) {
			ranks_only = 1;
		} else if (!strcmp(argv[i], "-q")) {
			quiet = 1;
		} else if (!strcmp(argv[i], "-p") && i + 1 < argc) {
			if (attach(argv[++i]))
				usage();
			attached = 1;
		} else {
			usage();
		}
	}
	/* The jobs: the words between one "--" and the next. */
	while (i < argc) {
		argv[i++] = NULL;	/* the "--" ends the previous job */
		if (i >= argc || !strcmp(argv[i], "--"))
			usage();
		if (njobs == MAX_JOBS) {
			fprintf(stderr, "gang: at most %d jobs\n", MAX_JOBS);
			return 2;
		}
		jobs[njobs++].argv = &argv[i];
		while (i < argc && strcmp(argv[i], "--"))
			i++;
	}
	if (!njobs)
		usage();
	if (!hosts != !marks || ((remote || ranks_only || timeout_given) && !hosts))
		usage();
	if (hosts) {
		mark_name = split_marks(marks, &mark_values);
		if (!mark_name)
			usage();
		/* Every job would inherit it: nothing would tell them apart. */
		if (getenv(mark_name)) {
			fprintf(stderr, "gang: -k %s: gang's own environment has it\n",
				mark_name);
			return 2;
		}
	}

	/* Signals arrive through sigtimedwait, never asynchronously. */
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, &oldmask)) {
		perror("gang: sigprocmask");
		return 1;
	}
	/*
	 * An agent gone is an error to report, a reader of gang's output
	 * gone (| head) nothing to die of: write errors are ignored.
	 */
	signal(SIGPIPE, SIG_IGN);
	if (hosts) {
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (n <= 0) {
			perror("gang: /proc/self/exe");
			return 1;
		}
		self[n] = '\0';
		if (gang_remote_start(remote ? remote : "ssh", hosts, self,
				      mark_name, mark_values,
				      agent_timeout_ms)) {
			gang_remote_stop();
			return 1;
		}
	}
	for (i = 0; i < njobs; i++)
		if (jobs[i].argv) {
			start(&jobs[i]);
			/* Who is whom, for a watcher (pids may wrap). */
			if (!quiet) {
				printf("gang started job=%d pid=%d\n", i,
				       (int)jobs[i].pid);
				fflush(stdout);
			}
		} else if (!ranks_only)
			signal_job(&jobs[i], SIGSTOP);	/* wait for its slice */
	/* -R: the launchers run on; the agents stop the ranks alone. */
	for (i = 0; ranks_only && i < njobs; i++)
		signal_job(&jobs[i], SIGCONT);

	t0 = dur_now();
	left = njobs;
	while (left > 0) {
		/* The next job still alive, round robin. */
		prev = cur;
		do
			cur = (cur + 1) % njobs;
		while (jobs[cur].done);
		/*
		 * Stop the job whose slice ended (here, while the agents stop
		 * it on the other hosts), then continue the next everywhere.
		 */
		if (hosts) {
			int found = gang_remote_switch(jobs[cur].mark,
					prev >= 0 && !jobs[prev].done &&
					prev != cur && !ranks_only ?
					stop_job : NULL,
					prev >= 0 ? &jobs[prev] : NULL,
					agent_timeout_ms);

			if (found < 0) {
				fprintf(stderr, "gang: an agent failed: terminating the jobs\n");
				agents_failed = abort_jobs();
				break;
			}
			if (found > 0)
				jobs[cur].marked_seen = 1;
			jobs[cur].ranks = found;
			idle = ranks_only && !found && other_has_ranks(cur);
		} else if (prev >= 0 && !jobs[prev].done && prev != cur) {
			signal_job(&jobs[prev], SIGSTOP);
		}
		if (!ranks_only)
			signal_job(&jobs[cur], SIGCONT);
		switches++;
		/* No rank to run: give the others the machine soon. */
		this_slice = idle && slice > IDLE_SLICE_NS ? IDLE_SLICE_NS : slice;
		idle_slices += this_slice < slice;
		idle = 0;
		s0 = dur_now();
		ran_from = s0;
		/*
		 * Its slice, cut short if it ends or we are told to stop.  A
		 * job alone runs on without switches, except under -R while
		 * no agent has found its ranks yet (each switch looks).
		 */
		for (;;) {
			int switching = left > 1 ||
					(ranks_only && !jobs[cur].marked_seen);

			now = dur_now();
			if (switching && now - s0 >= this_slice)
				break;
			if (switching) {
				ts.tv_sec = (this_slice - (now - s0)) / 1000000000ull;
				ts.tv_nsec = (this_slice - (now - s0)) % 1000000000ull;
			} else {
				ts.tv_sec = 1;	/* alone: no more switching */
				ts.tv_nsec = 0;
			}
			/* No SIGCHLD from an attached job: look every 10 ms. */
			if (attached && (ts.tv_sec || ts.tv_nsec > 10000000)) {
				ts.tv_sec = 0;
				ts.tv_nsec = 10000000;
			}
			sig = sigtimedwait(&set, NULL, &ts);
			if (!jobs[cur].argv && gone(jobs[cur].pid))
				break;
			if (sig == SIGINT || sig == SIGTERM) {
				fprintf(stderr, "gang: signal %d, terminating the jobs it started, resuming the others\n", sig);
				abort_jobs();
				return 1;
			}
			if (sig == SIGCHLD || (attached && sig < 0)) {
				siginfo_t si = { 0 };

				/*
				 * Stops and continues raise SIGCHLD too: only
				 * the running job's exit ends its slice early.
				 */
				if (sig == SIGCHLD &&
				    waitid(P_PID, jobs[cur].pid, &si,
					   WEXITED | WNOHANG | WNOWAIT) == 0 &&
				    si.si_pid == jobs[cur].pid)
					break;
				/*
				 * Another job may have ended (under -R its
				 * launcher runs off its slice; an attached
				 * one, looked at every 10 ms): its end is
				 * now, not at this slice's end.
				 */
				now = dur_now();
				jobs[cur].ran += now - ran_from;
				ran_from = now;
				left -= reap(t0, quiet, &failed);
				if (jobs[cur].done)
					break;
			}
		}
		jobs[cur].ran += dur_now() - ran_from;
		left -= reap(t0, quiet, &failed);
	}
	/* -R sliced nothing of a job whose ranks no agent ever found. */
	for (i = 0; ranks_only && !agents_failed && i < njobs; i++) {
		if (jobs[i].marked_seen)
			continue;
		fprintf(stderr, "gang: job %d: no process with %s=%s on any host: not sliced\n",
			i, mark_name, jobs[i].mark);
		failed++;
	}
	if (hosts) {
		const struct gang_remote_stats *st = gang_remote_stats();

		agents_failed += gang_remote_stop();
		printf("gang agents: start_ms=%llu exchanges=%lu total_ms=%llu max_ms=%llu stopped=%llu continued=%llu failed=%d\n",
		       (unsigned long long)st->start_ms,
		       st->switches, (unsigned long long)st->total_ms,
		       (unsigned long long)st->max_ms,
		       (unsigned long long)st->stopped,
		       (unsigned long long)st->continued, agents_failed);
	}
	printf("gang jobs=%d slice_ms=%.3f makespan_s=%.3f switches=%lu idle=%lu failed=%d\n",
	       njobs, slice * 1e-6, (dur_now() - t0) * 1e-9, switches,
	       idle_slices, failed + agents_failed);
	return failed || agents_failed ? 1 : 0;
}
