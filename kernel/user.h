/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-user records: how many endpoints a user has (bounded by
 * user_max_endpoints) and how many registrations (user_max_hooks), its
 * boost budget, and its endpoints, which are the only ones its
 * spin-yield may pick.
 */
#ifndef _COSCHED_USER_H
#define _COSCHED_USER_H

#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/uidgid.h>

#include "bucket.h"

struct cosched_ep;

struct cosched_user {
	kuid_t uid;
	refcount_t ref;
	struct hlist_node node;		/* cosched_users, under its lock */
	struct rcu_head rcu;
	struct cosched_bucket budget;
	/* Endpoints: changes under cosched_users_lock, readers RCU. */
	struct list_head eps;
	unsigned int nr_eps;
	/* Registered sockets, rings and channels, bounded by user_max_hooks. */
	atomic_t nr_hooks;
	/* dcs-fair: debts its tasks left with their endpoints (boost.c). */
	atomic64_t repay_carry_ns;
};

int cosched_user_add_ep(kuid_t uid, struct cosched_ep *ep);
void cosched_user_list_ep(struct cosched_ep *ep);
void cosched_user_del_ep(struct cosched_ep *ep);
int cosched_user_charge_hook(struct cosched_user *u);
void cosched_user_force_charge_hook(struct cosched_user *u);
void cosched_user_uncharge_hook(struct cosched_user *u);
void cosched_user_get(struct cosched_user *u);
void cosched_user_put(struct cosched_user *u);

#endif /* _COSCHED_USER_H */
