/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * glue.h - the cosched MPI glue's internals, shared by its files:
 * init.c (endpoint at MPI_Init, release at MPI_Finalize; local.c: may
 * ranks on one node use shared memory?), sockets.c and
 * netcalls.c (sockets.h: the TCP sockets MPI makes, into the module's
 * arrival hooks as they are made), wait.c (the
 * wait loop: MPI_Test*, then cosched_wait), coll.c (the job's form of
 * the collectives), p2p.c (the hand-written point-to-point calls), and
 * the wrappers gen.py makes from calls.def (calls.c, fentries.c, with
 * fortran.c's helpers; pmpi.c, the exported MPI_ and PMPI_ names, with
 * chain.c's look-ups).
 */
#ifndef COSCHED_MPI_GLUE_H
#define COSCHED_MPI_GLUE_H

#include <mpi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cosched.h"
#include "calls.h"		/* generated: enum glue_call */
#include "sockets.h"

/*
 * Only the MPI_* and PMPI_* functions (pmpi.c, generated) and the Fortran
 * entry points are exported; MPICH declares them without a
 * visibility of their own, so -fvisibility=hidden would hide them too.
 */
#pragma GCC visibility push(hidden)

/* What a wait completes: one of the MPI_Test* or probe forms. */
enum glue_kind {
	GW_ONE,		/* MPI_Test / MPI_Wait */
	GW_ALL,		/* MPI_Testall / MPI_Waitall */
	GW_ANY,		/* MPI_Testany / MPI_Waitany */
	GW_SOME,	/* MPI_Testsome / MPI_Waitsome */
	GW_PROBE,	/* MPI_Iprobe / MPI_Probe */
	GW_MPROBE,	/* MPI_Improbe / MPI_Mprobe */
	GW_WIN,		/* MPI_Win_test / MPI_Win_wait */
};

struct glue_wait {
	enum glue_kind kind;
	int count;
	MPI_Request *reqs;
	MPI_Status *status;	/* GW_ONE, GW_ANY, GW_*PROBE; may be IGNORE */
	MPI_Status *statuses;	/* GW_ALL, GW_SOME; may be IGNORE */
	int *index;		/* GW_ANY: out */
	int *outcount;		/* GW_SOME: out */
	int *indices;		/* GW_SOME: out */
	int source, tag;	/* GW_*PROBE */
	MPI_Comm comm;
	MPI_Message *message;	/* GW_MPROBE: out */
	MPI_Win win;		/* GW_WIN */
	int rc;			/* MPI error code of the last test */
};

/* Process-wide state, written at MPI_Init and MPI_Finalize. */
struct glue {
	struct cosched_ep *ep;	/* NULL: plain MPI waiting */
	/*
	 * Every rank of the job has an endpoint: collectives take their
	 * non-blocking form in every thread (MPI never matches the two).
	 */
	bool coll_nb;
	int keyval;		/* coll.c's note on a communicator */
	pthread_t owner;	/* the thread that initialised MPI */
	bool in_wait;		/* the owner is inside glue_wait() */
	int rank, size;
	uint64_t job;
	bool verbose;
	bool ready;		/* glue_setup() ran */
	/* counters for COSCHED_MPI_VERBOSE */
	uint64_t waits, cosched_waits, fallbacks;
	uint64_t plain_calls;	/* left to MPI: the glue cannot help now */
	uint64_t mpi_internal;	/* the MPI's calls of PMPI_ names, passed on */
	bool finalized;		/* glue_finalize() ran */
};

extern struct glue glue;

/* calls.c: intercepted calls of each kind, counted for COSCHED_MPI_VERBOSE. */
extern uint64_t glue_calls[GC_NR];
extern const char *const glue_call_name[GC_NR];

static inline void glue_count(enum glue_call c)
{
	if (__builtin_expect(glue.verbose, 0))
		__atomic_fetch_add(&glue_calls[c], 1, __ATOMIC_RELAXED);
}

static inline void glue_count_internal(void)
{
	if (__builtin_expect(glue.verbose, 0))
		__atomic_fetch_add(&glue.mpi_internal, 1, __ATOMIC_RELAXED);
}

/*
 * chain.c: the next object's sym (the MPI's: cached in *cache; aborts if
 * there is none), the MPI_X of a PMPI tool below the glue (NULL: none),
 * and whether code at addr is the MPI's own (a caller of a PMPI_ name).
 */
void *glue_next(void **cache, const char *sym);
void *glue_below(void **cache, const char *sym);
bool glue_from_mpi(const void *addr);

/* init.c: after MPI's own initialisation, from any binding; once. */
void glue_setup(void);
/* init.c: before MPI's own finalisation, from any binding; once. */
void glue_finalize(void);

/* coll.c: does comm take the collectives' non-blocking form? */
bool glue_nb(MPI_Comm comm);
/* coll.c: the request a non-blocking collective returned, waited for. */
int glue_finish(int rc, MPI_Request *req);

/* wait.c: complete w, the cosched way when the calling thread may. */
int glue_wait(struct glue_wait *w);
/* wait.c: complete one request (GW_ONE). */
int glue_wait_one(MPI_Request *req, MPI_Status *status);
/* wait.c: true when the caller may wait the cosched way. */
bool glue_active(void);
/* wait.c: does a cosched wait do anything now (not under local, polling)? */
bool glue_helps(void);

/* Around one of MPI's own calls (glue_plain): what glue_plain_end needs. */
struct glue_plain {
	bool other;		/* counted with cosched_progress_begin() */
	uint64_t seen;		/* the waiting thread: arrivals before it */
};

/*
 * Every policy but local acts on arrivals during MPI's own calls too (a
 * job whose collectives stay blocking, a polling loop of MPI_Test, a
 * thread other than the main one doing all the communication): sockets
 * parked under local are registered at the first call, in any thread,
 * that finds another policy (sockets.c).
 */
static inline void glue_unpark_check(void)
{
	if (__atomic_load_n(&glue_socks_parked, __ATOMIC_RELAXED) &&
	    glue.ep && cosched_get_policy(glue.ep) != COSCHED_POLICY_LOCAL)
		glue_socks_unpark();
}

/*
 * A thread other than the one that waits the cosched way is inside an
 * MPI call: its progress may complete the waiter's request with no
 * arrival to wake it, so the waiter spins meanwhile
 * (cosched_progress_begin(3)).  In the waiting thread itself, the call
 * ran MPI's progress engine as a cosched wait's tests do: what arrived
 * before it is consumed (done_wait() in wait.c; the same approximation),
 * so that the pending count stays true where the glue leaves the
 * waiting to MPI (under local, or a job that started there).  Nothing
 * in a job that waits the plain way.
 */
static inline struct glue_plain glue_other_begin(void)
{
	struct glue_plain p = { false, 0 };

	glue_unpark_check();
	if (glue.ep && !pthread_equal(pthread_self(), glue.owner)) {
		cosched_progress_begin(glue.ep);
		p.other = true;
	}
	return p;
}

static inline struct glue_plain glue_plain_begin(void)
{
	struct glue_plain p = glue_other_begin();

	if (glue.ep && !p.other)
		p.seen = cosched_arrivals(glue.ep);
	return p;
}

static inline void glue_plain_end(struct glue_plain p, int rc)
{
	if (p.other)
		cosched_progress_end(glue.ep);
	else if (p.seen && rc == MPI_SUCCESS)
		cosched_consumed(glue.ep, p.seen);
}

/* The MPI call expression call with begin (a struct glue_plain) around it. */
#define glue_bracket(begin, call) ({			\
	struct glue_plain p_ = (begin);			\
	int rc_ = (call);				\
							\
	glue_plain_end(p_, rc_);			\
	rc_;						\
})

/* MPI's own call, with the above around it. */
#define glue_plain(call) glue_bracket(glue_plain_begin(), call)

/*
 * The start of a non-blocking call (a collective's MPI_I form), in any
 * thread: another thread's may run MPI's progress, so it is counted as
 * above; the waiting thread's consumes nothing (its wait follows).
 */
#define glue_start(call) glue_bracket(glue_other_begin(), call)

/*
 * local.c, collective: do ranks share this node with a transport that
 * may be shared memory (invisible to the module)?
 */
bool glue_local_shm(void);

/* init.c: CLOCK_MONOTONIC in ns. */
uint64_t glue_now_ns(void);

#pragma GCC visibility pop

#endif /* COSCHED_MPI_GLUE_H */
