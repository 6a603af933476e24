// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * netcalls.c - connect(), accept(), accept4() and listen(), interposed
 * by the preloaded glue: the calls that make a TCP socket usable, so
 * that sockets.c registers each one when it is made, by whichever thread
 * (Open MPI accepts in its progress thread, UCX has its own).  Each
 * calls the C library's function; then, only when the glue is active
 * (glue_socks_mode, one branch otherwise), hands the socket on, keeping
 * errno exactly as the real call set it.
 */
#define _GNU_SOURCE
#include "sockets.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <sys/socket.h>

/* The next definition of sym (the C library's), looked up once. */
static void *real(void **cache, const char *sym)
{
	void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);

	if (__builtin_expect(!f, 0)) {
		f = dlsym(RTLD_NEXT, sym);
		__atomic_store_n(cache, f, __ATOMIC_RELEASE);
	}
	return f;
}

/* The C library's function, as ft *f; errno ENOSYS if there is none. */
#define REAL(ft, sym)							\
	static void *cache_##sym;					\
	ft *f = (ft *)real(&cache_##sym, #sym);				\
	if (__builtin_expect(!f, 0)) {					\
		errno = ENOSYS;						\
		return -1;						\
	}

typedef int connect_fn(int, __CONST_SOCKADDR_ARG, socklen_t);
typedef int accept_fn(int, __SOCKADDR_ARG, socklen_t *restrict);
typedef int accept4_fn(int, __SOCKADDR_ARG, socklen_t *restrict, int);
typedef int listen_fn(int, int);

static inline bool active(void)
{
	return __builtin_expect(__atomic_load_n(&glue_socks_mode,
						__ATOMIC_RELAXED) != SOCKS_OFF,
				0);
}

/* fd is a socket now connected, connecting, listening or accepted. */
static void made(int fd)
{
	int saved = errno;

	glue_socks_new(fd);
	errno = saved;
}

int connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	REAL(connect_fn, connect);
	int rc = f(fd, addr, len);

	/* A non-blocking connect in progress is MPI's connection too. */
	if (active() && (rc == 0 || errno == EINPROGRESS))
		made(fd);
	return rc;
}

int accept(int fd, __SOCKADDR_ARG addr, socklen_t *restrict len)
{
	REAL(accept_fn, accept);
	int rc = f(fd, addr, len);

	if (active() && rc >= 0)
		made(rc);
	return rc;
}

int accept4(int fd, __SOCKADDR_ARG addr, socklen_t *restrict len, int flags)
{
	REAL(accept4_fn, accept4);
	int rc = f(fd, addr, len, flags);

	if (active() && rc >= 0)
		made(rc);
	return rc;
}

/* A listening socket: the module reports its new connections. */
int listen(int fd, int backlog)
{
	REAL(listen_fn, listen);
	int rc = f(fd, backlog);

	if (active() && rc == 0)
		made(fd);
	return rc;
}
