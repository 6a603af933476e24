/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util.h - small helpers the libcosched test programs share: naps, the
 * module's sysfs, and a send that waits for its peer to exist.
 */
#ifndef COSCHED_TEST_UTIL_H
#define COSCHED_TEST_UTIL_H

#include <cosched.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Write val to /sys/kernel/cosched/<name>: 0 or -errno. */
static inline int sysfs_write(const char *name, const char *val)
{
	char path[256];
	int fd, r = 0;

	snprintf(path, sizeof(path), "%s/%s", COSCHED_SYSFS_DIR, name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		r = -errno;
	close(fd);
	return r;
}

/* Send, retrying for about 5 s while the peer's endpoint does not exist. */
static inline int send_retry(struct cosched_ep *ep, uint32_t rank,
			     const void *b, size_t len)
{
	int err, i;

	for (i = 0; i < 5000; i++) {
		err = cosched_send(ep, rank, b, len);
		if (err != -ENOENT)
			return err;
		nap_ms(1);
	}
	return err;
}

#endif
