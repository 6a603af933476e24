/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The inter-node transport: TCP through io_uring (liburing), one
 * connection per pair of ranks on different nodes, reliable and ordered.
 * Ranks are on the same node when their address list entries name the
 * same host; those talk through the module's rings instead.
 *
 * Threads: net_send() may be called from any number of threads at once;
 * net_poll() and net_wait() from one receiving thread at a time.
 */
#ifndef COSCHED_NET_H
#define COSCHED_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct net;

/*
 * Hands one complete message to its consumer: 0 when taken, -EAGAIN to
 * keep it (net_poll() offers it again next time, before anything newer
 * from that peer).
 */
typedef int (*net_deliver_fn)(void *arg, uint32_t src, const void *buf,
			      size_t len);

/*
 * The address list of a job from $COSCHED_PEERS ("host:port,host:port",
 * one entry per rank, in rank order) or $COSCHED_PEERS_FILE (one entry per
 * line; '#' comments and blank lines ignored).  0 with *addrs = NULL when
 * neither is set; -EINVAL when the list does not have exactly size
 * entries or an entry does not parse.
 */
int net_peers_from_env(uint32_t size, char ***addrs);
void net_peers_free(char **addrs, uint32_t size);

/*
 * Listen on our own entry's port and connect to every rank on another
 * node; returns once all those connections are up, or -ETIMEDOUT after
 * $COSCHED_CONNECT_TIMEOUT seconds (default 30).  ev_fd, if not -1, is
 * watched too: net_wait() returns when it becomes readable.  Messages
 * longer than max_msg are refused with -EMSGSIZE by both sides.
 */
int net_open(struct net **np, uint32_t rank, uint32_t size, char **addrs,
	     int ev_fd, uint32_t max_msg);

/* Is rank reached through this transport (on another node)? */
bool net_remote(const struct net *n, uint32_t rank);

/* The connected socket of a remote rank (for the module's hooks), or -1. */
int net_socket(const struct net *n, uint32_t rank);

/*
 * Send one message to a remote rank; returns when the socket holds all of
 * it.  -EPIPE once that peer has left (closed or lost), -EMSGSIZE if
 * len > max_msg, -EINVAL for a rank that is not remote.
 */
int net_send(struct net *n, uint32_t rank, const void *buf, size_t len);

/*
 * Reap completions without blocking and hand every complete message to
 * fn, in order per peer.  Returns how many were taken, or -ECONNRESET
 * once a peer's connection ended without its orderly goodbye (everything
 * that peer sent before is delivered first).
 */
int net_poll(struct net *n, net_deliver_fn fn, void *arg);

/*
 * Enter the kernel once so that it posts the completions it has deferred
 * to this task (io_uring runs a socket receive's completion as task work
 * of the ring's owner).  0 or -errno.
 */
int net_fetch(struct net *n);

/*
 * Is there anything net_poll() has not looked at yet: a completion, or a
 * message it offered and its consumer kept?  Shared memory only.
 */
bool net_pending(struct net *n);

/*
 * Block in the ring's own completion wait until a completion is ready or
 * ev_fd is readable: 0, -ETIMEDOUT (timeout_ns, 0 = none), or -EINTR.
 */
int net_wait(struct net *n, uint64_t timeout_ns);

/* Say goodbye to every peer (they see an orderly close), free n. */
void net_close(struct net *n);

/* A fork()ed child's copy: close its descriptors, free n, say nothing. */
void net_forget(struct net *n);

/*
 * Shared by net.c and net_peers.c, not part of the contract: split an
 * address list entry "host:port" or "[v6addr]:port" into a host of at most
 * NET_HOST_MAX - 1 characters and a port 1..65535; -EINVAL if it does not
 * parse.
 */
#define NET_HOST_MAX	256
int net_addr_split(const char *entry, char *host, size_t hostsz,
		   uint16_t *port);

#endif /* COSCHED_NET_H */
