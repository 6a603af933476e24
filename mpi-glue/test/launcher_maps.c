// SPDX-License-Identifier: GPL-2.0
/*
 * launcher_maps.c TOP [WORD]: what cosched-run preloaded where.  Every
 * rank finds whether the glue (and a library whose path has WORD, e.g.
 * the user's own preload) is mapped into itself and into each of its
 * ancestors up to process TOP (the launcher's helpers: mpiexec, Hydra's
 * proxy, orted, a shell), and rank 0 prints one line per rank, in rank
 * order: "maps: rank R cpus LIST glue G up NAME:G NAME:G ...", where G
 * is 0 or 1 for the glue, then ",0" or ",1" for WORD if given.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GLUE "libcosched-mpi-"

static const char *word;

/* Is a file whose path has s mapped into pid?  -1: cannot tell. */
static int has(int pid, const char *s)
{
	char path[64], line[4096];
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, s) != NULL;
	fclose(f);
	return found;
}

static int mapped(char *buf, size_t len, int pid)
{
	if (!word)
		return snprintf(buf, len, "%d", has(pid, GLUE));
	return snprintf(buf, len, "%d,%d", has(pid, GLUE), has(pid, word));
}

/* The parent of pid and its name, from /proc/pid/stat. */
static int parent(int pid, char *name, size_t len)
{
	char path[64], buf[512], *open, *close;
	FILE *f;
	int ppid = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f)) {
		open = strchr(buf, '(');
		close = strrchr(buf, ')');
		if (open && close && close > open) {
			snprintf(name, len, "%.*s", (int)(close - open - 1),
				 open + 1);
			if (sscanf(close + 2, "%*c %d", &ppid) != 1)
				ppid = 0;
		}
	}
	fclose(f);
	return ppid;
}

int main(int argc, char **argv)
{
	char line[2048], name[64];
	int rank, size, top, pid, len, i;
	cpu_set_t cpus;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	top = argc > 1 ? atoi(argv[1]) : 1;
	word = argc > 2 ? argv[2] : NULL;
	len = snprintf(line, sizeof(line), "maps: rank %d cpus", rank);
	sched_getaffinity(0, sizeof(cpus), &cpus);
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &cpus))
			len += snprintf(line + len, sizeof(line) - len, "%s%d",
					len && line[len - 1] == 's' ? " " : ",",
					i);
	len += snprintf(line + len, sizeof(line) - len, " glue ");
	len += mapped(line + len, sizeof(line) - len, getpid());
	len += snprintf(line + len, sizeof(line) - len, " up");
	for (pid = getppid(); pid > 1 && pid != top && len < 1900;) {
		int up = parent(pid, name, sizeof(name));

		len += snprintf(line + len, sizeof(line) - len, " %s:", name);
		len += mapped(line + len, sizeof(line) - len, pid);
		pid = up;
	}
	if (rank) {
		MPI_Send(line, len + 1, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
	} else {
		puts(line);
		for (i = 1; i < size; i++) {
			MPI_Recv(line, sizeof(line), MPI_CHAR, i, 0,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			puts(line);
		}
	}
	MPI_Finalize();
	return 0;
}
