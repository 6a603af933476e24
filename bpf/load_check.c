// SPDX-License-Identifier: GPL-2.0
/*
 * bpf-load-check OBJ...: for each BPF object, load it (the verifier must
 * accept every program) and attach every program where its section name
 * says, then tear it all down.  One TAP line per object.
 *
 * bpftool 7.1 cannot auto-attach and would need a bpffs pin to keep a
 * program loaded; this needs neither, so a failed run leaves nothing.
 * Objects are loaded with their default .rodata, so code behind a
 * load-time switch that defaults to off is left to the tool's own tests.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

static char last_err[4096];

/* Keep libbpf's warnings (the verifier log among them) for the report. */
static int keep_warnings(enum libbpf_print_level level, const char *fmt,
			 va_list ap)
{
	size_t len = strlen(last_err);

	if (level == LIBBPF_DEBUG || len >= sizeof(last_err) - 1)
		return 0;
	return vsnprintf(last_err + len, sizeof(last_err) - len, fmt, ap);
}

static int check_object(const char *path, char *why, size_t whylen)
{
	struct bpf_link *links[64];
	struct bpf_program *prog;
	struct bpf_object *obj;
	int nlinks = 0, err = 0;

	obj = bpf_object__open_file(path, NULL);
	if (!obj) {
		snprintf(why, whylen, "open failed");
		return -1;
	}
	if (bpf_object__load(obj)) {
		snprintf(why, whylen, "load (verifier) failed");
		err = -1;
		goto out;
	}
	bpf_object__for_each_program(prog, obj) {
		struct bpf_link *link = bpf_program__attach(prog);

		if (!link) {
			snprintf(why, whylen, "attach of %s failed",
				 bpf_program__name(prog));
			err = -1;
			break;
		}
		if (nlinks == (int)(sizeof(links) / sizeof(links[0]))) {
			bpf_link__destroy(link);
			snprintf(why, whylen, "too many programs");
			err = -1;
			break;
		}
		links[nlinks++] = link;
	}
	if (!err)
		snprintf(why, whylen, "%d program(s) loaded and attached",
			 nlinks);
	while (nlinks)
		bpf_link__destroy(links[--nlinks]);
out:
	bpf_object__close(obj);
	return err;
}

int main(int argc, char **argv)
{
	int i, failed = 0;
	char why[256];

	libbpf_set_print(keep_warnings);
	for (i = 1; i < argc; i++) {
		last_err[0] = '\0';
		if (check_object(argv[i], why, sizeof(why))) {
			failed++;
			printf("not ok - load %s: %s\n", argv[i], why);
			fputs(last_err, stdout);
		} else {
			printf("ok - load %s: %s\n", argv[i], why);
		}
	}
	return failed ? 1 : 0;
}
