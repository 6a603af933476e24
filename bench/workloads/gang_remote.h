/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gang_remote.h - gang across hosts (gang_remote.c): the agent that
 * stops and continues a host's ranks, and gang's side of the channel.
 */
#ifndef GANG_REMOTE_H
#define GANG_REMOTE_H

/*
 * gang --agent MARK: read "run VALUE" lines on stdin; for each, stop
 * every process whose environment has MARK set to another value, continue
 * those with MARK=VALUE, answer "ok stopped=S continued=C".  At EOF
 * continue every marked process; returns the exit status.
 */
int gang_agent(const char *mark);

/*
 * Start "REMOTE HOST SELF --agent MARK" for each host of the
 * comma-separated @hosts (@remote split on spaces, e.g. "ssh" or
 * "cosched-rexec") and wait until each answers.  0, or -1 said on stderr.
 */
int gang_remote_start(const char *remote, const char *hosts,
		      const char *self, const char *mark);

/*
 * Tell every agent that the job marked @value runs (NULL: none) and wait
 * for every answer.  0, or -1 when an agent failed or is gone.
 */
int gang_remote_run(const char *value);

/* Close the agents' channels (they continue every marked process), reap. */
void gang_remote_stop(void);

#endif
