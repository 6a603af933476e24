/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gang_remote.h - gang across hosts (gang_remote.c): the agent that
 * stops and continues a host's ranks, and gang's side of the channel.
 */
#ifndef GANG_REMOTE_H
#define GANG_REMOTE_H

#include <stdint.h>

/* By default an agent that does not answer a switch within this failed. */
#define GANG_AGENT_TIMEOUT_MS	20000
/*
 * Agents still there this long after their channels closed are
 * terminated (as are fresh ones started for failed agents): with the 3 s
 * they then have, gang's end takes at most about 2 x 13 s.
 */
#define GANG_AGENT_END_MS	10000

struct gang_remote_stats {
	uint64_t start_ms;		/* the agents' start, before the jobs */
	unsigned long switches;		/* exchanges at switches */
	uint64_t total_ms, max_ms;	/* their time, outside any slice */
	uint64_t stopped, continued;	/* processes, summed over hosts */
};

/*
 * gang --agent MARK V1,V2,... UID: become user @uid if root; read "run V"
 * lines on stdin; for each, stop the processes of user @uid whose
 * environment has MARK set to another of the values, then continue those
 * with MARK=V, and answer "ok stopped=S continued=C foreign=F" (F:
 * processes with one of the values but another user, left alone).  At EOF or SIGTERM, SIGHUP, SIGINT continue
 * every process of the values; returns the exit status.  @value_list is
 * cut up.
 */
int gang_agent(const char *mark, char *value_list, const char *uid);

/*
 * Start "REMOTE HOST SELF --agent MARK VALUES UID" (UID: ours) for each
 * host of the comma-separated @hosts (@remote split on spaces, e.g. "ssh"
 * or "cosched-rexec") and wait until each answers, up to 60 s or
 * @timeout_ms if longer.  0, or -1 said on stderr.
 */
int gang_remote_start(const char *remote, const char *hosts,
		      const char *self, const char *mark,
		      const char *value_list, int timeout_ms);

/*
 * Tell every agent that the job marked @value runs (NULL: none), call
 * @between(@arg) (if not NULL) while they work, and wait up to
 * @timeout_ms for every answer.  How many processes of @value the agents
 * continued, or -1 when an agent failed, is gone or late (said on stderr;
 * it is not asked again).
 */
int gang_remote_switch(const char *value, void (*between)(void *),
		       void *arg, int timeout_ms);

/* In a job's child before exec: the agents' channels are not its own. */
void gang_remote_close_fds(void);

/*
 * Close the agents' channels (each continues the jobs' processes and
 * exits) and reap them, terminating one still there after
 * GANG_AGENT_END_MS (its remote shell's process group); on each failed
 * agent's host start a new one with no input, which does the same.
 * Returns how many agents had failed.
 */
int gang_remote_stop(void);

const struct gang_remote_stats *gang_remote_stats(void);

#endif
