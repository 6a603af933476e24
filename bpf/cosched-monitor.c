// SPDX-License-Identifier: GPL-2.0
/*
 * cosched-monitor - per-node (CPU), per-job CPU share over time, context
 * switches, on-CPU vs blocked vs preempted time and coscheduling degree,
 * from one BPF program on sched_switch.  Needs root, not the cosched
 * module.  See Documentation/monitor.rst.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "mon.h"
#include "monitor.skel.h"

static const char usage[] =
"usage: cosched-monitor [-i INTERVAL_S] [-d DURATION_S] [--csv FILE|-] [--live]\n"
"                       [--job NAME=PID,PID,...]... [--cgroup NAME=/sys/fs/cgroup/PATH]...\n"
"  -i, --interval S   seconds per row (default 1)\n"
"  -d, --duration S   stop after S seconds (default: at SIGINT/SIGTERM)\n"
"      --csv FILE     CSV rows to FILE ('-': stdout, the default without --live)\n"
"      --live         redraw a per-job view on stdout each interval\n"
"      --job N=PIDS   a job whose ranks are these processes (all their threads)\n"
"      --cgroup N=DIR a job made of every process under this cgroup v2 directory\n";

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int libbpf_warnings(enum libbpf_print_level level, const char *fmt,
			   va_list ap)
{
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, ap);
}

/* Online CPUs, as /sys lists them ("0-3,6"), that fit MON_MAX_CPUS. */
static int online_cpus(struct mon_cpus *cpus)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int a, b, c;
	char sep;

	cpus->n = 0;
	if (!f)
		return -1;
	while (fscanf(f, "%d", &a) == 1) {
		b = a;
		sep = fgetc(f);
		if (sep == '-' && fscanf(f, "%d", &b) == 1)
			sep = fgetc(f);
		for (c = a; c <= b && c < MON_MAX_CPUS; c++)
			cpus->id[cpus->n++] = c;
		if (sep != ',')
			break;
	}
	fclose(f);
	if (b >= MON_MAX_CPUS)
		fprintf(stderr, "warning: CPUs from %d on are not monitored\n",
			MON_MAX_CPUS);
	return cpus->n ? 0 : -1;
}

/*
 * Make every CPU switch once.  A tracked thread that was already running
 * when the program attached is otherwise not counted as on a CPU (nor its
 * rank in the degree) until its first switch, which for a busy process on
 * an idle CPU may be seconds away.  Running briefly on each CPU as
 * SCHED_FIFO preempts whatever is there at once; counting starts after.
 */
static void sync_cpus(const struct mon_cpus *cpus)
{
	struct sched_param fifo = { .sched_priority = 1 }, other = { 0 };
	struct timespec nap = { 0, 200000 };
	cpu_set_t saved, one;
	int k, rt;

	if (sched_getaffinity(0, sizeof(saved), &saved))
		return;
	rt = !sched_setscheduler(0, SCHED_FIFO, &fifo);
	for (k = 0; k < cpus->n; k++) {
		CPU_ZERO(&one);
		CPU_SET(cpus->id[k], &one);
		/* Returns once this thread runs on that CPU... */
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		/* ...and sleeping switches back to whatever runs there. */
		nanosleep(&nap, NULL);
	}
	if (rt)
		sched_setscheduler(0, SCHED_OTHER, &other);
	sched_setaffinity(0, sizeof(saved), &saved);
}

struct options {
	double interval, duration;
	const char *csv;
	bool live;
	struct mon_jobs jobs;
};

static int parse(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 'd' },
		{ "csv", required_argument, NULL, 'c' },
		{ "live", no_argument, NULL, 'l' },
		{ "job", required_argument, NULL, 'j' },
		{ "cgroup", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	o->interval = 1;
	while ((opt = getopt_long(argc, argv, "i:d:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			o->interval = atof(optarg);
			break;
		case 'd':
			o->duration = atof(optarg);
			break;
		case 'c':
			o->csv = optarg;
			break;
		case 'l':
			o->live = true;
			break;
		case 'j':
			if (mon_jobs_add_pids(&o->jobs, optarg))
				return -1;
			break;
		case 'g':
			if (mon_jobs_add_cgroup(&o->jobs, optarg))
				return -1;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			fputs(usage, stderr);
			return -1;
		}
	}
	if (optind < argc || o->interval < 0.01 || o->duration < 0) {
		fputs(usage, stderr);
		return -1;
	}
	if (!o->jobs.n) {
		fprintf(stderr, "no job: give at least one --job or --cgroup\n");
		return -1;
	}
	if (o->live && o->csv && !strcmp(o->csv, "-")) {
		fprintf(stderr, "--live draws on stdout: give --csv a file\n");
		return -1;
	}
	if (!o->live && !o->csv)
		o->csv = "-";
	return 0;
}

static void sleep_until(__u64 t_ns)
{
	struct timespec ts = { t_ns / 1000000000ull, t_ns % 1000000000ull };

	/* A signal (no SA_RESTART) cuts the wait short: the caller checks stop. */
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/*
 * How long a snapshot may take to read: 0.2% of an interval, so that a
 * share it prints is off by no more than that.
 */
static __u64 slack_ns(const struct options *o)
{
	return o->interval * 1e9 / 500;
}

/* Sample, print the interval since `prev`, make it the new `prev`. */
static int emit(struct monitor_bpf *skel, struct options *o, FILE *csv,
		const struct mon_cpus *cpus, struct mon_snap *prev, __u64 t0)
{
	static struct mon_snap cur, d;
	double t;
	int err;

	mon_jobs_refresh(&o->jobs, skel);
	err = mon_sample(skel, o->jobs.n, &cur, slack_ns(o));
	if (err)
		return err;
	mon_delta(&cur, prev, &d);
	if (!d.t_ns)
		return 0;
	t = (cur.t_ns - t0) / 1e9;
	if (csv)
		mon_csv_rows(csv, t, &d, &o->jobs, cpus);
	if (o->live)
		mon_live(stdout, t, &d, &o->jobs, cpus);
	*prev = cur;
	return 0;
}

static int run(struct monitor_bpf *skel, struct options *o, FILE *csv,
	       const struct mon_cpus *cpus)
{
	static struct mon_snap prev;
	__u64 t0, end, next, step = o->interval * 1e9;
	int err;

	skel->bss->attach_ns = mon_now_ns();
	err = monitor_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "attach: %s\n", strerror(-err));
		return err;
	}
	sync_cpus(cpus);
	err = mon_sample(skel, o->jobs.n, &prev, slack_ns(o));
	if (err)
		return err;
	t0 = prev.t_ns;
	end = o->duration ? t0 + (__u64)(o->duration * 1e9) : 0;
	if (csv)
		mon_csv_header(csv);
	for (next = t0 + step; !stop; next += step) {
		if (end && next > end)
			next = end;
		sleep_until(next);
		/* Cut short by a signal: print the partial interval if it is not a sliver. */
		if (stop && mon_now_ns() < prev.t_ns + step / 20)
			break;
		err = emit(skel, o, csv, cpus, &prev, t0);
		if (err || (end && next >= end))
			break;
	}
	if (skel->bss->dropped_tasks || skel->bss->dropped_ranks)
		fprintf(stderr, "warning: maps full, %llu thread and %llu process records dropped\n",
			skel->bss->dropped_tasks, skel->bss->dropped_ranks);
	if (skel->bss->missed_switches)
		fprintf(stderr, "note: %llu switches of tracked threads were not traced; the degree undercounts\n",
			skel->bss->missed_switches);
	return err;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct monitor_bpf *skel;
	static struct options o;
	struct mon_cpus cpus;
	FILE *csv = NULL;
	int err;

	if (parse(argc, argv, &o))
		return 2;
	if (online_cpus(&cpus)) {
		fprintf(stderr, "cannot read the online CPUs\n");
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	libbpf_set_print(libbpf_warnings);

	skel = monitor_bpf__open();
	if (!skel) {
		fprintf(stderr, "cannot open the BPF object\n");
		return 1;
	}
	skel->rodata->have_cgroups = o.jobs.have_cgroups;
	err = monitor_bpf__load(skel);
	if (err) {
		fprintf(stderr, "load: %s (root needed; the verifier log is above)\n",
			strerror(-err));
		goto out;
	}
	err = mon_jobs_register(&o.jobs, skel);
	if (err)
		goto out;
	if (o.csv) {
		csv = strcmp(o.csv, "-") ? fopen(o.csv, "w") : stdout;
		if (!csv) {
			perror(o.csv);
			err = -errno;
			goto out;
		}
	}
	err = run(skel, &o, csv, &cpus);
out:
	/* Links and maps go with the skeleton: nothing is pinned. */
	monitor_bpf__destroy(skel);
	if (csv && csv != stdout)
		fclose(csv);
	return err ? 1 : 0;
}
