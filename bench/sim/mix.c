// SPDX-License-Identifier: GPL-2.0
/*
 * Mix files (bench/mixes/README): one job per line, "key = value"
 * settings.  The simulator knows the workloads life, mg, lu, ep, barrier
 * grain (bench/workloads/grain.c) and the hog competitor; anything else
 * (noise) is refused by name.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

int jobspec_parse(struct jobspec *j, const char *line)
{
	char buf[256], *tok, *save = NULL, *prog;
	const char *var = "";

	memset(j, 0, sizeof(*j));
	j->nbar = 1000;
	j->delay_us = 1000;
	j->grain_us = 100;
	snprintf(buf, sizeof(buf), "%s", line);
	prog = strtok_r(buf, " \t", &save);
	if (!prog)
		return -1;
	if (!strcmp(prog, "life"))
		j->kind = WL_LIFE;
	else if (!strcmp(prog, "mg"))
		j->kind = WL_MG;
	else if (!strcmp(prog, "lu"))
		j->kind = WL_LU;
	else if (!strcmp(prog, "ep"))
		j->kind = WL_EP;
	else if (!strcmp(prog, "barrier"))
		j->kind = WL_BARRIER;
	else if (!strcmp(prog, "grain"))
		j->kind = WL_GRAIN;
	else if (!strcmp(prog, "hog"))
		j->kind = WL_HOG;
	else {
		fprintf(stderr, "cosched-sim: workload '%s' is not modelled\n", prog);
		return -1;
	}
	while ((tok = strtok_r(NULL, " \t", &save))) {
		char *arg = strtok_r(NULL, " \t", &save);

		if (!arg)
			break;
		if (!strcmp(tok, "-v") && j->kind == WL_LIFE) {
			j->hi = !strcmp(arg, "hi");
			var = j->hi ? "-hi" : "-lo";
		} else if (!strcmp(tok, "-d")) {
			j->delay_us = atof(arg);
		} else if (!strcmp(tok, "-c") && j->kind == WL_GRAIN) {
			j->grain_us = atof(arg);
		} else if (!strcmp(tok, "-n") && j->kind == WL_BARRIER) {
			j->nbar = atoi(arg);
		}
	}
	if (j->kind == WL_LIFE && !*var)
		var = "-lo";
	snprintf(j->label, sizeof(j->label), "%s%s", prog, var);
	return 0;
}

int mix_load(struct mix *m, const char *arg, const char *dir)
{
	char path[512], line[512];
	FILE *f;
	const char *base;
	int n = 0;

	if (isdigit((unsigned char)arg[0]) && !strchr(arg, '/'))
		snprintf(path, sizeof(path), "%s/mix%02d.conf", dir, atoi(arg));
	else if (!strchr(arg, '/') && !strstr(arg, ".conf"))
		snprintf(path, sizeof(path), "%s/%s.conf", dir, arg);
	else
		snprintf(path, sizeof(path), "%s", arg);
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	memset(m, 0, sizeof(*m));
	m->rpn = 1;
	base = strrchr(path, '/');
	snprintf(m->name, sizeof(m->name), "%.63s", base ? base + 1 : path);
	if (strstr(m->name, ".conf"))
		*strstr(m->name, ".conf") = 0;
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *hash = strchr(line, '#'), *eq;

		if (hash)
			*hash = 0;
		while (isspace((unsigned char)*s))
			s++;
		s[strcspn(s, "\r\n")] = 0;
		if (!*s)
			continue;
		eq = strpbrk(s, "=:");
		if (eq && !strncmp(s, "job", 3) && strspn(s + 3, " \t=:") > 0) {
			s = eq + 1;
			while (isspace((unsigned char)*s))
				s++;
		} else if (eq) {
			char *v = eq + 1;

			while (isspace((unsigned char)*v))
				v++;
			if (!strncmp(s, "name", 4))
				snprintf(m->name, sizeof(m->name), "%.63s", v);
			else if (!strncmp(s, "ranks_per_node", 14))
				m->rpn = atoi(v) > 0 ? atoi(v) : 1;
			continue;
		}
		if (n == MAX_JOBS || jobspec_parse(&m->jobs[n], s)) {
			fclose(f);
			return -1;
		}
		n++;
	}
	fclose(f);
	m->njobs = n;
	return n ? 0 : -1;
}
