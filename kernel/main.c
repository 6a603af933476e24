// SPDX-License-Identifier: GPL-2.0
/*
 * cosched: communication-driven coscheduling.
 *
 * Message arrivals, announced through /dev/cosched doorbells (and BPF
 * hooks), steer the local scheduler so that the processes of one
 * parallel job tend to run at the same time on every node: dynamic
 * coscheduling, periodic boost, spin-block, spin-yield and their
 * combinations (Nagar, thesis chapter 6).  See Documentation/.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/kthread.h>
#include <linux/sched.h>

#include "cosched.h"
#include "task.h"

/*
 * Two real-time workers, above the SCHED_FIFO priority 1 of a boost, so
 * that a boosted task busy-polling its CPU cannot keep them off it.  One
 * boosts (arrivals from hooks, the periodic examination, reboosts); the
 * other only ends boosts, so no unboost ever waits behind work that
 * sleeps.  The locks the unboost worker takes are rt_mutexes: a holder
 * it waits for runs at its priority.
 */
struct kthread_worker *cosched_worker;
struct kthread_worker *cosched_unboost_worker;

static int __init cosched_init(void)
{
	int ret;

	ret = cosched_budget_init();
	if (ret)
		return ret;
	cosched_worker = kthread_create_worker(0, "cosched");
	if (IS_ERR(cosched_worker)) {
		ret = PTR_ERR(cosched_worker);
		goto err_budget;
	}
	sched_set_fifo(cosched_worker->task);
	cosched_unboost_worker = kthread_create_worker(0, "cosched-unboost");
	if (IS_ERR(cosched_unboost_worker)) {
		ret = PTR_ERR(cosched_unboost_worker);
		goto err_wq;
	}
	sched_set_fifo(cosched_unboost_worker->task);
	ret = cosched_sysfs_init();
	if (ret)
		goto err_unboost_wq;
	ret = cosched_task_init();
	if (ret)
		goto err_sysfs;
	ret = cosched_pb_init();
	if (ret)
		goto err_oncpu;
	ret = cosched_hooks_init();
	if (ret)
		goto err_pb;
	ret = cosched_dev_init();
	if (ret)
		goto err_hooks;
	pr_info("cosched: loaded, policy %s\n",
		cosched_policy_names[cosched_get(COSCHED_T_POLICY)]);
	return 0;

err_hooks:
	cosched_hooks_exit();
err_pb:
	cosched_pb_exit();
err_oncpu:
	cosched_task_exit();
err_sysfs:
	cosched_sysfs_exit();
err_unboost_wq:
	kthread_destroy_worker(cosched_unboost_worker);
err_wq:
	kthread_destroy_worker(cosched_worker);
err_budget:
	cosched_budget_exit();
	return ret;
}

/*
 * Every open file pins the module, so no endpoint exists here; only
 * their RCU-deferred frees may still be pending.
 */
static void __exit cosched_exit(void)
{
	cosched_dev_exit();
	cosched_hooks_exit();
	cosched_pb_exit();
	/*
	 * No endpoint is left, and no record is on a task any more (one
	 * that is pins the module): wait for the irq_works of tasks that
	 * just died, then for the frees (an endpoint's queues its record's).
	 */
	cosched_task_exit();
	rcu_barrier();
	rcu_barrier();
	kthread_destroy_worker(cosched_unboost_worker);
	kthread_destroy_worker(cosched_worker);
	cosched_sysfs_exit();
	cosched_budget_exit();
}

module_init(cosched_init);
module_exit(cosched_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Communication-driven coscheduling");
MODULE_AUTHOR("The cosched developers");
