// SPDX-License-Identifier: GPL-2.0
/*
 * procfs.c - reading a process's stat, status and environment in /proc.
 */
#define _GNU_SOURCE
#include "procfs.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Fields are numbered from 1 as in proc(5); 51 is the last one we need. */
#define LAST_FIELD	51

int proc_stat_read(pid_t pid, struct proc_stat *st)
{
	unsigned long long field[LAST_FIELD + 1] = { 0 };
	char path[64], buf[2048], *p, *save = NULL;
	ssize_t len;
	int n = 3, fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	/*
	 * The command name is printed raw: it may hold spaces, ')' and even
	 * newlines (one line would end inside it).  The fields follow the
	 * last ')' of the whole file.
	 */
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	p = strtok_r(p + 1, " \n", &save);
	if (!p)
		return -1;
	st->state = *p;
	for (p = strtok_r(NULL, " \n", &save); p && ++n <= LAST_FIELD;
	     p = strtok_r(NULL, " \n", &save))
		field[n] = strtoull(p, NULL, 10);
	/* Older kernels end before the environment's fields. */
	if (n < 5)
		return -1;
	st->ppid = (pid_t)field[4];
	st->pgid = (pid_t)field[5];
	st->start = field[22];
	st->env_start = field[50];
	st->env_end = field[51];
	return 0;
}

int proc_real_uid(pid_t pid, uid_t *uid)
{
	char path[64], line[256];
	unsigned long u;
	int found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %lu", &u) == 1) {
			*uid = (uid_t)u;
			found = 0;
		}
	fclose(f);
	return found;
}

int proc_environ_value(pid_t pid, const char *name, char *val, size_t len)
{
	size_t nlen = strlen(name), cap = 0;
	char path[64], *var = NULL;
	int found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	/* The first one, as getenv() finds. */
	while (found && getdelim(&var, &cap, '\0', f) > 0) {
		if (!strncmp(var, name, nlen) && var[nlen] == '=') {
			snprintf(val, len, "%s", var + nlen + 1);
			found = 0;
		}
	}
	free(var);
	fclose(f);
	return found;
}
