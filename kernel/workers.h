/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's two real-time kthread workers.  Bottom layer.
 */
#ifndef _COSCHED_WORKERS_H
#define _COSCHED_WORKERS_H

#include <linux/kthread.h>

int cosched_workers_init(void);
void cosched_workers_exit(void);
bool cosched_queue_boost_work(struct kthread_work *work);
bool cosched_queue_unboost_work(struct kthread_work *work);
void cosched_flush_boost_worker(void);

#endif /* _COSCHED_WORKERS_H */
