// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ucx_finalize.c: libcosched-ucx-finalize.so, which cosched-run preloads
 * into MPICH ranks (with or without the glue) so that MPICH 4.0.2 ch4:ucx
 * never hangs in MPI_Finalize (issue 12;
 * Documentation/results/mpi-glue/finalize/README.md).
 *
 * Why: MPICH's UCX finalize closes every endpoint in flush mode, spins on
 * ucp_worker_progress until its own closes complete, then blocks in a PMI
 * barrier without progressing UCX.  Over UCX's TCP transport a flush after
 * any active message sends a zero-length PUT and waits for the peer's ACK.
 * A rank whose closes completed first sits in the PMI barrier with the
 * peer's PUT unread in its socket; the peer spins for the ACK forever.
 * Here a helper thread progresses the worker while the main thread waits,
 * so the ACK goes out.  Calls are serialised by one lock, as the worker's
 * UCS_THREAD_MODE_SERIALIZED (MPICH's) requires; the helper stops before
 * ucp_worker_destroy.  ucp_disconnect_nb is called by MPICH's finalize
 * hook only, so nothing changes before MPI_Finalize.  UCX is found with
 * dlsym(RTLD_NEXT) at first use (no -lucp): a process without UCX never
 * calls in here.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <ucp/api/ucp.h>

#define MAX_WORKERS 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int helping;	/* the helper runs: every call takes the lock */
static atomic_int stopping;
static pthread_t helper;
static ucp_worker_h workers[MAX_WORKERS];
static int nworkers;

static unsigned int (*real_progress)(ucp_worker_h);
static ucs_status_ptr_t (*real_disconnect)(ucp_ep_h);
static int (*real_is_completed)(void *);
static void (*real_release)(void *);
static ucs_status_t (*real_create)(ucp_context_h, const ucp_worker_params_t *,
				   ucp_worker_h *);
static void (*real_destroy)(ucp_worker_h);

static void *next(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "cosched-ucx-finalize: %s not found\n", name);
		abort();
	}
	return f;
}

/* At first use: the preload reaches processes without UCX too (a shell). */
static void resolve_all(void)
{
	real_disconnect = next("ucp_disconnect_nb");
	real_is_completed = next("ucp_request_is_completed");
	real_release = next("ucp_request_release");
	real_create = next("ucp_worker_create");
	real_destroy = next("ucp_worker_destroy");
	/* last: resolve() skips pthread_once once this one is set */
	__atomic_store_n(&real_progress, next("ucp_worker_progress"),
			 __ATOMIC_RELEASE);
}

static pthread_once_t resolved = PTHREAD_ONCE_INIT;

static inline void resolve(void)
{
	if (!__atomic_load_n(&real_progress, __ATOMIC_ACQUIRE))
		pthread_once(&resolved, resolve_all);
}

ucs_status_t ucp_worker_create(ucp_context_h ctx,
			       const ucp_worker_params_t *params,
			       ucp_worker_h *worker)
{
	ucs_status_t s;

	resolve();
	s = real_create(ctx, params, worker);

	pthread_mutex_lock(&lock);
	if (s == UCS_OK && nworkers < MAX_WORKERS)
		workers[nworkers++] = *worker;
	pthread_mutex_unlock(&lock);
	return s;
}

/*
 * Progress every worker until ucp_worker_destroy; sleep a little when idle
 * (the main thread is blocked in the PMI barrier, nothing else runs here).
 */
static void *help(void *unused)
{
	struct timespec idle = { 0, 50 * 1000 };

	(void)unused;
	while (!atomic_load(&stopping)) {
		unsigned int n = 0;

		pthread_mutex_lock(&lock);
		for (int i = 0; i < nworkers; i++)
			n += real_progress(workers[i]);
		pthread_mutex_unlock(&lock);
		if (!n)
			nanosleep(&idle, NULL);
	}
	return NULL;
}

unsigned int ucp_worker_progress(ucp_worker_h worker)
{
	unsigned int n;

	resolve();
	if (!atomic_load_explicit(&helping, memory_order_relaxed))
		return real_progress(worker);
	pthread_mutex_lock(&lock);
	n = real_progress(worker);
	pthread_mutex_unlock(&lock);
	return n;
}

ucs_status_ptr_t ucp_disconnect_nb(ucp_ep_h ep)
{
	ucs_status_ptr_t r;

	resolve();
	pthread_mutex_lock(&lock);
	r = real_disconnect(ep);
	pthread_mutex_unlock(&lock);
	if (!atomic_load(&helping) && !atomic_load(&stopping)) {
		atomic_store(&helping, 1);
		if (pthread_create(&helper, NULL, help, NULL)) {
			atomic_store(&helping, 0);
			fprintf(stderr, "cosched-ucx-finalize: no helper thread\n");
		}
	}
	return r;
}

int ucp_request_is_completed(void *request)
{
	int r;

	resolve();
	if (!atomic_load(&helping))
		return real_is_completed(request);
	pthread_mutex_lock(&lock);
	r = real_is_completed(request);
	pthread_mutex_unlock(&lock);
	return r;
}

void ucp_request_release(void *request)
{
	resolve();
	if (!atomic_load(&helping)) {
		real_release(request);
		return;
	}
	pthread_mutex_lock(&lock);
	real_release(request);
	pthread_mutex_unlock(&lock);
}

/* The first destroy ends the helper (every worker's PMI barrier is over). */
void ucp_worker_destroy(ucp_worker_h worker)
{
	resolve();
	if (atomic_load(&helping)) {
		atomic_store(&stopping, 1);
		pthread_join(helper, NULL);
		atomic_store(&helping, 0);
	}
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nworkers; i++)
		if (workers[i] == worker)
			workers[i] = workers[--nworkers];
	pthread_mutex_unlock(&lock);
	real_destroy(worker);
}
