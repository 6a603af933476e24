/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sockets.h - the glue's TCP sockets, registered with the endpoint's
 * arrival hooks as MPI creates them (netcalls.c interposes connect(),
 * accept(), accept4() and listen(); sockets.c registers).  No MPI in
 * here: test/unit/netcalls.c builds these two files alone.
 */
#ifndef COSCHED_MPI_SOCKETS_H
#define COSCHED_MPI_SOCKETS_H

#include <stdbool.h>
#include <stdint.h>

#include "cosched.h"

#pragma GCC visibility push(hidden)

/* What the interposed calls do with a new TCP socket. */
enum glue_socks_mode {
	/* before the glue's constructor, glue inactive, after MPI_Finalize */
	SOCKS_OFF,
	SOCKS_REMEMBER,		/* no endpoint yet (inside MPI_Init), or parked */
	SOCKS_REGISTER,		/* register it with the endpoint at once */
};

/* Read by every interposed call: its one branch when SOCKS_OFF. */
extern int glue_socks_mode;
/* Sockets kept unregistered until glue_socks_unpark(); read unlocked. */
extern bool glue_socks_parked;

struct glue_socks_stats {
	uint64_t registered;	/* sockets the module watches for the glue */
	uint64_t full;		/* refused: the endpoint's hooks all used */
	uint64_t failed;	/* refused otherwise (closed meanwhile) */
	uint64_t parked;	/* open, kept unregistered while no help */
};

/* The glue is active in this process: remember TCP sockets from now. */
void glue_socks_arm(void);
/*
 * The endpoint exists: register the sockets remembered, then each new
 * one as it comes.  Returns how many were registered, or -errno when
 * the module cannot watch TCP sockets (the glue then goes plain).  With
 * park (the glue cannot help now), checks that the module can watch
 * them, but keeps them and later ones unregistered until
 * glue_socks_unpark(); returns how many are open.  If no socket can be
 * made to ask with, registers them as without park.
 */
int glue_socks_start(struct cosched_ep *ep, int rank, bool verbose,
		     bool park);
/*
 * The glue can help now: register the parked sockets (each one tried;
 * refusals counted in failed).  Cheap if none.
 */
void glue_socks_unpark(void);
/* Before the endpoint is closed: from now on, sockets are left alone. */
void glue_socks_stop(void);
/* netcalls.c: fd may have become a usable TCP socket; errno may change. */
void glue_socks_new(int fd);
void glue_socks_get_stats(struct glue_socks_stats *st);

#pragma GCC visibility pop

#endif /* COSCHED_MPI_SOCKETS_H */
