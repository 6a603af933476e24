// SPDX-License-Identifier: GPL-2.0
/*
 * The second uid.  Ids are numeric only: the guest shares the host's
 * /etc read-only, so no name is guaranteed to resolve.  The device may be
 * 0666 (today) or 0660 with a group: the fuzzer hands it to a group of
 * its own and puts the unprivileged processes in that group.
 */
#define _GNU_SOURCE
#include "fuzz.h"

#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int uid_prepare_device(unsigned int gid)
{
	if (chown(COSCHED_DEVICE, (uid_t)-1, gid))
		return -errno;
	return 0;
}

void uid_become(unsigned int uid, unsigned int gid)
{
	gid_t g = gid;

	if (!uid)
		return;
	if (setgroups(1, &g) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid)) {
		fprintf(stderr, "cosched-fuzz: becoming uid %u: %s\n", uid,
			strerror(errno));
		exit(2);
	}
}
