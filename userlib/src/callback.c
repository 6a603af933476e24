// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * callback.c - the completion-callback receive mode (the progressive
 * messages model): a thread of the library waits in the chosen mode and
 * hands every message to the application's function as it arrives.
 * While it runs it is the endpoint's only receiver.  A new thread per
 * session, or, for an endpoint opened with COSCHED_OPEN_CALLBACK, the
 * thread that created it and that the module steers (owner.c).
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>

struct ep_callback {
	pthread_t thread;
	cosched_msg_fn fn;
	void *arg;
	int mode;
	bool stop;
	void *buf;
	size_t len;
};

static void callback_session(struct cosched_ep *ep)
{
	struct ep_callback *cb = ep->cb;
	struct recv_arg a = { ep, NULL, cb->buf, cb->len, -EAGAIN, &cb->stop,
			      false };
	uint32_t src = 0;
	int err;

	a.src = &src;
	for (;;) {
		if (!ep_try_recv(&a)) {
			err = ep_wait_ring(ep, ep_try_recv, &a, cb->mode);
			if (err)
				a.ret = err;
		}
		if (a.ret == -ECANCELED)
			break;
		/* A message, or an error: both are the application's. */
		cb->fn(cb->arg, a.ret < 0 ? (int)a.ret : 0, src, cb->buf,
		       a.ret < 0 ? 0 : (size_t)a.ret);
		if (a.ret < 0 && a.ret != -ECONNRESET)
			break;
	}
}

static void *callback_main(void *p)
{
	callback_session(p);
	return NULL;
}

/* Wake the thread if it sleeps in the module: a doorbell of our own. */
static void callback_kick(struct cosched_ep *ep)
{
	if (ep_has_module(ep))
		ep_doorbell(ep, ep->rank);
}

void ep_callback_stop(struct cosched_ep *ep)
{
	struct ep_callback *cb = ep->cb;

	if (!cb)
		return;
	__atomic_store_n(&cb->stop, true, __ATOMIC_RELEASE);
	callback_kick(ep);
	if (ep->owner)
		ep_owner_wait_idle(ep);
	else
		pthread_join(cb->thread, NULL);
	__atomic_store_n(&ep->cb, NULL, __ATOMIC_RELAXED);
	free(cb->buf);
	free(cb);
}

void ep_callback_forget(struct cosched_ep *ep)
{
	struct ep_callback *cb = ep->cb;

	if (!cb)
		return;
	ep->cb = NULL;
	free(cb->buf);
	free(cb);
}

PUBLIC int cosched_recv_callback(struct cosched_ep *ep, cosched_msg_fn fn,
				 void *arg, int mode)
{
	struct ep_callback *cb;
	int err;

	if (!fn) {
		ep_callback_stop(ep);
		return 0;
	}
	if (mode < COSCHED_MODE_DEFAULT || mode > COSCHED_MODE_YIELD)
		return -EINVAL;
	if (ep->cb)
		return -EBUSY;
	cb = calloc(1, sizeof(*cb));
	if (!cb)
		return -ENOMEM;
	cb->fn = fn;
	cb->arg = arg;
	cb->mode = mode;
	/* Room for the largest message any sender can put in our ring. */
	cb->len = ep->own.v.max_msg;
	cb->buf = malloc(cb->len ? cb->len : 1);
	if (!cb->buf) {
		free(cb);
		return -ENOMEM;
	}
	ep->cb = cb;
	/* COSCHED_OPEN_CALLBACK: the thread the module steers runs it. */
	if (ep->owner)
		err = ep_owner_run(ep, callback_session);
	else
		err = ep_spawn(&cb->thread, callback_main, ep);
	if (err) {
		ep->cb = NULL;
		free(cb->buf);
		free(cb);
	}
	return err;
}
