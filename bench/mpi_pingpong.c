// SPDX-License-Identifier: GPL-2.0
/*
 * mpi_pingpong - the MPI baseline for the message benchmarks: a plain,
 * unmodified MPI program (no cosched calls; an MPI glue library can be
 * preloaded into it later) between two ranks, measuring for each size
 *
 *   lat_ns_p50, lat_ns_p99  one-way latency, half of each timed round trip
 *                           (MPI_Send/MPI_Recv ping-pong), after a warm-up
 *   lat_ns_mean             the same, mean over the timed loop
 *   mbps                    streaming bandwidth, 10^6 bytes/s: rank 0 keeps
 *                           WINDOW MPI_Isend in flight, rank 1 answers each
 *                           window with a 1-byte ack (as the OSU bw test)
 *   cpu_ns_per_msg          CPU time of both processes (user + system,
 *                           CLOCK_PROCESS_CPUTIME_ID, summed on rank 0)
 *                           over the ping-pong, per message sent
 *
 * Options, round counts, statistics and the output line are msgbench's
 * (msgbench.h), so the numbers sit in one table with raw_ring's and
 * cosched_pingpong's: -s sizes, -n round trips (fewer above 4 KiB), -w,
 * -t lat|bw|both, -B bytes streamed, -q.  -m takes only "poll": both MPIs
 * receive by spinning in their progress engines, whatever we ask.
 * bench= names the MPI library the binary runs on (from
 * MPI_Get_library_version, so a binary linked to the wrong MPI says so);
 * policy= is "-" (the program knows nothing of cosched: the script that
 * runs it fills it in).
 *
 * usage: mpiexec -n 2 mpi_pingpong [msgbench options]
 */
#define _GNU_SOURCE
#include "msgbench.h"

#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WINDOW		16
#define TAG_PING	1
#define TAG_BW		2
#define TAG_ACK		3

static int rank;

static void die(const char *msg)
{
	fprintf(stderr, "mpi_pingpong: rank %d: %s\n", rank, msg);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* n round trips of size bytes; rank 0 stores each round trip's ns in rtt. */
static void pingpong(char *sbuf, char *rbuf, long size, long n, uint64_t *rtt)
{
	long i;

	for (i = 0; i < n; i++) {
		if (rank == 0) {
			uint64_t t0 = rtt ? mb_now_ns() : 0;

			MPI_Send(sbuf, size, MPI_CHAR, 1, TAG_PING, MPI_COMM_WORLD);
			MPI_Recv(rbuf, size, MPI_CHAR, 1, TAG_PING, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			if (rtt)
				rtt[i] = mb_now_ns() - t0;
		} else {
			MPI_Recv(rbuf, size, MPI_CHAR, 0, TAG_PING, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			/* Echo what arrived, so rank 0 can check the payload. */
			MPI_Send(rbuf, size, MPI_CHAR, 0, TAG_PING, MPI_COMM_WORLD);
		}
	}
}

/* n windows of WINDOW messages from rank 0 to rank 1, each acknowledged. */
static void stream(char *sbuf, char *rbuf, long size, long n)
{
	MPI_Request req[WINDOW];
	/*
	 * A real array, not MPI_STATUSES_IGNORE: MPICH defines that as
	 * (MPI_Status *)1, which gcc 12 flags as an overflow (-Wstringop-overflow).
	 */
	MPI_Status st[WINDOW];
	char ack = 0;
	long i;
	int w;

	for (i = 0; i < n; i++) {
		for (w = 0; w < WINDOW; w++) {
			/* Distinct slices of the buffer: the sends are in flight together. */
			if (rank == 0)
				MPI_Isend(sbuf + w * size, size, MPI_CHAR, 1, TAG_BW,
					  MPI_COMM_WORLD, &req[w]);
			else
				MPI_Irecv(rbuf + w * size, size, MPI_CHAR, 0, TAG_BW,
					  MPI_COMM_WORLD, &req[w]);
		}
		MPI_Waitall(WINDOW, req, st);
		if (rank == 0)
			MPI_Recv(&ack, 1, MPI_CHAR, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		else
			MPI_Send(&ack, 1, MPI_CHAR, 0, TAG_ACK, MPI_COMM_WORLD);
	}
}

/*
 * Rank 0 prints where each rank may run, as "# rank R cpus 0,1,...":
 * the script that launches us asks the MPI to pin rank R to CPU R, and
 * this is how a reader of the output sees that it did.
 */
static void report_affinity(void)
{
	char mine[128] = "", all[2][128];
	cpu_set_t set;
	int c, len = 0;

	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		for (c = 0; c < CPU_SETSIZE && len < (int)sizeof(mine) - 8; c++)
			if (CPU_ISSET(c, &set))
				len += snprintf(mine + len, sizeof(mine) - len, "%s%d",
						len ? "," : "", c);
	}
	MPI_Gather(mine, sizeof(mine), MPI_CHAR, all, sizeof(mine), MPI_CHAR, 0,
		   MPI_COMM_WORLD);
	if (rank == 0)
		for (c = 0; c < 2; c++)
			printf("# rank %d cpus %s\n", c, all[c]);
}

static const char *library_name(void)
{
	char v[MPI_MAX_LIBRARY_VERSION_STRING];
	int len;

	MPI_Get_library_version(v, &len);
	if (strstr(v, "Open MPI"))
		return "openmpi";
	if (strstr(v, "MPICH"))
		return "mpich";
	return "mpi";
}

/* One size: ping-pong and/or streaming as o->what says; rank 0 prints. */
static void one_size(const struct mb_opts *o, char *sbuf, char *rbuf,
		     uint64_t *rtt, long size)
{
	struct mb_result r = { -1, -1, -1, -1, -1, -1, -1 };
	double mean = -1;
	char extra[64];

	if (o->what & MB_WHAT_LAT) {
		long n = mb_iters(o, size);
		uint64_t cpu, cpusum = 0, t0, wall;

		/* Connections, rendezvous buffers and caches are warm after this. */
		pingpong(sbuf, rbuf, size, mb_warmup(o, size), NULL);
		MPI_Barrier(MPI_COMM_WORLD);
		cpu = cpu_ns();
		t0 = mb_now_ns();
		pingpong(sbuf, rbuf, size, n, o->quiet ? NULL : rtt);
		wall = mb_now_ns() - t0;
		cpu = cpu_ns() - cpu;
		MPI_Reduce(&cpu, &cpusum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
		if (rank == 0 && memcmp(sbuf, rbuf, size))
			die("echoed payload differs from what was sent");
		r.iters = n;
		if (!o->quiet) {
			r.lat_p50 = mb_quantile(rtt, n, 0.50) / 2;
			r.lat_p99 = mb_quantile(rtt, n, 0.99) / 2;
		}
		mean = (double)wall / (double)n / 2;
		r.cpu_per_msg = (double)cpusum / (double)(2 * n);
	}
	if (o->what & MB_WHAT_BW) {
		/* Whole windows, at least one: msgbench's count rounded up. */
		long nw = (mb_bw_msgs(o, size) + WINDOW - 1) / WINDOW;
		uint64_t t0;

		stream(sbuf, rbuf, size, 1);
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = mb_now_ns();
		stream(sbuf, rbuf, size, nw);
		/* bytes per ns * 1000 = 10^6 bytes per second */
		r.mbps = (double)nw * WINDOW * size * 1e3 / (double)(mb_now_ns() - t0);
	}
	if (rank != 0)
		return;
	if (mean >= 0)
		snprintf(extra, sizeof(extra), "lat_ns_mean=%.0f", mean);
	else
		snprintf(extra, sizeof(extra), "lat_ns_mean=n/a");
	mb_print(library_name(), o->mode, "-", size, &r, extra);
}

int main(int argc, char **argv)
{
	struct mb_opts o;
	long maxsize = 1, i;
	int nranks;
	char *sbuf, *rbuf;
	uint64_t *rtt;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	mb_parse(&o, argc, argv, "poll", "poll");
	if (strcmp(o.mode, "poll"))
		die("-m: only poll (the MPI library decides how it waits)");
	if (nranks != 2)
		die("needs exactly 2 ranks");
	for (i = 0; i < o.nsizes; i++)
		if ((long)o.sizes[i] > maxsize)
			maxsize = o.sizes[i];

	sbuf = malloc(maxsize * WINDOW);
	rbuf = malloc(maxsize * WINDOW);
	rtt = calloc(o.iters, sizeof(*rtt));
	if (!sbuf || !rbuf || !rtt)
		die("out of memory");
	/* Fault every page in now, not in the first timed round. */
	for (i = 0; i < maxsize * WINDOW; i++)
		sbuf[i] = (char)(i * 7 + 1);
	memset(rbuf, 0, maxsize * WINDOW);

	if (rank == 0) {
		char v[MPI_MAX_LIBRARY_VERSION_STRING];
		int len;

		MPI_Get_library_version(v, &len);
		v[strcspn(v, "\n")] = 0;
		printf("# %s\n", v);
	}
	report_affinity();
	fflush(stdout);

	for (i = 0; i < o.nsizes; i++)
		one_size(&o, sbuf, rbuf, rtt, o.sizes[i]);

	free(sbuf);
	free(rbuf);
	free(rtt);
	MPI_Finalize();
	return 0;
}
