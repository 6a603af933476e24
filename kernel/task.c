// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task records and their preempt notifiers.
 *
 * A task that creates an endpoint registers a preempt notifier for
 * itself, as KVM's vCPU threads do, so only tasks that own endpoints do
 * any work at a context switch, and each does O(1) work there: it keeps
 * its record's on-CPU state and mirrors it into at most
 * COSCHED_TASK_MIRRORS control pages and ring headers.
 *
 * preempt_notifier_unregister() may only run on the task itself, with
 * preemption off.  So when the task's last endpoint goes, the record is
 * unregistered on the task: at once if the task is the caller, else by
 * a task_work it runs before returning to user space or while exiting.
 * A task already past its task works keeps the notifier until its last
 * switch, whose sched_out drops the registration's reference through an
 * irq_work.  Exactly one of the three paths clears REGISTERED and drops
 * that reference.  Only the two last ones leave the notifier on the task
 * after the endpoint's file is closed, so only they pin the module (until
 * the record is freed): a task that closes its own endpoints leaves the
 * module free to unload at once.
 */
#include <linux/hash.h>
#include <linux/delay.h>
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "endpoint.h"
#include "task.h"

static DEFINE_SPINLOCK(cosched_tasks_lock);
static DEFINE_HASHTABLE(cosched_tasks, 8);
/* Dead-switch irq_works queued and not yet run: the module waits. */
static atomic_t cosched_dead_pending = ATOMIC_INIT(0);
static const struct cosched_task_ops *cosched_task_ops __ro_after_init;

static void cosched_task_free_rcu(struct rcu_head *head)
{
	struct cosched_task *t = container_of(head, struct cosched_task, rcu);

	bool pinned = t->pinned;

	put_task_struct(t->task);
	kfree(t);
	/* cosched_exit()'s rcu_barrier() waits for this callback to return. */
	if (pinned)
		module_put(THIS_MODULE);
}

/**
 * cosched_task_put() - drop a reference on a per-task record
 * @t: the record
 *
 * Any context; the memory goes after an RCU grace period.
 */
void cosched_task_put(struct cosched_task *t)
{
	if (refcount_dec_and_test(&t->ref))
		call_rcu(&t->rcu, cosched_task_free_rcu);
}

/* Mirror the on-CPU state into the first endpoints' shared pages. */
void cosched_task_mirror(struct cosched_task *t)
{
	bool on = READ_ONCE(t->on_cpu);
	unsigned int cpu = READ_ONCE(t->cpu);
	struct cosched_ep *ep;
	int n = 0;

	list_for_each_entry_rcu(ep, &t->eps, task_node) {
		if (n++ == COSCHED_TASK_MIRRORS)
			break;
		WRITE_ONCE(ep->ctrl->on_cpu, on);
		WRITE_ONCE(ep->ctrl->cpu, cpu);
		/* The senders' copy, for their doorbell decision. */
		WRITE_ONCE(ep->ring->on_cpu, on);
	}
}

static void cosched_task_sched_in(struct preempt_notifier *pn, int cpu)
{
	struct cosched_task *t = container_of(pn, struct cosched_task, pn);

	WRITE_ONCE(t->cpu, cpu);
	WRITE_ONCE(t->on_cpu, true);
	WRITE_ONCE(t->woken, false);
	cosched_task_mirror(t);
}

static void cosched_task_sched_out(struct preempt_notifier *pn,
				   struct task_struct *next)
{
	struct cosched_task *t = container_of(pn, struct cosched_task, pn);
	unsigned int state = READ_ONCE(current->__state);

	WRITE_ONCE(t->on_cpu, false);
	cosched_task_mirror(t);
	if (state == TASK_DEAD) {
		/* Its last switch: nothing iterates the notifier after it. */
		atomic_inc(&cosched_dead_pending);
		if (!irq_work_queue(&t->dead_work))
			atomic_dec(&cosched_dead_pending);
		return;
	}
	/* Still runnable: preempted rather than gone to sleep. */
	if (state == TASK_RUNNING && READ_ONCE(t->arrival_unboosted))
		cosched_task_ops->preempted(t);
}

static struct preempt_ops cosched_task_preempt_ops = {
	.sched_in	= cosched_task_sched_in,
	.sched_out	= cosched_task_sched_out,
};

static void cosched_task_unregister_self(struct cosched_task *t)
{
	if (!test_and_clear_bit(COSCHED_TASK_REGISTERED, &t->flags))
		return;
	preempt_disable();
	preempt_notifier_unregister(&t->pn);
	preempt_enable();
	cosched_task_put(t);
}

static void cosched_task_unregister_cb(struct callback_head *cb)
{
	/*
	 * The put may free the record, and with it the module's last
	 * pin, after a grace period: none ends while this still runs.
	 */
	rcu_read_lock();
	cosched_task_unregister_self(container_of(cb, struct cosched_task,
						  unregister_cb));
	rcu_read_unlock();
}

static void cosched_task_dead(struct irq_work *work)
{
	struct cosched_task *t = container_of(work, struct cosched_task,
					      dead_work);

	if (test_and_clear_bit(COSCHED_TASK_REGISTERED, &t->flags))
		cosched_task_put(t);
	atomic_dec(&cosched_dead_pending);
}

/* Take the notifier off the task; see the comment at the top. */
static void cosched_task_unregister(struct cosched_task *t)
{
	if (!test_bit(COSCHED_TASK_REGISTERED, &t->flags))
		return;
	if (t->task == current) {
		cosched_task_unregister_self(t);
		return;
	}
	/*
	 * The notifier stays on the task for a while: it pins the module
	 * until the record is freed.  -ESRCH: the task is past its task
	 * works, and its last switch drops the reference.  TWA_RESUME: a
	 * task asleep in a long system call keeps a harmless notifier until
	 * it returns.
	 */
	__module_get(THIS_MODULE);
	t->pinned = true;
	task_work_add(t->task, &t->unregister_cb, TWA_RESUME);
}

static struct cosched_task *cosched_task_find_current(void)
{
	struct cosched_task *t;

	lockdep_assert_held(&cosched_tasks_lock);
	hash_for_each_possible(cosched_tasks, t, node, (unsigned long)current)
		if (t->task == current &&
		    !test_bit(COSCHED_TASK_RETIRED, &t->flags))
			return t;
	return NULL;
}

/**
 * cosched_task_get_current() - the record of current, made if need be
 *
 * Process context, called by the task that is to own an endpoint.
 *
 * Return: the record with a reference for the caller, or
 * ERR_PTR(-ENOMEM).
 */
struct cosched_task *cosched_task_get_current(void)
{
	struct cosched_task *t, *found;

	spin_lock(&cosched_tasks_lock);
	t = cosched_task_find_current();
	if (t)
		refcount_inc(&t->ref);
	spin_unlock(&cosched_tasks_lock);
	if (t)
		return t;

	t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return ERR_PTR(-ENOMEM);
	t->task = get_task_struct(current);
	/* The caller's, and the registration's. */
	refcount_set(&t->ref, 2);
	spin_lock_init(&t->eps_lock);
	INIT_LIST_HEAD(&t->eps);
	init_task_work(&t->unregister_cb, cosched_task_unregister_cb);
	init_irq_work(&t->dead_work, cosched_task_dead);
	t->on_cpu = true;
	t->cpu = raw_smp_processor_id();
	cosched_task_ops->init(t);

	preempt_notifier_init(&t->pn, &cosched_task_preempt_ops);
	set_bit(COSCHED_TASK_REGISTERED, &t->flags);
	preempt_disable();
	preempt_notifier_register(&t->pn);
	preempt_enable();

	spin_lock(&cosched_tasks_lock);
	/* Another thread cannot make current's record: current is us. */
	found = cosched_task_find_current();
	WARN_ON_ONCE(found);
	hash_add(cosched_tasks, &t->node, (unsigned long)current);
	spin_unlock(&cosched_tasks_lock);
	return t;
}

/* Unlist a record with no endpoint left; RETIRED is set. */
static void cosched_task_unlist(struct cosched_task *t)
{
	spin_lock(&cosched_tasks_lock);
	hash_del(&t->node);
	spin_unlock(&cosched_tasks_lock);
}

/**
 * cosched_task_add_ep() - list an endpoint under its owner's record
 * @t: the record, of current
 * @ep: the new endpoint, not yet visible elsewhere
 *
 * Return: true; false if @t retired meanwhile (its last endpoint went,
 * destroyed by another task): the caller takes a new record.
 */
bool cosched_task_add_ep(struct cosched_task *t, struct cosched_ep *ep)
{
	spin_lock(&t->eps_lock);
	if (test_bit(COSCHED_TASK_RETIRED, &t->flags)) {
		spin_unlock(&t->eps_lock);
		return false;
	}
	list_add_tail_rcu(&ep->task_node, &t->eps);
	t->nr_eps++;
	spin_unlock(&t->eps_lock);
	/* Show the new endpoint where its owner is now. */
	preempt_disable();
	cosched_task_mirror(t);
	preempt_enable();
	return true;
}

/**
 * cosched_task_del_ep() - unlist an endpoint; the last one retires @t
 * @t: the record
 * @ep: the endpoint, listed by cosched_task_add_ep()
 *
 * Process context.  A retired record ends its boost or yield, starts
 * nothing more and takes its notifier off the task.
 */
void cosched_task_del_ep(struct cosched_task *t, struct cosched_ep *ep)
{
	bool last;

	spin_lock(&t->eps_lock);
	list_del_rcu(&ep->task_node);
	last = !--t->nr_eps;
	if (last)
		set_bit(COSCHED_TASK_RETIRED, &t->flags);
	spin_unlock(&t->eps_lock);
	if (!last)
		return;
	cosched_task_unlist(t);
	cosched_task_ops->retire(t);
	cosched_task_unregister(t);
}

/**
 * cosched_task_put_unused() - drop the reference of a creation that
 *	failed before its endpoint was listed
 * @t: the record, of current
 *
 * A record with no endpoint retires, so that it neither stays on the
 * task nor pins the module.
 */
void cosched_task_put_unused(struct cosched_task *t)
{
	bool retire;

	spin_lock(&t->eps_lock);
	retire = !t->nr_eps &&
		 !test_and_set_bit(COSCHED_TASK_RETIRED, &t->flags);
	spin_unlock(&t->eps_lock);
	if (retire) {
		cosched_task_unlist(t);
		cosched_task_unregister(t);
	}
	cosched_task_put(t);
}

/**
 * cosched_task_init() - get ready to make records
 * @ops: the boost engine's part of a record's life
 *
 * Return: 0.
 */
int cosched_task_init(const struct cosched_task_ops *ops)
{
	cosched_task_ops = ops;
	/* Registering a notifier with the key off would warn. */
	preempt_notifier_inc();
	return 0;
}

/*
 * No record is on a live task any more (one that is pins the module),
 * but a dying task's last switch may have queued its irq_work just now.
 */
void cosched_task_exit(void)
{
	while (atomic_read(&cosched_dead_pending))
		usleep_range(1000, 2000);
	/* The handlers ran with interrupts off: this waits for their end. */
	synchronize_rcu();
	preempt_notifier_dec();
}
