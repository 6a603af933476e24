// SPDX-License-Identifier: GPL-2.0
/*
 * mpi_pingpong - the MPI baseline for the latency benchmarks: a plain,
 * unmodified MPI program (no cosched calls; an MPI glue library can be
 * preloaded into it later) measuring, between two ranks, for each size:
 *
 *   lat_ns_p50, lat_ns_p99  one-way latency, half of each timed round trip
 *                           (MPI_Send/MPI_Recv ping-pong), after a warm-up
 *   mbps                    streaming bandwidth, 10^6 bytes/s: rank 0 keeps
 *                           WINDOW MPI_Isend in flight, rank 1 answers each
 *                           window with a 1-byte ack (as the OSU bw test)
 *   cpu_ns_per_msg          CPU time of both processes (user + system,
 *                           CLOCK_PROCESS_CPUTIME_ID, summed on rank 0)
 *                           over the ping-pong, per message sent
 *
 * One line per size on rank 0's stdout:
 *   bench=mpich size=8 lat_ns_p50=... lat_ns_p99=... mbps=... cpu_ns_per_msg=... n=...
 * where bench names the MPI library the binary runs on (from
 * MPI_Get_library_version, so a binary mislinked to the other MPI says so)
 * and n is the number of timed round trips.
 *
 * How many round trips a size gets is chosen at run time, so that the same
 * binary fits a QEMU TCG guest (where a 1 MiB round trip takes milliseconds)
 * and bare metal: rank 0 times the warm-up and picks n to fill -t seconds,
 * clamped to [MIN_ITERS, -N].
 *
 * usage: mpiexec -n 2 mpi_pingpong [-s 8,64,512,4K,32K,256K,1M] [-t sec]
 *                                  [-w warmup] [-N max_iters]
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZES	32
#define WINDOW		16
#define MIN_ITERS	20
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

static int64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* "8", "4K", "1M": sizes as the other latency benches spell them. */
static int parse_sizes(const char *arg, long *sizes)
{
	char *copy = strdup(arg), *save = NULL, *tok, *end;
	int n = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long v = strtol(tok, &end, 10);

		if (*end == 'K' || *end == 'k')
			v <<= 10, end++;
		else if (*end == 'M' || *end == 'm')
			v <<= 20, end++;
		if (*end || v <= 0 || v > (1L << 30) || n == MAX_SIZES)
			die("bad -s list (e.g. 8,64,512,4K,32K,256K,1M)");
		sizes[n++] = v;
	}
	free(copy);
	return n;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted samples. */
static int64_t pct(const int64_t *v, int n, int p)
{
	int i = (n * p + 99) / 100 - 1;

	return v[i < 0 ? 0 : i];
}

/* n round trips of size bytes; rank 0 stores each round trip's ns in rtt. */
static void pingpong(char *sbuf, char *rbuf, long size, int n, int64_t *rtt)
{
	int i;

	for (i = 0; i < n; i++) {
		if (rank == 0) {
			int64_t t0 = now_ns(CLOCK_MONOTONIC);

			MPI_Send(sbuf, size, MPI_CHAR, 1, TAG_PING, MPI_COMM_WORLD);
			MPI_Recv(rbuf, size, MPI_CHAR, 1, TAG_PING, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			if (rtt)
				rtt[i] = now_ns(CLOCK_MONOTONIC) - t0;
		} else {
			MPI_Recv(rbuf, size, MPI_CHAR, 0, TAG_PING, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			/* Echo what arrived, so rank 0 can check the payload. */
			MPI_Send(rbuf, size, MPI_CHAR, 0, TAG_PING, MPI_COMM_WORLD);
		}
	}
}

/* n windows of WINDOW messages from rank 0 to rank 1, each acknowledged. */
static void stream(char *sbuf, char *rbuf, long size, int n)
{
	MPI_Request req[WINDOW];
	/*
	 * A real array, not MPI_STATUSES_IGNORE: MPICH defines that as
	 * (MPI_Status *)1, which gcc 12 flags as an overflow (-Wstringop-overflow).
	 */
	MPI_Status st[WINDOW];
	char ack = 0;
	int i, w;

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
 * Rank 0 turns the duration of warm rounds into a round count that fills
 * budget_ns, and tells rank 1: both must loop the same number of times.
 */
static int pick_iters(int64_t warm_ns, int warm, double budget_ns, int min, int max)
{
	int n = max;

	if (rank == 0 && warm > 0 && warm_ns > 0) {
		double per = (double)warm_ns / warm, want = budget_ns / per;

		n = want < min ? min : want > max ? max : (int)want;
	}
	MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return n;
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

int main(int argc, char **argv)
{
	long sizes[MAX_SIZES], maxsize = 0;
	int nsizes, nranks, warm = 50, maxiters = 10000, opt, s;
	double budget_s = 1.0;
	const char *sizearg = "8,64,512,4K,32K,256K,1M";
	char *sbuf, *rbuf;
	int64_t *rtt;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((opt = getopt(argc, argv, "s:t:w:N:")) != -1) {
		switch (opt) {
		case 's': sizearg = optarg; break;
		case 't': budget_s = atof(optarg); break;
		case 'w': warm = atoi(optarg); break;
		case 'N': maxiters = atoi(optarg); break;
		default: die("usage: mpi_pingpong [-s sizes] [-t sec] [-w warmup] [-N max_iters]");
		}
	}
	if (nranks != 2)
		die("needs exactly 2 ranks");
	if (budget_s <= 0 || warm < 1 || maxiters < MIN_ITERS)
		die("-t > 0, -w >= 1, -N >= 20");
	nsizes = parse_sizes(sizearg, sizes);
	for (s = 0; s < nsizes; s++)
		if (sizes[s] > maxsize)
			maxsize = sizes[s];

	sbuf = malloc(maxsize * WINDOW);
	rbuf = malloc(maxsize * WINDOW);
	rtt = calloc(maxiters, sizeof(*rtt));
	if (!sbuf || !rbuf || !rtt)
		die("out of memory");
	/* Fault every page in now, not in the first timed round. */
	for (long i = 0; i < maxsize * WINDOW; i++)
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

	for (s = 0; s < nsizes; s++) {
		long size = sizes[s];
		int64_t t0, cpu0, cpu, cpusum = 0;
		int n, nbw, nwarm_bw;

		/*
		 * Ping-pong: warm up (connections, rendezvous buffers, caches),
		 * calibrate on a second, warm batch (the first one's connection
		 * setup would make n far too small), then time.
		 */
		pingpong(sbuf, rbuf, size, warm, NULL);
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = now_ns(CLOCK_MONOTONIC);
		pingpong(sbuf, rbuf, size, warm, NULL);
		n = pick_iters(now_ns(CLOCK_MONOTONIC) - t0, warm, budget_s * 1e9,
			       MIN_ITERS, maxiters);
		MPI_Barrier(MPI_COMM_WORLD);
		cpu0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
		pingpong(sbuf, rbuf, size, n, rtt);
		cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
		MPI_Reduce(&cpu, &cpusum, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
		if (rank == 0 && memcmp(sbuf, rbuf, size))
			die("echoed payload differs from what was sent");

		/* Streaming: the same, in windows of WINDOW messages. */
		nwarm_bw = warm / 10 + 1;
		stream(sbuf, rbuf, size, nwarm_bw);
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = now_ns(CLOCK_MONOTONIC);
		stream(sbuf, rbuf, size, nwarm_bw);
		nbw = pick_iters(now_ns(CLOCK_MONOTONIC) - t0, nwarm_bw, budget_s * 1e9,
				 MIN_ITERS / 4, maxiters / WINDOW);
		MPI_Barrier(MPI_COMM_WORLD);
		t0 = now_ns(CLOCK_MONOTONIC);
		stream(sbuf, rbuf, size, nbw);
		t0 = now_ns(CLOCK_MONOTONIC) - t0;

		if (rank == 0) {
			qsort(rtt, n, sizeof(*rtt), cmp_i64);
			printf("bench=%s size=%ld lat_ns_p50=%lld lat_ns_p99=%lld mbps=%.1f cpu_ns_per_msg=%lld n=%d\n",
			       library_name(), size,
			       (long long)pct(rtt, n, 50) / 2, (long long)pct(rtt, n, 99) / 2,
			       (double)size * WINDOW * nbw / (t0 / 1e3),
			       (long long)(cpusum / (2LL * n)), n);
			fflush(stdout);
		}
	}
	free(sbuf);
	free(rbuf);
	free(rtt);
	MPI_Finalize();
	return 0;
}
