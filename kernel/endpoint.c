// SPDX-License-Identifier: GPL-2.0
/*
 * Endpoints: creation, lookup by (owner, job, rank), teardown, and the
 * memory they share with user space: the control page (a mirror of the
 * kernel's state) and the receive ring.
 *
 * An endpoint is listed in the (owner, job, rank) hash that doorbells
 * search under RCU, in its job's list, in its owner task's and user's
 * lists, and in the table of all endpoints, by slot, that the examiner
 * walks under RCU a part at a time.
 * Memory is charged to the creator's memory cgroup and freed after an
 * RCU grace period once the last reference is gone, so lock-free readers
 * never see a freed endpoint.
 */
#include <linux/cred.h>
#include <linux/gfp.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/rculist.h>
#include <linux/sched/task.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>

#include "endpoint.h"
#include "job.h"
#include "task.h"
#include "user.h"

/*
 * Serialises changes to the tables below and to what the control pages
 * mirror of the tunables.
 */
static DEFINE_MUTEX(cosched_ep_table_mutex);
/*
 * All endpoints, by slot: slots are handed out cyclically, so a walk in
 * slot order meets them in creation order and can resume at a slot.
 */
static DEFINE_XARRAY_ALLOC(cosched_endpoints);
static u32 cosched_next_slot;
static struct cosched_counters cosched_global_stats;
static atomic_t cosched_nr_live = ATOMIC_INIT(0);

static DEFINE_HASHTABLE(cosched_ep_keys, 10);
static atomic64_t cosched_next_id = ATOMIC64_INIT(0);

static u32 cosched_key_hash(kuid_t owner, u64 job_id, u32 rank)
{
	return hash_64(job_id ^ ((u64)rank << 32 | rank) ^
		       ((u64)__kuid_val(owner) << 16), 32);
}

void cosched_count(struct cosched_ep *ep, enum cosched_counter c, u64 n)
{
	atomic64_add(n, &ep->stats.val[c]);
	atomic64_add(n, &ep->job->stats.val[c]);
	atomic64_add(n, &cosched_global_stats.val[c]);
}

/* State bits have several writers; the page only mirrors them. */
void cosched_set_state(struct cosched_ep *ep, u32 bit, bool on)
{
	unsigned long flags;

	spin_lock_irqsave(&ep->arrive_lock, flags);
	ep->state = on ? ep->state | bit : ep->state & ~bit;
	WRITE_ONCE(ep->ctrl->state, ep->state);
	spin_unlock_irqrestore(&ep->arrive_lock, flags);
}

/* What the owner's wait loop follows: the policy and its spin time. */
static void cosched_ctrl_publish_policy(struct cosched_ep *ep)
{
	unsigned int policy = cosched_get(COSCHED_T_POLICY);

	lockdep_assert_held(&cosched_ep_table_mutex);
	WRITE_ONCE(ep->ctrl->policy, policy);
	WRITE_ONCE(ep->ctrl->wait_mode, cosched_policy_desc(policy)->wait_mode);
	WRITE_ONCE(ep->ctrl->spin_us, cosched_get(COSCHED_T_SPIN_US));
}

/**
 * cosched_ep_publish_tunable() - set a tunable the control pages mirror
 * @id: COSCHED_T_POLICY or COSCHED_T_SPIN_US
 * @val: its new value, validated
 *
 * Every endpoint's page shows the new value when this returns, and an
 * endpoint being created shows either the old one and then the new one,
 * or the new one.
 */
void cosched_ep_publish_tunable(enum cosched_tunable_id id, unsigned int val)
{
	struct cosched_ep *ep;
	unsigned long slot;

	mutex_lock(&cosched_ep_table_mutex);
	cosched_tunable_set(id, val);
	xa_for_each(&cosched_endpoints, slot, ep)
		cosched_ctrl_publish_policy(ep);
	mutex_unlock(&cosched_ep_table_mutex);
}

/**
 * cosched_ep_visit_from_rcu() - call @fn on listed endpoints, from a slot on
 * @start: the slot to begin at; the walk goes on from slot 0 up to @start
 * @fn: the visitor, which returns false to stop the walk after the
 *	endpoint it was given; it must not sleep, and may keep an endpoint
 *	until the caller's rcu_read_unlock() (a reference keeps it longer)
 * @arg: passed to @fn
 *
 * The caller holds rcu_read_lock(); endpoints created or destroyed
 * meanwhile may or may not be visited.  Finding where to begin costs
 * O(log n), so a walk that must be short can be done a part at a time.
 *
 * Return: the slot after the endpoint @fn stopped at, where the next walk
 * resumes; @start if every endpoint was visited.
 */
u32 cosched_ep_visit_from_rcu(u32 start, cosched_ep_visit_t fn, void *arg)
{
	XA_STATE(xas, &cosched_endpoints, start);
	unsigned long last = ULONG_MAX;
	struct cosched_ep *ep;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "needs rcu_read_lock()");
	for (;;) {
		xas_for_each(&xas, ep, last) {
			/* A reserved slot, or the array changed under us. */
			if (xas_retry(&xas, ep))
				continue;
			if (!fn(ep, arg))
				return (u32)(xas.xa_index + 1);
		}
		if (!start || last != ULONG_MAX)
			return start;
		/* Round to the slots before @start. */
		last = start - 1;
		xas_set(&xas, 0);
	}
}

/**
 * cosched_ep_exit() - at unload: the table of all endpoints is empty
 *
 * Every open file pins the module, so no endpoint is left; an XArray
 * keeps no memory once empty, but one that is not would leak.
 */
void cosched_ep_exit(void)
{
	WARN_ON(!xa_empty(&cosched_endpoints));
	xa_destroy(&cosched_endpoints);
}

/* Live endpoints, for stats/endpoints. */
int cosched_nr_endpoints(void)
{
	return atomic_read(&cosched_nr_live);
}

/* The module's counters, for stats/. */
const struct cosched_counters *cosched_global_counters(void)
{
	return &cosched_global_stats;
}

/* Bytes of the data area of a ring created now: ring_kb, rounded up. */
static u32 cosched_ring_data_bytes(void)
{
	return roundup_pow_of_two(cosched_get(COSCHED_T_RING_KB) * 1024U);
}

/* The size of a ring made now: a header page and the data area. */
u32 cosched_ring_size(void)
{
	return PAGE_SIZE + cosched_ring_data_bytes();
}

static int cosched_ring_alloc(struct cosched_ep *ep)
{
	u32 data = cosched_ring_data_bytes();
	struct cosched_ring *ring;

	/* Charged to the creator's memory cgroup, like the endpoint. */
	ring = __vmalloc(PAGE_SIZE + data, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!ring)
		return -ENOMEM;
	ring->data_size = data;
	ring->data_offset = PAGE_SIZE;
	ring->rank = ep->rank;
	ep->ring = ring;
	ep->ring_data = data;
	return 0;
}

/*
 * The kernel's own rule for changing another task's scheduling
 * (check_same_owner() in kernel/sched): current's euid is the task's
 * real or effective uid now, not when the endpoint was made.
 */
static bool cosched_same_owner(struct task_struct *p)
{
	const struct cred *cred = current_cred(), *pcred;
	bool match;

	rcu_read_lock();
	pcred = __task_cred(p);
	match = uid_eq(cred->euid, pcred->euid) ||
		uid_eq(cred->euid, pcred->uid);
	rcu_read_unlock();
	return match;
}

/**
 * cosched_may_steer() - may current boost, wake or lower @ep's owner?
 * @ep: the endpoint
 *
 * Checked against the owner's credentials of the moment, so an owner
 * that has exec()ed a set-uid program is no longer reachable by its old
 * uid.  CAP_SYS_NICE, which lets a process raise another's priority
 * anyway, also allows it (as for sched_setattr()); a filter over many
 * endpoints asks without auditing.
 *
 * Return: true if current may.
 */
bool cosched_may_steer(struct cosched_ep *ep)
{
	return cosched_same_owner(ep->task->task) || capable(CAP_SYS_NICE);
}

bool cosched_may_steer_noaudit(struct cosched_ep *ep)
{
	return cosched_same_owner(ep->task->task) ||
	       ns_capable_noaudit(&init_user_ns, CAP_SYS_NICE);
}

static struct cosched_ep *cosched_key_find(kuid_t owner, u64 job_id,
					   u32 rank)
{
	struct cosched_ep *ep;

	hash_for_each_possible_rcu(cosched_ep_keys, ep, key_node,
				   cosched_key_hash(owner, job_id, rank))
		if (ep->job->id == job_id && ep->rank == rank &&
		    uid_eq(ep->job->owner, owner))
			return ep;
	return NULL;
}

/**
 * cosched_ep_lookup() - find a live endpoint by owner, job and rank
 * @owner: the uid whose jobs to look in
 * @job_id: the job
 * @rank: the rank
 *
 * Return: the endpoint with a reference the caller drops with
 * cosched_ep_put(), or NULL.
 */
struct cosched_ep *cosched_ep_lookup(kuid_t owner, u64 job_id, u32 rank)
{
	struct cosched_ep *ep;

	rcu_read_lock();
	ep = cosched_key_find(owner, job_id, rank);
	if (ep && !refcount_inc_not_zero(&ep->ref))
		ep = NULL;
	rcu_read_unlock();
	return ep;
}

static void cosched_ep_free_rcu(struct rcu_head *head)
{
	struct cosched_ep *ep = container_of(head, struct cosched_ep, rcu);

	__free_page(ep->ctrl_page);
	vfree(ep->ring);
	cosched_task_put(ep->task);
	cosched_user_put(ep->user);
	cosched_job_put(ep->job);
	kfree(ep);
}

void cosched_ep_put(struct cosched_ep *ep)
{
	if (refcount_dec_and_test(&ep->ref))
		call_rcu(&ep->rcu, cosched_ep_free_rcu);
}

/**
 * cosched_ep_create() - create an endpoint owned by current
 * @job_id: the job, not 0: a job of current's effective uid
 * @rank: the rank, below COSCHED_MAX_RANKS
 * @hook_fn: what the boost worker runs for the endpoint's arrival hooks
 *	(hooks.c); set before the endpoint can be found
 *
 * Return: the endpoint holding one reference for the caller, or
 * ERR_PTR(-EEXIST) if the rank is taken, -EUSERS if the user has
 * user_max_endpoints endpoints already, -ENOMEM.
 */
struct cosched_ep *cosched_ep_create(u64 job_id, u32 rank,
				     kthread_work_func_t hook_fn)
{
	kuid_t owner = current_euid();
	struct cosched_job *job;
	struct cosched_ep *ep;
	int ret;

	ep = kzalloc(sizeof(*ep), GFP_KERNEL_ACCOUNT);
	if (!ep)
		return ERR_PTR(-ENOMEM);
	ret = cosched_user_add_ep(owner, ep);
	if (ret)
		goto err_free;
	ep->ctrl_page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!ep->ctrl_page) {
		ret = -ENOMEM;
		goto err_user;
	}
	ep->ctrl = page_address(ep->ctrl_page);
	ep->rank = rank;
	refcount_set(&ep->ref, 1);
	spin_lock_init(&ep->arrive_lock);
	init_waitqueue_head(&ep->wq);
	INIT_LIST_HEAD(&ep->hooks);
	kthread_init_work(&ep->hook_work, hook_fn);
	ret = cosched_ring_alloc(ep);
	if (ret)
		goto err_page;
	ep->task = cosched_task_get_current();
	if (IS_ERR(ep->task)) {
		ret = PTR_ERR(ep->task);
		goto err_ring;
	}

	mutex_lock(&cosched_ep_table_mutex);
	rcu_read_lock();
	ret = cosched_key_find(owner, job_id, rank) ? -EEXIST : 0;
	rcu_read_unlock();
	if (ret)
		goto err_unlock;
	/* Reserved now, filled in below where nothing can fail any more. */
	ret = xa_alloc_cyclic(&cosched_endpoints, &ep->slot, NULL,
			      XA_LIMIT(1, U32_MAX),
			      &cosched_next_slot, GFP_KERNEL_ACCOUNT);
	if (ret < 0)
		goto err_unlock;
	job = cosched_job_join(owner, job_id);
	if (IS_ERR(job)) {
		ret = PTR_ERR(job);
		goto err_slot;
	}
	ep->job = job;
	mutex_lock(&job->eps_lock);
	list_add_tail(&ep->job_node, &job->eps);
	mutex_unlock(&job->eps_lock);
	ep->id = atomic64_inc_return(&cosched_next_id);
	ep->ctrl->endpoint_id = ep->id;
	ep->ring->endpoint_id = ep->id;
	cosched_ctrl_publish_policy(ep);
	/*
	 * Complete now: list it where others may find it.  A record that
	 * retired meanwhile (its last endpoint destroyed by another task)
	 * is replaced.
	 */
	while (!cosched_task_add_ep(ep->task, ep)) {
		struct cosched_task *t = cosched_task_get_current();

		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			mutex_lock(&job->eps_lock);
			list_del(&ep->job_node);
			mutex_unlock(&job->eps_lock);
			cosched_job_leave(job);
			cosched_job_put(job);
			goto err_slot;
		}
		cosched_task_put(ep->task);
		ep->task = t;
	}
	cosched_user_list_ep(ep);
	hash_add_rcu(cosched_ep_keys, &ep->key_node,
		     cosched_key_hash(owner, job_id, rank));
	/* Into the reserved slot: its nodes exist, nothing is allocated. */
	WARN_ON_ONCE(xa_is_err(xa_store(&cosched_endpoints, ep->slot, ep,
					GFP_KERNEL_ACCOUNT)));
	atomic_inc(&cosched_nr_live);
	mutex_unlock(&cosched_ep_table_mutex);
	return ep;

err_slot:
	xa_release(&cosched_endpoints, ep->slot);
err_unlock:
	mutex_unlock(&cosched_ep_table_mutex);
	cosched_task_put_unused(ep->task);
err_ring:
	vfree(ep->ring);
err_page:
	__free_page(ep->ctrl_page);
err_user:
	cosched_user_del_ep(ep);
	cosched_user_put(ep->user);
err_free:
	kfree(ep);
	return ERR_PTR(ret);
}

/**
 * cosched_poll_wake() - wake poll() waiters on the endpoint's file
 * @ep: the endpoint
 * @mask: the events that may have become true
 *
 * Any context.  The file's wait queue is freed only after an RCU grace
 * period, and the endpoint forgets it when it is destroyed.  Every
 * arrival comes here, the hooks' from the sender's softirq, and usually
 * nobody polls: wq_has_sleeper() spares the queue's lock then.  Its
 * barrier orders the caller's state change before the check and pairs
 * with the one in cosched_poll().
 */
void cosched_poll_wake(struct cosched_ep *ep, __poll_t mask)
{
	wait_queue_head_t *wq;

	rcu_read_lock();
	wq = rcu_dereference(ep->poll_wq);
	if (wq && wq_has_sleeper(wq))
		wake_up_interruptible_poll(wq, mask);
	rcu_read_unlock();
}

/**
 * cosched_ep_peer_lost() - tell @ep that a peer of its job is gone
 * @ep: the endpoint
 *
 * Its waits fail with -ECONNRESET instead of waiting for the peer
 * forever.
 */
void cosched_ep_peer_lost(struct cosched_ep *ep)
{
	WRITE_ONCE(ep->ctrl->peers_lost, atomic_inc_return(&ep->peers_lost));
	/* Pairs with the barrier implied by prepare_to_wait(). */
	smp_mb();
	wake_up_all(&ep->wq);
	cosched_poll_wake(ep, EPOLLERR);
}

/**
 * cosched_ep_unlist() - make an endpoint unreachable
 * @ep: the endpoint
 * @orderly: the owner asked for it (COSCHED_IOC_DESTROY); otherwise the
 *	file went away with its endpoint, and @peer_lost is called on each
 *	of the job's other endpoints
 * @peer_lost: what the caller does for a peer of a lost endpoint; called
 *	under the job's eps_lock
 *
 * Nothing finds @ep after this; work that holds a reference still may
 * use it until cosched_ep_retire().
 */
void cosched_ep_unlist(struct cosched_ep *ep, bool orderly,
		       void (*peer_lost)(struct cosched_ep *peer))
{
	struct cosched_ep *peer;

	mutex_lock(&cosched_ep_table_mutex);
	hash_del_rcu(&ep->key_node);
	xa_erase(&cosched_endpoints, ep->slot);
	cosched_job_leave(ep->job);
	atomic_dec(&cosched_nr_live);
	mutex_unlock(&cosched_ep_table_mutex);

	/* The job's own lock: an exit walks its job, nothing global. */
	mutex_lock(&ep->job->eps_lock);
	list_del(&ep->job_node);
	WRITE_ONCE(ep->ring->flags, orderly ? COSCHED_RING_CLOSED :
					      COSCHED_RING_LOST);
	if (!orderly)
		list_for_each_entry(peer, &ep->job->eps, job_node)
			peer_lost(peer);
	mutex_unlock(&ep->job->eps_lock);
}

/**
 * cosched_ep_retire() - finish off an unlisted endpoint
 * @ep: the endpoint, unlisted and dead, with nothing of its own running
 *	on its owner any more; the caller's reference is dropped
 *
 * Waiters return -EIDRM, and the memory goes when the last reference
 * does.
 */
void cosched_ep_retire(struct cosched_ep *ep)
{
	WARN_ON_ONCE(!READ_ONCE(ep->dead));
	cosched_task_del_ep(ep->task, ep);
	cosched_user_del_ep(ep);
	WRITE_ONCE(ep->ring->on_cpu, 0);
	cosched_set_state(ep, COSCHED_STATE_DEAD, true);
	wake_up_all(&ep->wq);
	cosched_poll_wake(ep, EPOLLHUP);
	RCU_INIT_POINTER(ep->poll_wq, NULL);
	cosched_ep_put(ep);
}
