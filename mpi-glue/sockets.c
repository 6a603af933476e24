// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sockets.c - register the process's TCP sockets with the endpoint's
 * arrival hooks as MPI makes them usable (netcalls.c calls in after a
 * connect(), accept(), accept4() or listen()), so that data arriving on
 * any MPI connection, and a new connection on a listening socket, wakes
 * and boosts the waiting rank.  No scan of /proc/self/fd: nothing on the
 * wait path, no window where a closed descriptor's number is reused.
 *
 * MPI_Init makes its first connections before the glue can make the
 * endpoint (it needs MPI_COMM_WORLD's rank): those are remembered, by
 * descriptor and inode, and registered when the endpoint exists.  Sockets
 * the preloaded glue never saw made (inherited from the launcher, passed
 * over a Unix socket) are not MPI's connections: not looked for.
 *
 * Under local with a polling wait the glue cannot help (wait.c,
 * glue_helps), and a registered socket costs the module's work on every
 * segment it receives: the job's sockets are then parked, remembered as
 * before the endpoint, and registered when the glue first can help.
 *
 * The glue keeps no table of what it registered: the module refuses a
 * socket registered twice (-EEXIST) and drops a closed socket's hook by
 * itself.  A registration the module refuses for its limit on hooks
 * (-ENOSPC) is counted (stats.full) and said once under
 * COSCHED_MPI_VERBOSE; the wait's timeout covers such a socket.
 */
#define _GNU_SOURCE
#include "sockets.h"

#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

int glue_socks_mode;

/* Everything below, against the MPI's threads and MPI_Finalize. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct cosched_ep *ep;
static struct glue_socks_stats stats;
static int rank;
static bool verbose, warned_full;
bool glue_socks_parked;

/* SOCKS_REMEMBER: the sockets made before the endpoint, or parked. */
struct sock_ent {
	int fd;
	ino_t ino;
};

static struct sock_ent *pending;
static size_t npending, cap;

static bool is_tcp(int fd, struct stat *st)
{
	int dom, proto;
	socklen_t len = sizeof(int);

	if (fstat(fd, st) || !S_ISSOCK(st->st_mode))
		return false;
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) ||
	    (dom != AF_INET && dom != AF_INET6))
		return false;
	len = sizeof(int);
	return !getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) &&
	       proto == IPPROTO_TCP;
}

/* The socket remembered as fd is still open under that number. */
static bool still_open(const struct sock_ent *e)
{
	struct stat st;

	return !fstat(e->fd, &st) && st.st_ino == e->ino;
}

/*
 * Keep fd until the endpoint exists.  A process that never makes one
 * (preloaded, MPI_Init not called yet) keeps only its open sockets: the
 * closed ones go before the list grows.
 */
static void remember(int fd, ino_t ino)
{
	struct sock_ent *p;
	size_t i, n = 0;

	for (i = 0; i < npending; i++)
		if (pending[i].fd == fd) {
			pending[i].ino = ino;	/* the number was reused */
			return;
		}
	if (npending == cap) {
		for (i = 0; i < npending; i++)
			if (still_open(&pending[i]))
				pending[n++] = pending[i];
		npending = n;
	}
	if (npending == cap) {
		p = realloc(pending, (cap ? 2 * cap : 16) * sizeof(*p));
		if (!p)
			return;		/* the wait's timeout covers it */
		pending = p;
		cap = cap ? 2 * cap : 16;
	}
	pending[npending].fd = fd;
	pending[npending].ino = ino;
	npending++;
}

/* Register one socket; 0, or the error that makes the hooks unusable. */
static int add(int fd)
{
	int err = cosched_register_fd(ep, fd);

	switch (err) {
	case 0:
		stats.registered++;
		return 0;
	case -EEXIST:		/* connect() again, or listed twice */
		return 0;
	case -ENOSPC:
		stats.full++;
		if (verbose && !warned_full) {
			warned_full = true;
			fprintf(stderr,
				"cosched-mpi: rank %d: the module watches no more sockets (ENOSPC, its limit on hooks): socket %d and later ones end a wait only at its timeout\n",
				rank, fd);
		}
		return 0;
	case -EBADF:		/* closed by another thread meanwhile */
		stats.failed++;
		return 0;
	default:		/* ENOTTY, EINVAL, EOPNOTSUPP: no hooks */
		stats.failed++;
		return err;
	}
}

/*
 * A child of fork() shares the endpoint's file but is no rank of the
 * job: its sockets are not registered.  The lock is held across fork()
 * so that the child's copy is not left locked by another thread.
 */
static void fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

static void fork_child(void)
{
	__atomic_store_n(&glue_socks_mode, SOCKS_OFF, __ATOMIC_RELAXED);
	ep = NULL;
	npending = 0;
	glue_socks_parked = false;
	pthread_mutex_unlock(&lock);
}

void glue_socks_arm(void)
{
	static bool atfork;

	if (!atfork && !pthread_atfork(fork_prepare, fork_parent, fork_child))
		atfork = true;
	pthread_mutex_lock(&lock);
	if (glue_socks_mode == SOCKS_OFF && !ep)
		__atomic_store_n(&glue_socks_mode, SOCKS_REMEMBER,
				 __ATOMIC_RELAXED);
	pthread_mutex_unlock(&lock);
}

/* The list of sockets remembered, detached: the caller frees it. */
static struct sock_ent *take_remembered(void)
{
	struct sock_ent *p = pending;

	pending = NULL;
	npending = 0;
	cap = 0;
	return p;
}

/*
 * Register the sockets remembered that are still open; 0 or -errno.
 * At the endpoint's start the first error stops it (the job goes
 * plain); at unpark nothing can go plain any more, so with all each
 * socket is tried, and one refused is counted in stats and left to the
 * wait's timeout.
 */
static int add_remembered(bool all)
{
	size_t i, n = npending;
	struct sock_ent *p = take_remembered();
	int err = 0;

	for (i = 0; i < n && (all || !err); i++)
		if (still_open(&p[i]))
			err = add(p[i].fd);
	free(p);
	return err;
}

static size_t open_remembered(void)
{
	size_t i, n = 0;

	for (i = 0; i < npending; i++)
		n += still_open(&pending[i]);
	return n;
}

/*
 * Can the module watch TCP sockets?  Asked with a socket of the glue's
 * own, registered and unregistered again, so that no segment of MPI's
 * is counted meanwhile: a module that cannot makes the job plain now,
 * as it would unparked.  0, 1 when no socket could be made to ask with,
 * or -errno.
 */
static int probe_hooks(void)
{
	int fd, err;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 1;
	err = cosched_register_fd(ep, fd);
	if (!err)
		cosched_unregister_fd(ep, fd);
	close(fd);
	return err;
}

int glue_socks_start(struct cosched_ep *e, int r, bool v, bool park)
{
	size_t n;
	int ret;

	pthread_mutex_lock(&lock);
	ep = e;
	rank = r;
	verbose = v;
	n = park ? open_remembered() : 0;
	ret = n ? probe_hooks() : 1;
	if (!ret) {
		/* Still remembering: new sockets join the parked. */
		__atomic_store_n(&glue_socks_parked, true, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&lock);
		return (int)n;
	}
	if (ret == 1)
		ret = add_remembered(false);
	if (ret)		/* the job goes plain: forget them */
		free(take_remembered());
	__atomic_store_n(&glue_socks_mode, ret ? SOCKS_OFF : SOCKS_REGISTER,
			 __ATOMIC_RELAXED);
	if (!ret)
		ret = (int)stats.registered;
	pthread_mutex_unlock(&lock);
	return ret;
}

void glue_socks_unpark(void)
{
	uint64_t failed;

	/* Acquire: a thread that saw it cleared sees the registrations. */
	if (!__atomic_load_n(&glue_socks_parked, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&lock);
	if (glue_socks_parked && ep) {
		failed = stats.failed;
		add_remembered(true);
		__atomic_store_n(&glue_socks_mode, SOCKS_REGISTER,
				 __ATOMIC_RELAXED);
		if (verbose && stats.failed != failed)
			fprintf(stderr,
				"cosched-mpi: rank %d: %llu parked sockets not registered (closed meanwhile, or refused by the module): a message on a refused one ends a wait only at its timeout\n",
				rank,
				(unsigned long long)(stats.failed - failed));
	}
	__atomic_store_n(&glue_socks_parked, false, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock);
}

void glue_socks_stop(void)
{
	struct sock_ent *p;

	pthread_mutex_lock(&lock);
	__atomic_store_n(&glue_socks_mode, SOCKS_OFF, __ATOMIC_RELAXED);
	__atomic_store_n(&glue_socks_parked, false, __ATOMIC_RELAXED);
	ep = NULL;
	p = take_remembered();
	pthread_mutex_unlock(&lock);
	free(p);
}

void glue_socks_new(int fd)
{
	struct stat st;

	if (!is_tcp(fd, &st))
		return;
	pthread_mutex_lock(&lock);
	if (glue_socks_mode == SOCKS_REGISTER)
		add(fd);
	else if (glue_socks_mode == SOCKS_REMEMBER)
		remember(fd, st.st_ino);
	pthread_mutex_unlock(&lock);
}

void glue_socks_get_stats(struct glue_socks_stats *st)
{
	pthread_mutex_lock(&lock);
	*st = stats;
	st->parked = glue_socks_parked ? open_remembered() : 0;
	pthread_mutex_unlock(&lock);
}
