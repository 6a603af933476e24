/* SPDX-License-Identifier: GPL-2.0 */
/*
 * procfs.h - what gang and its agents read of a process in /proc/PID.
 */
#ifndef PROCFS_H
#define PROCFS_H

#include <stddef.h>
#include <sys/types.h>

/* Fields of /proc/PID/stat (proc(5)); the last three 0 where absent. */
struct proc_stat {
	char state;
	pid_t ppid, pgid;
	unsigned long long start;		/* field 22, in clock ticks */
	unsigned long long env_start, env_end;	/* fields 50, 51 */
};

/* Read @pid's stat into @st; 0, or -1 if it is gone or unreadable. */
int proc_stat_read(pid_t pid, struct proc_stat *st);

/* @pid's real user id from its status into @uid; 0, or -1. */
int proc_real_uid(pid_t pid, uid_t *uid);

/*
 * The value of @name in @pid's environment into @val (at most @len bytes,
 * cut short if longer); 0 if set, -1 if absent or unreadable.
 */
int proc_environ_value(pid_t pid, const char *name, char *val, size_t len);

#endif
