// SPDX-License-Identifier: GPL-2.0
/*
 * Sysfs: writes of valid and invalid values to every writable file in
 * /sys/kernel/cosched (whatever the module has, not a fixed list: policy
 * switches across all policies included), and reads of every file below
 * it, job directories that come and go included.
 */
#define _GNU_SOURCE
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A random regular file under dir (depth levels down); 0 or -errno. */
static int pick_file(struct ctx *c, const char *dir, int depth, bool writable,
		     char *out, size_t size)
{
	char names[64][64], base[512];
	int n = 0;
	struct dirent *d;
	DIR *dp;

	snprintf(base, sizeof(base), "%s", dir);	/* dir may be out */
	dp = opendir(base);

	if (!dp)
		return -errno;
	while ((d = readdir(dp)) && n < 64) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(names[n++], sizeof(names[0]), "%s", d->d_name);
	}
	closedir(dp);
	for (int tries = 0; n && tries < 8; tries++) {
		struct stat st;

		snprintf(out, size, "%s/%s", base, names[rng_below(&c->r, n)]);
		if (stat(out, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth > 0 &&
			    !pick_file(c, out, depth - 1, writable, out, size))
				return 0;
			continue;
		}
		if (!writable || (st.st_mode & 0222))
			return 0;
	}
	return -ENOENT;
}

static int read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

int sysfs_fuzz_write(struct ctx *c, u64 *a, u64 *b)
{
	char path[256], cur[512], val[512];
	const char *name;
	ssize_t n;
	int fd, r;

	r = pick_file(c, COSCHED_SYSFS_DIR, 0, true, path, sizeof(path));
	if (r)
		return -r;
	if (read_text(path, cur, sizeof(cur)))
		cur[0] = 0;
	name = strrchr(path, '/') + 1;
	gen_sysfs_value(&c->r, name, cur, val, sizeof(val));
	*a = (u64)name[0] << 8 | name[1];
	*b = strtoull(val, NULL, 10);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	n = write(fd, val, strlen(val));
	r = n < 0 ? errno : 0;
	close(fd);
	if (c->verbose)
		fprintf(stderr, "  sysfs %s <- '%.40s' -> %d\n", name, val, r);
	return r;
}

int sysfs_fuzz_read(struct ctx *c, u64 *a, u64 *b)
{
	char path[512], buf[4096];
	int r;

	r = pick_file(c, COSCHED_SYSFS_DIR, 2, false, path, sizeof(path));
	if (r)
		return -r;
	r = read_text(path, buf, sizeof(buf));
	*a = strlen(path);
	*b = r ? 0 : strlen(buf);
	return -r;
}

/*
 * The module's writable settings as they are now, on one line: what a
 * hang report needs (the fuzzer itself may have set budget_pct to 100).
 */
void sysfs_dump_tunables(FILE *out)
{
	char path[512], val[128];
	struct dirent *d;
	struct stat st;
	DIR *dp = opendir(COSCHED_SYSFS_DIR);

	fprintf(out, "# module settings:");
	while (dp && (d = readdir(dp))) {
		snprintf(path, sizeof(path), COSCHED_SYSFS_DIR "/%s", d->d_name);
		if (d->d_name[0] == '.' || stat(path, &st) ||
		    !S_ISREG(st.st_mode) || !(st.st_mode & 0200) ||
		    read_text(path, val, sizeof(val)))
			continue;
		val[strcspn(val, "\n")] = 0;
		fprintf(out, " %s=%s", d->d_name, val);
	}
	if (dp)
		closedir(dp);
	fprintf(out, "\n");
}
