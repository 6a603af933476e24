// SPDX-License-Identifier: GPL-2.0
/*
 * gang_remote.c - gang across hosts: an agent on every other host stops
 * and continues the jobs' processes there, told which job runs by gang
 * on the launching host.
 *
 * A job's ranks on another host are not in the launcher's process tree;
 * they are found by a variable of their environment (MARK=VALUE, e.g.
 * COSCHED_JOB=3, which cosched-run puts in every rank's), and only the
 * values gang names (its jobs') are touched, and only processes whose
 * real user is gang's: gang starts "REMOTE HOST gang --agent MARK
 * V1,V2,... UID" for each host.  An agent started as root becomes UID
 * before anything else, so the kernel's own permission checks keep it to
 * that user's processes.  At each switch gang writes "run VALUE" to
 * every agent and waits for its "ok": the agent has then stopped the
 * processes of every other job and, after that, continued those of
 * VALUE.  All of it is looked up again at each switch, so ranks started
 * since are caught at the next one.  When the channel closes (gang's end
 * or death) or the agent is told to terminate (SIGTERM, SIGHUP, SIGINT),
 * it continues every process of the jobs and exits: nothing stays
 * stopped.
 */
#define _GNU_SOURCE
#include "gang_remote.h"
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_HOSTS	64
#define MAX_VALUES	64
#define VALUE_LEN	64
#define LINE_LEN	256
/* Agents answer within this, or count as failed (slow guests included). */
#define START_TIMEOUT_MS	60000

/* ---- the agent ---------------------------------------------------- */

static const char *values[MAX_VALUES];
static int nvalues;
static uid_t owner;		/* the jobs' user */

/* Is @v one of the jobs' values? */
static int known(const char *v)
{
	int i;

	for (i = 0; i < nvalues; i++)
		if (!strcmp(values[i], v))
			return 1;
	return 0;
}

/* Is @pid this process or one of its ancestors (which must run on)? */
static int ancestor(pid_t pid)
{
	struct proc_stat st;
	pid_t up = getpid();
	int depth;

	for (depth = 0; up > 1 && depth < 64; depth++) {
		if (up == pid)
			return 1;
		if (proc_stat_read(up, &st))
			return 0;
		up = st.ppid;
	}
	return 0;
}

/*
 * What the environment of a process said, so that each switch reads only
 * new processes' environments.
 */
struct seen {
	pid_t pid;
	struct proc_stat id;		/* start time and environment place */
	int marked;			/* its value is a job's */
	int job;			/* and its user gang's, at this look */
	char val[VALUE_LEN];
};

#define SEEN_SLOTS	8192

static struct seen seen[SEEN_SLOTS];

static struct seen *look_up(pid_t pid, const char *mark)
{
	struct seen *e = &seen[pid % SEEN_SLOTS];
	struct proc_stat id;
	uid_t uid;

	/* An exec moves the environment: start and place identify it. */
	if (proc_stat_read(pid, &id))
		return NULL;
	if (e->pid != pid || e->id.start != id.start ||
	    e->id.env_start != id.env_start || e->id.env_end != id.env_end) {
		e->pid = pid;
		e->id = id;
		e->marked = !proc_environ_value(pid, mark, e->val,
						sizeof(e->val)) &&
			    known(e->val) && !ancestor(pid);
	}
	/*
	 * Another user's job may use the same values: never touch it.  Read
	 * at every look, as a process may change its user without an exec.
	 */
	e->job = e->marked && !proc_real_uid(pid, &uid) && uid == owner;
	return e;
}

/*
 * The jobs' processes: those of @run (NULL: every job) continued, after
 * every other job's are stopped, so that no two jobs run at once here.
 * Counts in *@stopped and *@continued, and in *@foreign the processes
 * with a job's value that belong to another user (left alone).
 */
static void apply(const char *mark, const char *run, int *stopped,
		  int *continued, int *foreign)
{
	static pid_t go[32768];
	int ngo = 0, i;
	struct dirent *d;
	struct seen *e;
	DIR *dir;

	*stopped = *continued = *foreign = 0;
	dir = opendir("/proc");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		char *end;
		long v = strtol(d->d_name, &end, 10);

		if (*end || v <= 1)
			continue;
		e = look_up((pid_t)v, mark);
		if (e && e->marked && !e->job)
			(*foreign)++;
		if (!e || !e->job)
			continue;
		if (!run || !strcmp(e->val, run)) {
			if (ngo < (int)(sizeof(go) / sizeof(go[0])))
				go[ngo++] = (pid_t)v;
		} else if (!kill((pid_t)v, SIGSTOP)) {
			(*stopped)++;
		}
	}
	closedir(dir);
	for (i = 0; i < ngo; i++)
		if (!kill(go[i], SIGCONT))
			(*continued)++;
}

static volatile sig_atomic_t agent_told_to_end;

static void agent_end(int sig)
{
	(void)sig;
	agent_told_to_end = 1;
}

/* Split "V1,V2,..." into @values; -1 on an empty, long or odd value. */
static int split_values(char *list, const char **out, int *n)
{
	char *v = list, *comma;

	*n = 0;
	for (;;) {
		comma = strchr(v, ',');
		if (comma)
			*comma = '\0';
		if (!*v || strlen(v) >= VALUE_LEN || strpbrk(v, " \t\n=") ||
		    *n == MAX_VALUES)
			return -1;
		out[(*n)++] = v;
		if (!comma)
			return 0;
		v = comma + 1;
	}
}

/*
 * An agent started as root becomes @uid (with its passwd entry's group,
 * no supplementary groups): it can then signal no other user's
 * processes, whatever it finds in /proc.  0, or -1 said on stderr.
 */
static int become(uid_t uid)
{
	struct passwd *pw;
	gid_t gid;

	if (geteuid() != 0 || uid == 0)
		return 0;
	pw = getpwuid(uid);
	gid = pw ? pw->pw_gid : (gid_t)uid;
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid)) {
		fprintf(stderr, "gang --agent: becoming user %lu: %s\n",
			(unsigned long)uid, strerror(errno));
		return -1;
	}
	return 0;
}

int gang_agent(const char *mark, char *value_list, const char *uid)
{
	struct sigaction sa = { .sa_handler = agent_end };
	int stopped, continued, foreign;
	char line[LINE_LEN], *end;
	size_t have = 0;
	unsigned long u;
	ssize_t n;

	errno = 0;
	u = strtoul(uid, &end, 10);
	if (!*mark || strchr(mark, '=') ||
	    split_values(value_list, values, &nvalues) ||
	    *uid < '0' || *uid > '9' || *end || errno || u != (uid_t)u ||
	    (uid_t)u == (uid_t)-1) {
		fprintf(stderr, "gang --agent: bad variable '%s', values or user '%s'\n",
			mark, uid);
		return 2;
	}
	owner = (uid_t)u;
	if (become(owner))
		return 1;
	/* No SA_RESTART: a termination signal ends the read below. */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	while (!agent_told_to_end) {
		char *nl = memchr(line, '\n', have);

		if (!nl) {
			if (have == sizeof(line))
				break;	/* no line that long is ours */
			n = read(0, line + have, sizeof(line) - have);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			have += n;
			continue;
		}
		*nl = '\0';
		if (strncmp(line, "run ", 4) || !line[4]) {
			dprintf(1, "error %s\n", line);
		} else {
			apply(mark, line + 4, &stopped, &continued, &foreign);
			dprintf(1, "ok stopped=%d continued=%d foreign=%d\n",
				stopped, continued, foreign);
		}
		have -= nl + 1 - line;
		memmove(line, nl + 1, have);
	}
	apply(mark, NULL, &stopped, &continued, &foreign);
	return 0;
}

/* ---- gang's side -------------------------------------------------- */

struct agent {
	const char *host;
	pid_t pid;
	int to, from;
	int failed;
	int warned;		/* said that it found another user's */
	char buf[LINE_LEN];
	size_t have;
};

static struct agent agents[MAX_HOSTS];
static int nagents;
static char *remote_argv[32];
static int remote_argc;
static const char *agent_self, *agent_mark, *agent_values;
static char agent_uid[24];
static struct gang_remote_stats stats;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

/*
 * Fork "REMOTE HOST SELF --agent MARK VALUES UID", stdin and stdout @in,
 * @out, in a process group of its own.
 */
static pid_t spawn(const char *host, int in, int out)
{
	char *argv[40];
	sigset_t none;
	pid_t pid;
	int i;

	pid = fork();
	if (pid > 0)
		setpgid(pid, pid);	/* either side may win the race */
	if (pid)
		return pid;
	for (i = 0; i < remote_argc; i++)
		argv[i] = remote_argv[i];
	argv[i++] = (char *)host;
	argv[i++] = (char *)agent_self;
	argv[i++] = "--agent";
	argv[i++] = (char *)agent_mark;
	argv[i++] = (char *)agent_values;
	argv[i++] = agent_uid;
	argv[i] = NULL;
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0)
		_exit(127);
	/* Not in a job's group, which gang stops. */
	setpgid(0, 0);
	/* gang blocks and ignores signals its agents must not. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], argv);
	fprintf(stderr, "gang: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int gang_remote_start(const char *remote, const char *hosts,
		      const char *self, const char *mark, const char *value_list,
		      int timeout_ms)
{
	char *rem = strdup(remote), *hl = strdup(hosts), *h, *save = NULL;

	if (!rem || !hl)
		return -1;
	for (h = strtok_r(rem, " ", &save); h && remote_argc < 30;
	     h = strtok_r(NULL, " ", &save))
		remote_argv[remote_argc++] = h;
	if (!remote_argc || h) {
		fprintf(stderr, "gang: -r '%s': empty or too many words\n", remote);
		return -1;
	}
	/* Kept for a failed agent's replacement, at the end. */
	agent_self = strdup(self);
	agent_mark = strdup(mark);
	agent_values = strdup(value_list);
	if (!agent_self || !agent_mark || !agent_values)
		return -1;
	/* The agents touch only this user's processes. */
	snprintf(agent_uid, sizeof(agent_uid), "%lu", (unsigned long)getuid());
	save = NULL;
	for (h = strtok_r(hl, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
		struct agent *a = &agents[nagents];
		int in[2], out[2];

		if (nagents == MAX_HOSTS) {
			fprintf(stderr, "gang: at most %d hosts\n", MAX_HOSTS);
			return -1;
		}
		if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
			perror("gang: pipe");
			return -1;
		}
		a->host = h;
		a->pid = spawn(h, in[0], out[1]);
		close(in[0]);
		close(out[1]);
		a->to = in[1];
		a->from = out[0];
		nagents++;
		if (a->pid < 0) {
			perror("gang: fork");
			return -1;
		}
	}
	/* The first exchange tells that every agent is up; not a switch. */
	if (gang_remote_switch(NULL, NULL, NULL, timeout_ms > START_TIMEOUT_MS ?
			       timeout_ms : START_TIMEOUT_MS) < 0)
		return -1;
	stats.start_ms = stats.total_ms;
	stats.switches = stats.total_ms = stats.max_ms = 0;
	return 0;
}

/* One answer line of @a into @line, or -1 (gone, or @deadline passed). */
static int read_answer(struct agent *a, char *line, uint64_t deadline)
{
	for (;;) {
		char *nl = memchr(a->buf, '\n', a->have);
		struct pollfd p = { .fd = a->from, .events = POLLIN };
		uint64_t now = now_ms();
		ssize_t n;

		if (nl) {
			*nl = '\0';
			snprintf(line, LINE_LEN, "%s", a->buf);
			a->have -= nl + 1 - a->buf;
			memmove(a->buf, nl + 1, a->have);
			return 0;
		}
		if (a->have == sizeof(a->buf) || now >= deadline) {
			snprintf(line, LINE_LEN, "%s", a->have ? "a line too long" :
				 "no answer in time");
			return -1;
		}
		if (poll(&p, 1, (int)(deadline - now)) < 0 && errno != EINTR) {
			snprintf(line, LINE_LEN, "poll: %s", strerror(errno));
			return -1;
		}
		if (!p.revents)
			continue;
		n = read(a->from, a->buf + a->have, sizeof(a->buf) - a->have);
		if (n <= 0) {
			snprintf(line, LINE_LEN, "gone");
			return -1;
		}
		a->have += n;
	}
}

int gang_remote_switch(const char *value, void (*between)(void *),
		       void *arg, int timeout_ms)
{
	uint64_t t0 = now_ms(), deadline = t0 + timeout_ms, took;
	char line[LINE_LEN], req[LINE_LEN];
	int i, err = 0, len, s, c, f, continued = 0;

	/* "run -": a value no job has, so every job stops. */
	len = snprintf(req, sizeof(req), "run %s\n", value ? value : "-");
	for (i = 0; i < nagents; i++)
		if (!agents[i].failed && write(agents[i].to, req, len) != len)
			agents[i].failed = 1;
	/* The local stop overlaps the agents' work. */
	if (between)
		between(arg);
	for (i = 0; i < nagents; i++) {
		struct agent *a = &agents[i];

		if (!a->failed && read_answer(a, line, deadline) == 0 &&
		    sscanf(line, "ok stopped=%d continued=%d foreign=%d",
			   &s, &c, &f) == 3) {
			stats.stopped += s;
			stats.continued += c;
			continued += c;
			if (f && !a->warned) {
				fprintf(stderr, "gang: agent on %s: %d processes with a job's value belong to another user: left alone\n",
					a->host, f);
				a->warned = 1;
			}
			continue;
		}
		if (!a->failed)
			fprintf(stderr, "gang: agent on %s: %s\n", a->host, line);
		else
			fprintf(stderr, "gang: agent on %s: gone\n", a->host);
		a->failed = 1;
		err = -1;
	}
	took = now_ms() - t0;
	stats.switches++;
	stats.total_ms += took;
	if (took > stats.max_ms)
		stats.max_ms = took;
	return err ? err : continued;
}

void gang_remote_close_fds(void)
{
	int i;

	for (i = 0; i < nagents; i++) {
		close(agents[i].to);
		close(agents[i].from);
	}
}

/*
 * Reap the @n processes of @pid (those <= 0 are not there) within
 * GANG_AGENT_END_MS; then terminate the process groups of those left
 * (the remote shells: the agents beyond them see their channels end),
 * give them 2 s together to continue what they stopped, kill them, and
 * give up 1 s later: never a wait without end, never more than about
 * 13 s however many.  @late[i] is set for each one that had to be told
 * and then did not exit with status 0 (an agent that ends cleanly on
 * SIGTERM has continued what it stopped: not a failure).
 */
static void reap_all(pid_t *pid, int n, int *late)
{
	static const int step_sig[] = { SIGTERM, SIGKILL };
	static const int step_ms[] = { 2000, 1000 };
	uint64_t deadline = now_ms() + GANG_AGENT_END_MS;
	unsigned int step = 0;
	int i, left;

	for (;;) {
		for (i = 0, left = 0; i < n; i++) {
			pid_t got;
			int status;

			if (pid[i] <= 0)
				continue;
			got = waitpid(pid[i], &status, WNOHANG);
			/* Told, it still ended as agreed: not late after all. */
			if (got == pid[i] && WIFEXITED(status) &&
			    !WEXITSTATUS(status))
				late[i] = 0;
			if (got == pid[i] || (got < 0 && errno != EINTR))
				pid[i] = 0;
			else
				left++;
		}
		if (!left)
			return;
		if (now_ms() < deadline) {
			usleep(10000);
			continue;
		}
		/* Killed and still not reaped: leave them. */
		if (step == 2)
			return;
		for (i = 0; i < n; i++) {
			if (pid[i] <= 0)
				continue;
			late[i] = 1;
			if (kill(-pid[i], step_sig[step]) && errno == ESRCH)
				kill(pid[i], step_sig[step]);
		}
		deadline = now_ms() + step_ms[step++];
	}
}

int gang_remote_stop(void)
{
	int i, failed = 0, devnull, late[MAX_HOSTS] = { 0 };
	pid_t pid[MAX_HOSTS];

	/* EOF: each agent continues the jobs' processes and exits. */
	for (i = 0; i < nagents; i++) {
		close(agents[i].to);
		close(agents[i].from);
		pid[i] = agents[i].pid;
	}
	reap_all(pid, nagents, late);
	for (i = 0; i < nagents; i++)
		if (late[i]) {
			fprintf(stderr, "gang: agent on %s: did not end in time\n",
				agents[i].host);
			agents[i].failed = 1;
		}
	/*
	 * A failed agent may have died with ranks stopped: a fresh one, its
	 * input at once at EOF, continues them.  All at once.
	 */
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (i = 0; i < nagents; i++) {
		pid[i] = -1;
		late[i] = 0;
		if (!agents[i].failed)
			continue;
		failed++;
		if (devnull >= 0)
			pid[i] = spawn(agents[i].host, devnull, 2);
	}
	if (devnull >= 0)
		close(devnull);
	reap_all(pid, nagents, late);
	for (i = 0; i < nagents; i++)
		if (late[i])
			fprintf(stderr, "gang: the new agent on %s: did not end in time\n",
				agents[i].host);
	nagents = 0;
	return failed;
}

const struct gang_remote_stats *gang_remote_stats(void)
{
	return &stats;
}
