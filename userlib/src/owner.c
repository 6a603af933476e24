// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * owner.c - COSCHED_OPEN_CALLBACK: the module steers the task that
 * created the endpoint (boosts it, lowers it, follows it on and off its
 * CPU).  In callback mode the thread that waits for messages is the
 * library's, not the application's, so for such an endpoint the library
 * creates it from a thread of its own, which lives as long as the
 * endpoint, runs every callback session, and destroys the endpoint at
 * the end.  Otherwise dcs would boost the application's thread (asleep,
 * or computing) when a message came for the callback thread.
 */
#include "internal.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>

struct ep_owner {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int err;			/* ep_create()'s, once created is set */
	bool created;
	void (*job)(struct cosched_ep *);	/* a session to run, or NULL */
	bool exit;
};

static void *owner_main(void *p)
{
	struct cosched_ep *ep = p;
	struct ep_owner *o = ep->owner;
	void (*job)(struct cosched_ep *);
	int err = ep_create(ep);

	pthread_mutex_lock(&o->lock);
	o->err = err;
	o->created = true;
	pthread_cond_broadcast(&o->cond);
	while (!err) {
		while (!o->job && !o->exit)
			pthread_cond_wait(&o->cond, &o->lock);
		if (!o->job)
			break;
		job = o->job;
		pthread_mutex_unlock(&o->lock);
		job(ep);
		pthread_mutex_lock(&o->lock);
		o->job = NULL;
		pthread_cond_broadcast(&o->cond);
	}
	pthread_mutex_unlock(&o->lock);
	/* The owner ends its own endpoint: its switch hooks go at once. */
	if (!err)
		ioctl(ep->fd, COSCHED_IOC_DESTROY);
	return NULL;
}

static void owner_free(struct cosched_ep *ep)
{
	struct ep_owner *o = ep->owner;

	pthread_cond_destroy(&o->cond);
	pthread_mutex_destroy(&o->lock);
	free(o);
	ep->owner = NULL;
}

/*
 * Not owner_free(): the parent's owner thread may have been waiting on
 * the condition variable at the fork, and destroying the child's copy
 * would wait for a waiter that no thread of the child will ever wake.
 */
void ep_owner_forget(struct cosched_ep *ep)
{
	free(ep->owner);
	ep->owner = NULL;
}

/*
 * A library thread, with every signal blocked: the application's
 * handlers run on its own threads, never on ours (pthread_create's
 * thread inherits the mask it was created with).
 */
int ep_spawn(pthread_t *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = -pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

int ep_owner_create(struct cosched_ep *ep)
{
	struct ep_owner *o = calloc(1, sizeof(*o));
	int err;

	if (!o)
		return -ENOMEM;
	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->cond, NULL);
	ep->owner = o;
	err = ep_spawn(&o->thread, owner_main, ep);
	if (err) {
		owner_free(ep);
		return err;
	}
	pthread_mutex_lock(&o->lock);
	while (!o->created)
		pthread_cond_wait(&o->cond, &o->lock);
	err = o->err;
	pthread_mutex_unlock(&o->lock);
	if (err) {
		pthread_join(o->thread, NULL);
		owner_free(ep);
	}
	return err;
}

int ep_owner_run(struct cosched_ep *ep, void (*job)(struct cosched_ep *))
{
	struct ep_owner *o = ep->owner;
	int err = 0;

	pthread_mutex_lock(&o->lock);
	if (o->job) {
		err = -EBUSY;
	} else {
		o->job = job;
		pthread_cond_broadcast(&o->cond);
	}
	pthread_mutex_unlock(&o->lock);
	return err;
}

void ep_owner_wait_idle(struct cosched_ep *ep)
{
	struct ep_owner *o = ep->owner;

	pthread_mutex_lock(&o->lock);
	while (o->job)
		pthread_cond_wait(&o->cond, &o->lock);
	pthread_mutex_unlock(&o->lock);
}

void ep_owner_destroy(struct cosched_ep *ep)
{
	struct ep_owner *o = ep->owner;

	pthread_mutex_lock(&o->lock);
	o->exit = true;
	pthread_cond_broadcast(&o->cond);
	pthread_mutex_unlock(&o->lock);
	pthread_join(o->thread, NULL);
	owner_free(ep);
}
