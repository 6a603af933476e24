/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Arrival hooks: sockets, io_uring instances and verbs completion
 * channels registered with an endpoint report arrivals on it, from the
 * kernel's poll queues or from BPF programs through the kfuncs.
 */
#ifndef _COSCHED_HOOKS_H
#define _COSCHED_HOOKS_H

#include <linux/kthread.h>
#include <linux/types.h>

#include <uapi/linux/cosched.h>

struct cosched_ep;
struct sock;

int cosched_hooks_init(void);
void cosched_hooks_exit(void);
void cosched_hook_work_fn(struct kthread_work *work);
void cosched_hooks_ep_release(struct cosched_ep *ep);
int cosched_hook_register(struct cosched_ep *ep,
			  const struct cosched_hook_reg *reg);
int cosched_hook_unregister(struct cosched_ep *ep,
			    const struct cosched_hook_reg *reg);
/* kfuncs for BPF programs, where module BTF exists. */
int cosched_sock_arrival(struct sock *sk);
int cosched_ring_arrival(u64 ctx);

#endif /* _COSCHED_HOOKS_H */
