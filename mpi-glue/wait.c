// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wait.c - the one wait loop of every intercepted call: test the
 * operation (MPI_Test* makes progress), and if it is not done, let
 * cosched_wait() spin, then block or yield, calling the test again
 * between spins and once more after arming.  cosched_wait() reads the
 * endpoint's arrival count before that last test, and the module bumps
 * it only after the data is readable on the socket, so data that comes
 * after the test ends the block at once: no arrival is lost.
 */
#include "glue.h"

#include <errno.h>

/* One MPI_Test* of w; *done when the blocking form would have returned. */
static int test(struct glue_wait *w, int *done)
{
	int rc;

	*done = 0;
	switch (w->kind) {
	case GW_ONE:
		return PMPI_Test(w->reqs, done, w->status);
	case GW_ALL:
		return PMPI_Testall(w->count, w->reqs, done, w->statuses);
	case GW_ANY:
		return PMPI_Testany(w->count, w->reqs, w->index, done,
				    w->status);
	case GW_SOME:
		*w->outcount = 0;
		rc = PMPI_Testsome(w->count, w->reqs, w->outcount, w->indices,
				   w->statuses);
		/* MPI_UNDEFINED (no active request) returns, as Waitsome. */
		*done = *w->outcount != 0;
		return rc;
	case GW_PROBE:
		return PMPI_Iprobe(w->source, w->tag, w->comm, done, w->status);
	case GW_MPROBE:
		return PMPI_Improbe(w->source, w->tag, w->comm, done,
				    w->message, w->status);
	case GW_WIN:
		/* Win_test that returns true is as the Win_wait would be. */
		return PMPI_Win_test(w->win, done);
	}
	return MPI_ERR_INTERN;
}

/* The plain blocking form: MPI's own waiting. */
static int block(struct glue_wait *w)
{
	switch (w->kind) {
	case GW_ONE:
		return PMPI_Wait(w->reqs, w->status);
	case GW_ALL:
		return PMPI_Waitall(w->count, w->reqs, w->statuses);
	case GW_ANY:
		return PMPI_Waitany(w->count, w->reqs, w->index, w->status);
	case GW_SOME:
		return PMPI_Waitsome(w->count, w->reqs, w->outcount,
				     w->indices, w->statuses);
	case GW_PROBE:
		return PMPI_Probe(w->source, w->tag, w->comm, w->status);
	case GW_MPROBE:
		return PMPI_Mprobe(w->source, w->tag, w->comm, w->message,
				   w->status);
	case GW_WIN:
		return PMPI_Win_wait(w->win);
	}
	return MPI_ERR_INTERN;
}

/* One wait of the owner and the arrival count before its latest test. */
struct look {
	struct glue_wait *w;
	uint64_t seen;
};

/* cosched_wait()'s condition; an MPI error ends the wait too. */
static bool ready(void *arg)
{
	struct look *l = arg;
	int done;

	l->seen = cosched_arrivals(glue.ep);
	l->w->rc = test(l->w, &done);
	return done || l->w->rc != MPI_SUCCESS;
}

/*
 * The wait completed: publish the arrivals seen before the test that
 * completed it as consumed, so that the pb examiner, poll() and dcs's
 * re-boost after a preemption stop counting them as pending.  Our
 * arrivals are data reaching MPI's sockets; that test ran MPI's progress
 * engine, which read what the sockets held (into the request, or into
 * MPI's own queues for a later call that will not wait for it).  The
 * glue cannot know that nothing else is pending inside MPI; this is the
 * approximation, and a safe one: an arrival counted after the snapshot
 * stays pending, and the library never moves consumed back or beyond
 * the count.
 */
static int done_wait(struct look *l)
{
	if (l->w->rc == MPI_SUCCESS)
		cosched_consumed(glue.ep, l->seen);
	return l->w->rc;
}

/*
 * Does a cosched wait do anything MPI's own would not?  Not under local
 * with a polling wait: the module neither boosts nor blocks the waiter,
 * and MPI's blocking call is the same busy wait without the glue's
 * MPI_Test loop (Documentation/results/mpi-glue/zero-cost).  The job's
 * sockets stay parked (unregistered, sockets.c) until a call finds
 * another policy: no arrival is counted meanwhile, so other jobs' yields
 * see no pending rank here (Documentation/mpi.rst, "Sockets").
 * Asked at each call, so that an admin's change applies to the next.
 */
bool glue_helps(void)
{
	if (cosched_get_policy(glue.ep) == COSCHED_POLICY_LOCAL &&
	    cosched_get_wait_mode(glue.ep, COSCHED_MODE_DEFAULT) ==
	    COSCHED_MODE_POLL)
		return false;
	/* Sockets parked while it could not (sockets.c) are watched now. */
	glue_socks_unpark();
	return true;
}

/*
 * Only the thread that initialised MPI waits the cosched way: libcosched
 * lets one thread at a time wait on an endpoint, and a test inside a
 * wait must not start another (a generalized request's callback).
 */
bool glue_active(void)
{
	/* The owner test first: only the owner reads in_wait. */
	if (!glue.ep || !pthread_equal(pthread_self(), glue.owner) ||
	    glue.in_wait)
		return false;
	if (glue_helps())
		return true;
	glue.plain_calls++;
	return false;
}

int glue_wait(struct glue_wait *w)
{
	struct look l = { .w = w };
	int err;

	if (!glue_active())
		return glue_plain(block(w));
	glue.waits++;
	if (ready(&l))
		return done_wait(&l);
	glue.in_wait = true;
	glue.cosched_waits++;
	err = cosched_wait(glue.ep, ready, &l, COSCHED_MODE_DEFAULT);
	glue.in_wait = false;
	if (!err)
		return done_wait(&l);
	/*
	 * -ECONNRESET: a rank of the job went away (the launcher is about
	 * to end the job); -EIDRM: the endpoint was destroyed.  MPI's own
	 * wait finishes the call with MPI's semantics.
	 */
	glue.fallbacks++;
	return block(w);
}

int glue_wait_one(MPI_Request *req, MPI_Status *status)
{
	struct glue_wait w = {
		.kind = GW_ONE, .count = 1, .reqs = req, .status = status,
	};

	return glue_wait(&w);
}
