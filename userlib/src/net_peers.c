// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * net_peers.c - the address list of a job: one "host:port" entry per rank,
 * from $COSCHED_PEERS or $COSCHED_PEERS_FILE.  Only the syntax is checked
 * here; names are resolved by net_open(), on the node that uses them.
 */
#define _GNU_SOURCE
#include "net.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The entries read so far; only the first size are kept, all are counted. */
struct plist {
	char **v;
	uint32_t size;
	uint32_t n;
};

static int parse_port(const char *s, uint16_t *port)
{
	unsigned long p = 0;
	int i;

	/* Digits only: strtoul() would take signs, spaces and "0x". */
	for (i = 0; s[i]; i++) {
		if (!isdigit((unsigned char)s[i]) || i == 5)
			return -EINVAL;
		p = p * 10 + (unsigned long)(s[i] - '0');
	}
	if (i == 0 || p == 0 || p > 65535)
		return -EINVAL;
	*port = (uint16_t)p;
	return 0;
}

int net_addr_split(const char *entry, char *host, size_t hostsz,
		   uint16_t *port)
{
	const char *h = entry, *hend, *colon, *s;

	if (entry[0] == '[') {
		h = entry + 1;
		hend = strchr(h, ']');
		if (!hend || hend[1] != ':')
			return -EINVAL;
		colon = hend + 1;
	} else {
		colon = strchr(entry, ':');
		/* A second colon: a bare IPv6 address, ambiguous. */
		if (!colon || strchr(colon + 1, ':'))
			return -EINVAL;
		hend = colon;
	}
	if (hend == h || (size_t)(hend - h) >= hostsz)
		return -EINVAL;
	for (s = h; s < hend; s++)
		if (!isgraph((unsigned char)*s) || strchr("[]#,/@", *s))
			return -EINVAL;
	if (parse_port(colon + 1, port))
		return -EINVAL;
	memcpy(host, h, (size_t)(hend - h));
	host[hend - h] = '\0';
	return 0;
}

/* Add the entry s[0..len), surrounding blanks trimmed. */
static int plist_add(struct plist *l, const char *s, size_t len)
{
	char host[NET_HOST_MAX], *e;
	uint16_t port;

	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	e = strndup(s, len);
	if (!e)
		return -ENOMEM;
	if (net_addr_split(e, host, sizeof(host), &port)) {
		free(e);
		return -EINVAL;
	}
	if (l->n < l->size)
		l->v[l->n] = e;
	else
		free(e);
	l->n++;
	return 0;
}

/* "host:port,host:port": every entry counts, an empty one is an error. */
static int plist_from_string(struct plist *l, const char *s)
{
	const char *comma;
	int rc;

	for (;;) {
		comma = strchr(s, ',');
		rc = plist_add(l, s, comma ? (size_t)(comma - s) : strlen(s));
		if (rc || !comma)
			return rc;
		s = comma + 1;
	}
}

/* One entry a line; '#' starts a comment; blank lines do not count. */
static int plist_from_file(struct plist *l, const char *path)
{
	char *line = NULL, *p;
	size_t cap = 0;
	FILE *f;
	int rc = 0;

	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (!rc && getline(&line, &cap, f) >= 0) {
		p = strchr(line, '#');
		if (p)
			*p = '\0';
		for (p = line; isspace((unsigned char)*p); p++)
			;
		if (*p)
			rc = plist_add(l, p, strlen(p));
	}
	if (!rc && ferror(f))
		rc = -EIO;
	free(line);
	fclose(f);
	return rc;
}

int net_peers_from_env(uint32_t size, char ***addrs)
{
	const char *list = getenv("COSCHED_PEERS");
	const char *file = getenv("COSCHED_PEERS_FILE");
	struct plist l = { .size = size };
	int rc;

	*addrs = NULL;
	if (!list && !file)
		return 0;
	if (!size)
		return -EINVAL;
	l.v = calloc(size, sizeof(*l.v));
	if (!l.v)
		return -ENOMEM;
	/* The list itself wins over the file, as the more explicit one. */
	rc = list ? plist_from_string(&l, list) : plist_from_file(&l, file);
	if (!rc && l.n != size)
		rc = -EINVAL;
	if (rc) {
		net_peers_free(l.v, size);
		return rc;
	}
	*addrs = l.v;
	return 0;
}

void net_peers_free(char **addrs, uint32_t size)
{
	uint32_t i;

	if (!addrs)
		return;
	for (i = 0; i < size; i++)
		free(addrs[i]);
	free(addrs);
}
