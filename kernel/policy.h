/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The policies of thesis Table 6.1 and the events they act on (policy.c),
 * and the end of an endpoint, which ends what the policy started for it
 * (lifecycle.c).
 */
#ifndef _COSCHED_POLICY_H
#define _COSCHED_POLICY_H

#include <linux/types.h>

#include <uapi/linux/cosched.h>

#include "tunables.h"

struct cosched_ep;

int cosched_set_policy(unsigned int policy);
int cosched_tunable_store(enum cosched_tunable_id id, const char *buf);
void cosched_arrive(struct cosched_ep *ep, u32 count);
bool cosched_arrive_notify(struct cosched_ep *ep, u32 count);
void cosched_arrive_steer(struct cosched_ep *ep);
int cosched_wait(struct cosched_ep *ep, const struct cosched_wait *w);
bool cosched_peer_lost_unseen(struct cosched_ep *ep);
int cosched_yield(struct cosched_ep *ep, struct cosched_yield *y);

void cosched_close_ep(struct cosched_ep *ep, bool orderly);

#endif /* _COSCHED_POLICY_H */
