// SPDX-License-Identifier: GPL-2.0
/*
 * cosched-hooks: attach, detach or show cosched's BPF arrival hooks.
 *
 *   cosched-hooks attach   load arrival.bpf.o, attach its programs, pin
 *                          their links under /sys/fs/bpf/cosched/ (they
 *                          stay after this exits) and switch the module's
 *                          built-in hooks off; already attached: nothing
 *   cosched-hooks detach   unpin the links (the programs go), switch the
 *                          built-in hooks back on; not attached: nothing
 *   cosched-hooks status   what is attached, and which path reports
 *
 * Needs cosched.ko loaded with BPF kfuncs (module BTF: the 6.12 kernels).
 * Elsewhere (6.1) it says so and changes nothing: the module's built-in
 * hooks report arrivals there.  Either every link is pinned or none is.
 * Exit status: 0 done (or nothing to do), 1 failure, 2 usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/mount.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "arrival.skel.h"

#define PIN_DIR		"/sys/fs/bpf/cosched"
#define BPFFS		"/sys/fs/bpf"
#define BPF_FS_MAGIC	0xcafe4a11
#define PARAM		"/sys/module/cosched/parameters/"

static const char *const links[] = { "tcp_data_ready", "ring_flush", "ring_post" };
#define NR_LINKS (sizeof(links) / sizeof(links[0]))

static int read_param(const char *name, char *buf, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), PARAM "%s", name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int write_param(const char *name, const char *val)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), PARAM "%s", name);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs(val, f);
	return fclose(f) ? -errno : 0;
}

static void pin_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, PIN_DIR "/%s", name);
}

static int nr_pinned(void)
{
	char p[256];
	int n = 0;

	for (size_t i = 0; i < NR_LINKS; i++) {
		pin_path(p, sizeof(p), links[i]);
		n += access(p, F_OK) == 0;
	}
	return n;
}

/* 0: the module takes BPF hooks; else prints why not and returns 1. */
static int module_ready(int quiet)
{
	char v[16];

	if (access("/sys/module/cosched", F_OK)) {
		if (!quiet)
			printf("cosched.ko is not loaded; nothing to attach\n");
		return 1;
	}
	if (read_param("bpf_kfuncs", v, sizeof(v)) || strcmp(v, "Y") ||
	    access("/sys/kernel/btf/cosched", F_OK)) {
		if (!quiet) {
			FILE *f = fopen("/proc/sys/kernel/osrelease", "r");
			char rel[64] = "this kernel";

			if (f) {
				if (fgets(rel, sizeof(rel), f))
					rel[strcspn(rel, "\n")] = 0;
				fclose(f);
			}
			printf("%s: no module BTF, so no cosched kfuncs: the module's "
			       "built-in hooks are active; nothing to attach\n", rel);
		}
		return 1;
	}
	return 0;
}

static int ensure_bpffs(void)
{
	struct statfs st;

	if (statfs(BPFFS, &st) == 0 && st.f_type == BPF_FS_MAGIC)
		return 0;
	if (mount("bpffs", BPFFS, "bpf", 0, NULL)) {
		fprintf(stderr, "cosched-hooks: cannot mount bpffs on %s: %s\n",
			BPFFS, strerror(errno));
		return -1;
	}
	printf("mounted bpffs on %s\n", BPFFS);
	return 0;
}

static void unpin_all(void)
{
	char p[256];

	for (size_t i = 0; i < NR_LINKS; i++) {
		pin_path(p, sizeof(p), links[i]);
		unlink(p);
	}
	rmdir(PIN_DIR);
}

static int do_attach(void)
{
	struct bpf_link *l[NR_LINKS] = { 0 };
	struct arrival_bpf *skel;
	char p[256];
	int n, err = 0;

	if (module_ready(0))
		return 0;
	if (ensure_bpffs())
		return 1;
	n = nr_pinned();
	if (n == (int)NR_LINKS) {
		write_param("builtin_hooks", "N");
		printf("already attached (%s); built-in hooks off\n", PIN_DIR);
		return 0;
	}
	if (n)	/* left over by someone else: start clean */
		unpin_all();

	skel = arrival_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "cosched-hooks: loading arrival.bpf.o failed: %s\n",
			strerror(errno));
		return 1;
	}
	l[0] = bpf_program__attach(skel->progs.cosched_tcp_data_ready);
	l[1] = bpf_program__attach(skel->progs.cosched_ring_flush);
	l[2] = bpf_program__attach(skel->progs.cosched_ring_post);
	if (mkdir(PIN_DIR, 0700) && errno != EEXIST) {
		fprintf(stderr, "cosched-hooks: %s: %s\n", PIN_DIR, strerror(errno));
		err = 1;
	}
	for (size_t i = 0; i < NR_LINKS && !err; i++) {
		pin_path(p, sizeof(p), links[i]);
		if (!l[i]) {
			fprintf(stderr, "cosched-hooks: attaching %s failed\n", links[i]);
			err = 1;
		} else if (bpf_link__pin(l[i], p)) {
			fprintf(stderr, "cosched-hooks: pinning %s: %s\n", p,
				strerror(errno));
			err = 1;
		}
	}
	if (err) {
		unpin_all();
		printf("nothing attached\n");
	} else if (write_param("builtin_hooks", "N")) {
		fprintf(stderr, "cosched-hooks: cannot switch the built-in hooks off\n");
		unpin_all();
		err = 1;
	} else {
		for (size_t i = 0; i < NR_LINKS; i++)
			printf("attached and pinned %s\n", bpf_link__pin_path(l[i]));
		printf("built-in hooks off for TCP data and io_uring completions: the BPF hooks report them\n");
	}
	/* The pins hold the links; these handles go. */
	for (size_t i = 0; i < NR_LINKS; i++)
		bpf_link__destroy(l[i]);
	arrival_bpf__destroy(skel);
	return err;
}

static int do_detach(void)
{
	int n = nr_pinned();

	/*
	 * Built-in reporting back on before the links go, so no arrival
	 * falls between the two; for a moment both report (an arrival
	 * counted twice only moves the count on further).
	 */
	if (!access("/sys/module/cosched", F_OK))
		write_param("builtin_hooks", "Y");
	unpin_all();
	if (n)
		printf("detached %d links from %s; built-in hooks on\n", n, PIN_DIR);
	else
		printf("not attached; built-in hooks on\n");
	return 0;
}

static int do_status(void)
{
	char v[16] = "?", k[16] = "?";
	int n = nr_pinned();

	if (access("/sys/module/cosched", F_OK)) {
		printf("module: not loaded\n");
	} else {
		read_param("builtin_hooks", v, sizeof(v));
		read_param("bpf_kfuncs", k, sizeof(k));
		printf("module: loaded, bpf_kfuncs=%s builtin_hooks=%s\n", k, v);
	}
	printf("bpf links pinned in %s: %d of %zu\n", PIN_DIR, n, NR_LINKS);
	if (n == (int)NR_LINKS && !strcmp(v, "N"))
		printf("arrivals reported by: BPF hooks\n");
	else if (!strcmp(v, "Y"))
		printf("arrivals reported by: the module's built-in hooks\n");
	else
		printf("arrivals reported by: nothing (run attach or detach)\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s attach|detach|status\n", argv[0]);
		return 2;
	}
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	if (!strcmp(argv[1], "attach"))
		return do_attach();
	if (!strcmp(argv[1], "detach"))
		return do_detach();
	if (!strcmp(argv[1], "status"))
		return do_status();
	fprintf(stderr, "usage: %s attach|detach|status\n", argv[0]);
	return 2;
}
