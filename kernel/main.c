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

#include "boost.h"
#include "budget.h"
#include "dev.h"
#include "endpoint.h"
#include "hooks.h"
#include "pb.h"
#include "sysfs.h"
#include "task.h"
#include "tunables.h"
#include "workers.h"

/*
 * The layers, each calling only those below it:
 *   entries     dev.c, hooks.c (and its kfuncs), sysfs.c, main.c
 *   policy      policy.c, lifecycle.c
 *   mechanisms  boost.c, budget.c, pb.c, ring.c
 *   objects     endpoint.c, job.c, task.c, user.c
 *   base        tunables.c, workers.c, counters.c, trace.c
 * The task record reaches the boost engine only through the ops that
 * main.c hands it (struct cosched_task_ops).
 */

static int __init cosched_init(void)
{
	int ret;

	ret = cosched_budget_init();
	if (ret)
		return ret;
	ret = cosched_workers_init();
	if (ret)
		goto err_budget;
	ret = cosched_sysfs_init();
	if (ret)
		goto err_workers;
	ret = cosched_task_init(&cosched_boost_task_ops);
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
		cosched_policy_name(cosched_get(COSCHED_T_POLICY)));
	return 0;

err_hooks:
	cosched_hooks_exit();
err_pb:
	cosched_pb_exit();
err_oncpu:
	cosched_task_exit();
err_sysfs:
	cosched_sysfs_exit();
err_workers:
	cosched_workers_exit();
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
	cosched_ep_exit();
	rcu_barrier();
	rcu_barrier();
	cosched_workers_exit();
	cosched_sysfs_exit();
	cosched_budget_exit();
}

module_init(cosched_init);
module_exit(cosched_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Communication-driven coscheduling");
MODULE_AUTHOR("The cosched developers");
