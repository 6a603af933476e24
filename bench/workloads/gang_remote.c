// SPDX-License-Identifier: GPL-2.0
/*
 * gang_remote.c - gang across hosts: an agent on every other host stops
 * and continues the jobs' processes there, told which job runs by gang
 * on the launching host.
 *
 * A job's ranks on another host are not in the launcher's process tree;
 * they are found by a variable of their environment (MARK=VALUE, e.g.
 * COSCHED_JOB=3, which cosched-run puts in every rank's).  gang starts
 * "REMOTE HOST gang --agent MARK" for each host, and at each switch
 * writes "run VALUE" to every agent and waits for its "ok": the agent
 * has then stopped every process whose MARK is another value and
 * continued those whose MARK is VALUE.  All of it is looked up again at
 * each switch, so ranks started since are caught at the next one.  When
 * gang closes the channel (its end, or its death) the agent continues
 * every process with a MARK and exits: nothing stays stopped.
 */
#define _GNU_SOURCE
#include "gang_remote.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_HOSTS	64
#define LINE_MAX_LEN	256

struct agent {
	const char *host;
	pid_t pid;
	FILE *to, *from;
};

static struct agent agents[MAX_HOSTS];
static int nagents;

/*
 * The value of @mark in /proc/@pid/environ into @val (at most @len
 * bytes); 0 if found, -1 if absent or unreadable.
 */
static int environ_value(pid_t pid, const char *mark, char *val, size_t len)
{
	char path[64], buf[65536];
	size_t n, mlen = strlen(mark), i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (i = 0; i < n; i += strlen(buf + i) + 1) {
		if (strncmp(buf + i, mark, mlen) || buf[i + mlen] != '=')
			continue;
		snprintf(val, len, "%s", buf + i + mlen + 1);
		return 0;
	}
	return -1;
}

/*
 * /proc/@pid/stat's command name, parent and start time; -1 if it is
 * gone.
 */
static int stat_of(pid_t pid, char *comm, size_t len, pid_t *ppid,
		   unsigned long long *start)
{
	char path[64], buf[1024], *open_, *close_;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	open_ = ok ? strchr(buf, '(') : NULL;
	close_ = ok ? strrchr(buf, ')') : NULL;
	if (!open_ || !close_ || close_ < open_ ||
	    sscanf(close_ + 1, " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   ppid, start) != 2)
		return -1;
	snprintf(comm, len, "%.*s", (int)(close_ - open_ - 1), open_ + 1);
	return 0;
}

/* Is @pid this process or one of its ancestors (which must run on)? */
static int ancestor(pid_t pid)
{
	unsigned long long start;
	pid_t up = getpid(), pp;
	char comm[64];
	int depth;

	for (depth = 0; up > 1 && depth < 64; depth++) {
		if (up == pid)
			return 1;
		if (stat_of(up, comm, sizeof(comm), &pp, &start))
			return 0;
		up = pp;
	}
	return 0;
}

/*
 * What the environment of a process said, so that each switch reads only
 * new processes' environments: a process is the same while its pid,
 * start time and command name (which an exec changes) are.
 */
struct seen {
	pid_t pid;
	unsigned long long start;
	char comm[64];
	int marked;
	char val[LINE_MAX_LEN];
};

#define SEEN_SLOTS	8192

static struct seen seen[SEEN_SLOTS];

static struct seen *look_up(pid_t pid, const char *mark)
{
	struct seen *e = &seen[pid % SEEN_SLOTS];
	unsigned long long start;
	char comm[64];
	pid_t ppid;

	if (stat_of(pid, comm, sizeof(comm), &ppid, &start))
		return NULL;
	if (e->pid == pid && e->start == start && !strcmp(e->comm, comm))
		return e;
	e->pid = pid;
	e->start = start;
	snprintf(e->comm, sizeof(e->comm), "%s", comm);
	e->marked = !environ_value(pid, mark, e->val, sizeof(e->val)) &&
		    !ancestor(pid);
	return e;
}

/*
 * Every process whose @mark is set, but this one and its ancestors:
 * continued if its value is @run (NULL: every one), stopped otherwise.
 * Counts in *@stopped and *@continued.
 */
static void apply(const char *mark, const char *run, int *stopped,
		  int *continued)
{
	struct dirent *d;
	struct seen *e;
	DIR *dir;

	*stopped = *continued = 0;
	dir = opendir("/proc");
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		char *end;
		long v = strtol(d->d_name, &end, 10);

		if (*end || v <= 1)
			continue;
		e = look_up((pid_t)v, mark);
		if (!e || !e->marked)
			continue;
		if (!run || !strcmp(e->val, run)) {
			if (!kill((pid_t)v, SIGCONT))
				(*continued)++;
		} else if (!kill((pid_t)v, SIGSTOP)) {
			(*stopped)++;
		}
	}
	closedir(dir);
}

int gang_agent(const char *mark)
{
	char line[LINE_MAX_LEN];
	int stopped, continued;

	/* A mark gang's own environment has would stop the agent's caller. */
	if (!*mark || strchr(mark, '=')) {
		fprintf(stderr, "gang --agent: bad variable name '%s'\n", mark);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "run ", 4) || !line[4]) {
			printf("error %s\n", line);
			continue;
		}
		apply(mark, line + 4, &stopped, &continued);
		printf("ok stopped=%d continued=%d\n", stopped, continued);
	}
	apply(mark, NULL, &stopped, &continued);
	return 0;
}

int gang_remote_start(const char *remote, const char *hosts,
		      const char *self, const char *mark)
{
	char *rem = strdup(remote), *hl = strdup(hosts), *h, *save = NULL;
	char *argv[32];
	int argc = 0;

	if (!rem || !hl)
		return -1;
	for (h = strtok_r(rem, " ", &save); h && argc < 27;
	     h = strtok_r(NULL, " ", &save))
		argv[argc++] = h;
	if (!argc || h) {
		fprintf(stderr, "gang: -r '%s': empty or too many words\n", remote);
		return -1;
	}
	save = NULL;
	for (h = strtok_r(hl, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
		int in[2], out[2];
		struct agent *a;
		sigset_t none;

		if (nagents == MAX_HOSTS) {
			fprintf(stderr, "gang: at most %d hosts\n", MAX_HOSTS);
			return -1;
		}
		a = &agents[nagents];
		if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
			perror("gang: pipe");
			return -1;
		}
		a->host = h;
		a->pid = fork();
		if (a->pid < 0) {
			perror("gang: fork");
			return -1;
		}
		if (a->pid == 0) {
			dup2(in[0], 0);
			dup2(out[1], 1);
			argv[argc] = h;
			argv[argc + 1] = (char *)self;
			argv[argc + 2] = "--agent";
			argv[argc + 3] = (char *)mark;
			argv[argc + 4] = NULL;
			/* Not in a job's group: gang stops those. */
			setpgid(0, 0);
			/* gang blocks and ignores signals its agents must not. */
			sigemptyset(&none);
			sigprocmask(SIG_SETMASK, &none, NULL);
			signal(SIGPIPE, SIG_DFL);
			execvp(argv[0], argv);
			fprintf(stderr, "gang: %s: %s\n", argv[0], strerror(errno));
			_exit(127);
		}
		close(in[0]);
		close(out[1]);
		a->to = fdopen(in[1], "w");
		a->from = fdopen(out[0], "r");
		if (!a->to || !a->from) {
			perror("gang: fdopen");
			return -1;
		}
		nagents++;
	}
	/* The first exchange tells that every agent is up. */
	return gang_remote_run(NULL);
}

int gang_remote_run(const char *value)
{
	char line[LINE_MAX_LEN];
	int i, err = 0;

	/* "run -": a value no job has, so every job stops. */
	for (i = 0; i < nagents; i++)
		if (fprintf(agents[i].to, "run %s\n", value ? value : "-") < 0 ||
		    fflush(agents[i].to))
			err = -1;
	for (i = 0; i < nagents; i++) {
		if (!fgets(line, sizeof(line), agents[i].from) ||
		    strncmp(line, "ok ", 3)) {
			fprintf(stderr, "gang: agent on %s: %s\n", agents[i].host,
				feof(agents[i].from) ? "gone" : line);
			err = -1;
		}
	}
	return err;
}

void gang_remote_stop(void)
{
	int i;

	/* EOF: each agent continues every marked process and exits. */
	for (i = 0; i < nagents; i++) {
		fclose(agents[i].to);
		fclose(agents[i].from);
		waitpid(agents[i].pid, NULL, 0);
	}
	nagents = 0;
}
