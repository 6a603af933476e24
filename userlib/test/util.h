/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * util.h - small helpers the libcosched test programs share: naps, the
 * module's sysfs, a send that waits for its peer to exist, and message
 * contents that show any misplaced byte.
 */
#ifndef COSCHED_TEST_UTIL_H
#define COSCHED_TEST_UTIL_H

#include <cosched.h>

#include <stdbool.h>
#include <stdint.h>

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

/* Byte i of test message seq: differs between messages and positions. */
static inline unsigned char pattern_byte(uint32_t seq, size_t i)
{
	return (unsigned char)(seq * 131u + i * 7u + (i >> 8));
}

static inline void pattern_fill(unsigned char *b, uint32_t seq, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = pattern_byte(seq, i);
}

static inline bool pattern_check(const unsigned char *b, uint32_t seq,
				 size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != pattern_byte(seq, i))
			return false;
	return true;
}

#endif
