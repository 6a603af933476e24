// SPDX-License-Identifier: GPL-2.0
/*
 * msgbench.c - options, iteration counts, clocks, statistics and output
 * shared by the message benchmarks; see msgbench.h.
 */
#define _GNU_SOURCE
#include "msgbench.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* The thesis's Fig 6.2 range, every third power of two. */
static const size_t def_sizes[] = { 8, 64, 512, 4096, 32768, 262144, 1048576 };

/*
 * Above this size a round trip is dominated by copying, which TCG does
 * slowly: the count shrinks in proportion so that each size costs about
 * the same time.
 */
#define SMALL_SIZE	4096
#define MIN_ITERS	20

static void usage(const char *modes)
{
	fprintf(stderr,
		"usage: [-s sizes] [-n iters] [-w warmup] [-m %s] [-t lat|bw|both]\n"
		"       [-B bw_bytes] [-q]\n", modes);
	exit(2);
}

static size_t parse_size(const char *s, const char *modes)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		usage(modes);
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (*end && *end != ',')
		usage(modes);
	return (size_t)v;
}

void mb_parse(struct mb_opts *o, int argc, char **argv, const char *modes,
	      const char *def_mode)
{
	const char *p;
	int c;

	memset(o, 0, sizeof(*o));
	memcpy(o->sizes, def_sizes, sizeof(def_sizes));
	o->nsizes = sizeof(def_sizes) / sizeof(def_sizes[0]);
	o->iters = 2000;
	o->warmup = -1;
	o->mode = def_mode;
	o->what = MB_WHAT_LAT | MB_WHAT_BW;
	o->bw_bytes = 32u << 20;
	while ((c = getopt(argc, argv, "s:n:w:m:t:B:qh")) != -1) {
		switch (c) {
		case 's':
			o->nsizes = 0;
			for (p = optarg; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
				if (o->nsizes == MB_MAX_SIZES)
					usage(modes);
				o->sizes[o->nsizes++] = parse_size(p, modes);
			}
			break;
		case 'n':
			o->iters = atol(optarg);
			break;
		case 'w':
			o->warmup = atol(optarg);
			break;
		case 'm':
			o->mode = optarg;
			break;
		case 't':
			if (!strcmp(optarg, "lat"))
				o->what = MB_WHAT_LAT;
			else if (!strcmp(optarg, "bw"))
				o->what = MB_WHAT_BW;
			else if (!strcmp(optarg, "both"))
				o->what = MB_WHAT_LAT | MB_WHAT_BW;
			else
				usage(modes);
			break;
		case 'B':
			o->bw_bytes = parse_size(optarg, modes);
			break;
		case 'q':
			o->quiet = true;
			break;
		default:
			usage(modes);
		}
	}
	if (o->iters < 1 || optind != argc)
		usage(modes);
}

long mb_iters(const struct mb_opts *o, size_t size)
{
	long n = o->iters;

	/* -q runs count system calls: they need exactly the count asked for. */
	if (o->quiet || size <= SMALL_SIZE)
		return n;
	n = (long)((double)n * SMALL_SIZE / (double)size);
	if (n < MIN_ITERS)
		n = o->iters < MIN_ITERS ? o->iters : MIN_ITERS;
	return n;
}

long mb_warmup(const struct mb_opts *o, size_t size)
{
	return o->warmup >= 0 ? o->warmup : mb_iters(o, size) / 10;
}

long mb_bw_msgs(const struct mb_opts *o, size_t size)
{
	long n = (long)(o->bw_bytes / (size ? size : 1));

	if (n > 4 * o->iters)
		n = 4 * o->iters;
	return n < 8 ? 8 : n;
}

uint64_t mb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t mb_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void mb_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(2);
	}
}

void *mb_shared(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

double mb_quantile(uint64_t *v, long n, double q)
{
	long i;

	if (n <= 0)
		return -1;
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	/* Nearest rank: the smallest value with at least q of them at or below. */
	i = (long)(q * (double)n + 0.999999) - 1;
	if (i < 0)
		i = 0;
	if (i >= n)
		i = n - 1;
	return (double)v[i];
}

static void field(const char *name, double v, int prec)
{
	if (v < 0)
		printf(" %s=n/a", name);
	else
		printf(" %s=%.*f", name, prec, v);
}

void mb_print(const char *bench, const char *mode, const char *policy,
	      size_t size, const struct mb_result *r, const char *extra)
{
	printf("bench=%s policy=%s mode=%s size=%zu iters=%ld", bench,
	       policy, mode, size, r->iters);
	field("lat_ns_p50", r->lat_p50, 0);
	field("lat_ns_p99", r->lat_p99, 0);
	field("mbps", r->mbps, 1);
	field("cpu_ns_per_msg", r->cpu_per_msg, 0);
	field("doorbell_frac", r->doorbell_frac, 3);
	field("blocks_per_msg", r->blocks_per_msg, 3);
	if (extra)
		printf(" %s", extra);
	printf("\n");
	fflush(stdout);
}

void mb_barrier(struct mb_sync *s, int side, uint64_t *step)
{
	++*step;
	__atomic_store_n(&s->arrived[side], *step, __ATOMIC_RELEASE);
	while (__atomic_load_n(&s->arrived[!side], __ATOMIC_ACQUIRE) < *step)
		mb_relax();
}
