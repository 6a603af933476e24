// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sockets.c - find the process's TCP sockets (/proc/self/fd, then
 * SO_DOMAIN and SO_PROTOCOL) and register each new one with the
 * endpoint, so that data arriving on any MPI connection, and a new
 * connection on a listening socket, wakes and boosts the waiting rank.
 * MPI libraries connect lazily: wait.c calls this again before blocking,
 * at most every glue.rescan_ns.
 */
#define _GNU_SOURCE
#include "glue.h"

#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* The sockets registered, by descriptor and inode (numbers get reused). */
struct sock_ent {
	int fd;
	ino_t ino;
	bool seen;
};

static struct sock_ent tab[COSCHED_MAX_HOOKS];
static int ntab;

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

static struct sock_ent *find(int fd, ino_t ino)
{
	int i;

	for (i = 0; i < ntab; i++)
		if (tab[i].fd == fd && tab[i].ino == ino)
			return &tab[i];
	return NULL;
}

/* Drop entries whose socket is gone; the module reaps their hooks. */
static void sweep(void)
{
	int i, n = 0;

	for (i = 0; i < ntab; i++)
		if (tab[i].seen)
			tab[n++] = tab[i];
	ntab = n;
}

static int add(struct cosched_ep *ep, int fd, ino_t ino)
{
	int err;

	if (ntab == COSCHED_MAX_HOOKS)
		return -ENOSPC;
	err = cosched_register_fd(ep, fd);
	if (err && err != -EEXIST)
		return err;
	tab[ntab].fd = fd;
	tab[ntab].ino = ino;
	tab[ntab].seen = true;
	ntab++;
	return err ? 0 : 1;
}

int glue_scan_sockets(struct cosched_ep *ep)
{
	uint64_t t0 = glue_now_ns();
	struct sock_ent *e;
	struct dirent *d;
	struct stat st;
	int i, fd, err, n = 0;
	DIR *dir;

	dir = opendir("/proc/self/fd");
	if (!dir)
		return -errno;
	for (i = 0; i < ntab; i++)
		tab[i].seen = false;
	while ((d = readdir(dir))) {
		fd = atoi(d->d_name);
		if (d->d_name[0] == '.' || fd == dirfd(dir) || !is_tcp(fd, &st))
			continue;
		e = find(fd, st.st_ino);
		if (e) {
			e->seen = true;
			continue;
		}
		err = add(ep, fd, st.st_ino);
		/* Full (-ENOSPC): the rest stay unwatched; timeouts cover. */
		if (err == -ENOSPC || err == -EBADF || err == -EEXIST)
			continue;
		if (err < 0) {
			n = err;	/* hooks unusable: ENOTTY, EINVAL */
			break;
		}
		n += err;
	}
	closedir(dir);
	sweep();
	glue.scans++;
	glue.scan_ns += glue_now_ns() - t0;
	if (n > 0)
		glue.registered += (uint64_t)n;
	return n < 0 ? n : ntab;
}

void glue_sockets_reset(void)
{
	ntab = 0;
}
