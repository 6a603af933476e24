// SPDX-License-Identifier: GPL-2.0
/*
 * Two real-time workers, above the SCHED_FIFO priority 1 of a boost, so
 * that a boosted task busy-polling its CPU cannot keep them off it.  One
 * boosts (arrivals from hooks, the periodic examination, reboosts); the
 * other only ends boosts, so no unboost ever waits behind work that
 * sleeps.  The locks the unboost worker takes are rt_mutexes: a holder
 * it waits for runs at its priority.
 */
#include <linux/err.h>
#include <linux/sched.h>

#include "workers.h"

static struct kthread_worker *cosched_boost_worker;
static struct kthread_worker *cosched_unboost_worker;

static struct kthread_worker *cosched_fifo_worker(const char *name)
{
	struct kthread_worker *w = kthread_create_worker(0, "%s", name);

	if (!IS_ERR(w))
		sched_set_fifo(w->task);
	return w;
}

/**
 * cosched_workers_init() - start both workers
 *
 * Return: 0 or the error of kthread_create_worker().
 */
int cosched_workers_init(void)
{
	cosched_boost_worker = cosched_fifo_worker("cosched");
	if (IS_ERR(cosched_boost_worker))
		return PTR_ERR(cosched_boost_worker);
	cosched_unboost_worker = cosched_fifo_worker("cosched-unboost");
	if (IS_ERR(cosched_unboost_worker)) {
		kthread_destroy_worker(cosched_boost_worker);
		return PTR_ERR(cosched_unboost_worker);
	}
	return 0;
}

/* After every user of the workers has stopped queueing. */
void cosched_workers_exit(void)
{
	kthread_destroy_worker(cosched_unboost_worker);
	kthread_destroy_worker(cosched_boost_worker);
}

/**
 * cosched_queue_boost_work() - run @work on the worker that may boost
 * @work: initialised with kthread_init_work()
 *
 * Any context.
 *
 * Return: false if @work was queued already.
 */
bool cosched_queue_boost_work(struct kthread_work *work)
{
	return kthread_queue_work(cosched_boost_worker, work);
}

/**
 * cosched_queue_unboost_work() - run @work on the worker that only ends
 *	boosts, which must never wait behind anything that sleeps long
 * @work: initialised with kthread_init_work()
 *
 * Any context.
 *
 * Return: false if @work was queued already.
 */
bool cosched_queue_unboost_work(struct kthread_work *work)
{
	return kthread_queue_work(cosched_unboost_worker, work);
}

void cosched_flush_boost_worker(void)
{
	kthread_flush_worker(cosched_boost_worker);
}
