// SPDX-License-Identifier: GPL-2.0
/*
 * Per-user records.  One exists while its user has an endpoint or a
 * running boost; its endpoint count is what user_max_endpoints bounds.
 */
#include <linux/hashtable.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "endpoint.h"
#include "tunables.h"
#include "user.h"

static DEFINE_SPINLOCK(cosched_users_lock);
static DEFINE_HASHTABLE(cosched_users, 6);

void cosched_user_get(struct cosched_user *u)
{
	refcount_inc(&u->ref);
}

/**
 * cosched_user_put() - drop a reference on a per-user record
 * @u: the record
 *
 * Any context but hard interrupts.
 */
void cosched_user_put(struct cosched_user *u)
{
	unsigned long flags;

	spin_lock_irqsave(&cosched_users_lock, flags);
	if (!refcount_dec_and_test(&u->ref)) {
		spin_unlock_irqrestore(&cosched_users_lock, flags);
		return;
	}
	hash_del(&u->node);
	spin_unlock_irqrestore(&cosched_users_lock, flags);
	/* Its endpoints hold it, and each drops its hooks before it goes. */
	WARN_ON_ONCE(atomic_read(&u->nr_hooks));
	kfree_rcu(u, rcu);
}

/**
 * cosched_user_add_ep() - count a new endpoint against its user's limit
 * @uid: the creating task's effective uid
 * @ep: the endpoint, not yet visible; gets its user reference, and is
 *	listed by cosched_user_list_ep() once complete
 *
 * Return: 0; -EUSERS when the user has user_max_endpoints endpoints
 * already; -ENOMEM.
 */
int cosched_user_add_ep(kuid_t uid, struct cosched_ep *ep)
{
	struct cosched_user *u, *new;
	unsigned long flags;
	int ret = 0;

	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return -ENOMEM;
	spin_lock_irqsave(&cosched_users_lock, flags);
	hash_for_each_possible(cosched_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			goto found;
	u = new;
	new = NULL;
	u->uid = uid;
	refcount_set(&u->ref, 1);
	cosched_bucket_init(&u->budget);
	INIT_LIST_HEAD(&u->eps);
	hash_add(cosched_users, &u->node, __kuid_val(uid));
	goto add;
found:
	if (u->nr_eps >= cosched_get(COSCHED_T_USER_MAX_ENDPOINTS)) {
		ret = -EUSERS;
		goto out;
	}
	refcount_inc(&u->ref);
add:
	u->nr_eps++;
	INIT_LIST_HEAD(&ep->user_node);
	ep->user = u;
out:
	spin_unlock_irqrestore(&cosched_users_lock, flags);
	kfree(new);
	return ret;
}

/* Make a complete endpoint visible to its user's spin-yields. */
void cosched_user_list_ep(struct cosched_ep *ep)
{
	unsigned long flags;

	spin_lock_irqsave(&cosched_users_lock, flags);
	list_add_tail_rcu(&ep->user_node, &ep->user->eps);
	spin_unlock_irqrestore(&cosched_users_lock, flags);
}

/* Unlist and uncount @ep; its reference goes with the endpoint. */
void cosched_user_del_ep(struct cosched_ep *ep)
{
	unsigned long flags;

	spin_lock_irqsave(&cosched_users_lock, flags);
	if (!list_empty(&ep->user_node))
		list_del_rcu(&ep->user_node);
	ep->user->nr_eps--;
	spin_unlock_irqrestore(&cosched_users_lock, flags);
}

/**
 * cosched_user_charge_hook() - count a new registration against its user
 * @u: the user of the endpoint it is made on
 *
 * Any context.  A limit lowered below the count refuses new ones only.
 *
 * Return: 0; -ENOSPC when @u has user_max_hooks registrations already.
 */
int cosched_user_charge_hook(struct cosched_user *u)
{
	unsigned int max = cosched_get(COSCHED_T_USER_MAX_HOOKS);
	int n = atomic_read(&u->nr_hooks);

	do {
		if (n >= max)
			return -ENOSPC;
	} while (!atomic_try_cmpxchg(&u->nr_hooks, &n, n + 1));
	return 0;
}

/* Count a registration the endpoint's own allowance lets in. */
void cosched_user_force_charge_hook(struct cosched_user *u)
{
	atomic_inc(&u->nr_hooks);
}

/* Give back what cosched_user_charge_hook() took. */
void cosched_user_uncharge_hook(struct cosched_user *u)
{
	atomic_dec(&u->nr_hooks);
}
