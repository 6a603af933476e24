// SPDX-License-Identifier: GPL-2.0
/*
 * Arrival hooks: message arrivals on kernel-visible transports (TCP
 * sockets, io_uring instances, verbs completion channels, e.g. of
 * soft-RoCE) that never pass through a doorbell.
 *
 * A process registers one of its own sockets, rings or completion
 * channels with its endpoint (COSCHED_IOC_REGISTER).  The registration
 * pins the file, and keeps one wait-queue entry on the file's poll queue,
 * as epoll would: the kernel wakes that queue after data is queued on the
 * socket (sk_data_ready), after completions are published in the ring's
 * CQ (the CQ tail is stored first), or after a completion event of an
 * armed CQ is queued on the channel (the CQE is in the CQ by then), so an
 * arrival is never announced before the receiver can see it.  This
 * built-in path needs no BTF and behaves the same on every kernel;
 * unregistered sockets, rings and channels do not pay anything.
 *
 * Where module BTF exists, BPF programs (bpf/hooks/arrival.bpf.c) may report
 * data on TCP sockets and io_uring completions through the kfuncs below
 * instead; with the builtin_hooks parameter off, the built-in path leaves
 * those two to them and still reports everything they do not see: new
 * connections on listening sockets, end of stream, socket errors,
 * verbs completion channels, and what a file already held when it was
 * registered.  Both end in cosched_hook_signal().
 *
 * An arrival is seen in the waker's context (softirq, or any context that
 * completes io_uring requests).  It is announced there at once: the count
 * in the control page moves and a blocked receiver is woken, so a
 * receiver on its CPU or asleep sees it without waiting for a worker.
 * Only what the policy then does may sleep (a boost, the end of a
 * yield), so that alone goes to the boost worker, as the endpoint's
 * hook_work, and only when there is something to do: bursts coalesce.
 *
 * Lifetime: a registration ends at COSCHED_IOC_UNREGISTER, when its
 * endpoint is destroyed (COSCHED_IOC_DESTROY, or the endpoint's file is
 * released, at the latest when its process exits), or when the reaper
 * finds that the registration holds the file's last reference, i.e. the
 * process has closed every descriptor of it: the reaper runs once a
 * second while registrations exist, so a closed socket is really closed
 * (FIN sent) within about a second.  Every endpoint may have
 * %COSCHED_MAX_HOOKS registrations, and more while its user has fewer
 * than user_max_hooks; a REGISTER that finds the user at its limit first
 * reaps the endpoint's own closed ones.  Otherwise REGISTER walks
 * nothing: it may run at every connect() of an MPI library.  rmmod needs every endpoint
 * gone, hence every registration.
 */
#include <linux/anon_inodes.h>
#include <linux/btf.h>
#include <linux/btf_ids.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/magic.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "endpoint.h"
#include "hooks.h"
#include "policy.h"
#include "user.h"
#include "workers.h"

/* One registered socket, ring or completion channel. */
struct cosched_hook {
	struct hlist_node hnode;	/* cosched_hook_table, by @key */
	struct list_head ep_node;	/* ep->hooks */
	struct cosched_ep *ep;		/* outlives the hook */
	struct file *file;		/* pinned */
	const void *key;		/* sock, io_ring_ctx, or @file */
	u32 kind;
	wait_queue_head_t *whead;	/* the poll queue we are on */
	bool extra_queue;		/* the file offered a second one */
	wait_queue_entry_t wait;
	poll_table pt;
	struct rcu_head rcu;
};

/* Registrations: changes under cosched_hooks_mutex, lookups under RCU. */
static DEFINE_MUTEX(cosched_hooks_mutex);
/* Looked up at each TCP arrival the BPF hooks see: 1,024 chains. */
static DEFINE_HASHTABLE(cosched_hook_table, 10);
static atomic_t cosched_nr_hooks = ATOMIC_INIT(0);

/* The f_op of io_uring files, learnt from the first one registered. */
static const struct file_operations *cosched_uring_fops;

static bool cosched_builtin_hooks = true;
module_param_named(builtin_hooks, cosched_builtin_hooks, bool, 0644);
MODULE_PARM_DESC(builtin_hooks,
		 "Report TCP data and io_uring completions from poll queues too (off while BPF hooks report them; other events are always reported)");

static void cosched_hook_reap_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(cosched_hook_reaper, cosched_hook_reap_fn);

/**
 * cosched_hook_work_fn() - the policy's action on hook arrivals, on the
 *	boost worker (process context)
 * @work: an endpoint's hook_work, queued with a reference on it
 */
void cosched_hook_work_fn(struct kthread_work *work)
{
	struct cosched_ep *ep = container_of(work, struct cosched_ep,
					     hook_work);

	if (!READ_ONCE(ep->dead))
		cosched_arrive_steer(ep);
	cosched_ep_put(ep);
}

/*
 * One arrival on @ep: announce it at once, and queue hook_work if the
 * policy has to act on it.  Any context; @ep must not be freed before
 * the caller's RCU read section or wait-queue lock ends.
 */
static void cosched_hook_signal(struct cosched_ep *ep)
{
	if (!refcount_inc_not_zero(&ep->ref))
		return;
	/* Already queued, hook_work looks at this arrival too. */
	if (READ_ONCE(ep->dead) || !cosched_arrive_notify(ep, 1) ||
	    !cosched_queue_boost_work(&ep->hook_work))
		cosched_ep_put(ep);
}

/*
 * Whether the BPF hooks report this wake-up: data queued on a connected
 * TCP socket (tcp_data_ready(), which wakes with EPOLLIN and no hang-up or
 * error bit) and io_uring completions.  A listening socket's new
 * connection, an end of stream (a wake-up without a mask) and errors
 * never pass tcp_data_ready().
 */
static bool cosched_hook_bpf_sees(struct cosched_hook *h, __poll_t mask)
{
	switch (h->kind) {
	case COSCHED_HOOK_TCP:
		return (mask & EPOLLIN) &&
		       !(mask & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) &&
		       READ_ONCE(((const struct sock *)h->key)->sk_state) != TCP_LISTEN;
	case COSCHED_HOOK_IO_URING:
		return true;
	default:
		return false;
	}
}

/* The poll queue's wake-up: under its lock, in the waker's context. */
static int cosched_hook_wake(wait_queue_entry_t *wait, unsigned int mode,
			     int sync, void *key)
{
	struct cosched_hook *h = container_of(wait, struct cosched_hook, wait);
	__poll_t mask = key_to_poll(key);

	/* Only write space: nothing arrived. */
	if (mask && !(mask & (EPOLLIN | EPOLLRDNORM | EPOLLRDHUP |
			      EPOLLHUP | EPOLLERR)))
		return 0;
	if (!READ_ONCE(cosched_builtin_hooks) && cosched_hook_bpf_sees(h, mask))
		return 0;
	cosched_hook_signal(h->ep);
	return 0;
}

static void cosched_hook_queue_proc(struct file *file,
				    wait_queue_head_t *whead, poll_table *pt)
{
	struct cosched_hook *h = container_of(pt, struct cosched_hook, pt);

	if (h->whead) {
		h->extra_queue = true;
		return;
	}
	h->whead = whead;
	add_wait_queue(whead, &h->wait);
}

/* Is @file an io_uring instance?  See Documentation/hooks.rst. */
static bool cosched_file_is_uring(struct file *file)
{
	const struct file_operations *known = READ_ONCE(cosched_uring_fops);

	if (known)
		return file->f_op == known;
	/*
	 * io_uring_fops is not exported.  io_uring files are anonymous
	 * inodes that the kernel names "[io_uring]" (io_uring_get_file()
	 * on 6.1 and 6.12); once one is seen, its f_op is the test.
	 */
	if (file_inode(file)->i_sb->s_magic != ANON_INODE_FS_MAGIC ||
	    strcmp(file->f_path.dentry->d_name.name, "[io_uring]") ||
	    !file->f_op->poll || !file->private_data)
		return false;
	cmpxchg(&cosched_uring_fops, NULL, file->f_op);
	return file->f_op == READ_ONCE(cosched_uring_fops);
}

/*
 * Is @file a verbs completion channel (ibv_create_comp_channel(), the
 * fd of struct ibv_comp_channel)?  See Documentation/hooks-verbs.rst.
 */
static bool cosched_file_is_rdma_cq(struct file *file)
{
	static const char poll_fn[] = "ib_uverbs_comp_event_poll";
	char sym[64];	/* longer names do not match anyway */

	/*
	 * ib_uverbs exports neither uverbs_event_fops nor its handlers.
	 * Completion channels are anonymous inodes named
	 * "[infinibandevent]", but so are the async event files
	 * (ibv_context.async_fd) of the same module: only the completion
	 * channel's poll method is ib_uverbs_comp_event_poll() (6.1 and
	 * 6.12).  "%ps" names it through kallsyms, with " [ib_uverbs]"
	 * appended when ib_uverbs is a module; without kallsyms it prints
	 * an address, and nothing is recognised.  Unlike io_uring's, the
	 * f_op is not cached: ib_uverbs may be unloaded and loaded again
	 * elsewhere (the file pins it while we look).
	 */
	if (file_inode(file)->i_sb->s_magic != ANON_INODE_FS_MAGIC ||
	    strcmp(file->f_path.dentry->d_name.name, "[infinibandevent]") ||
	    !file->f_op->poll || !file->private_data)
		return false;
	snprintf(sym, sizeof(sym), "%ps", file->f_op->poll);
	if (strncmp(sym, poll_fn, sizeof(poll_fn) - 1))
		return false;
	return !sym[sizeof(poll_fn) - 1] ||
	       !strcmp(sym + sizeof(poll_fn) - 1, " [ib_uverbs]");
}

/* The registry key of @file as @kind, or an ERR_PTR. */
static const void *cosched_hook_key(struct file *file, u32 kind)
{
	struct socket *sock;
	struct sock *sk;

	switch (kind) {
	case COSCHED_HOOK_TCP:
		sock = sock_from_file(file);
		if (!sock)
			return ERR_PTR(-ENOTSOCK);
		sk = sock->sk;
		if (!sk || sk->sk_type != SOCK_STREAM ||
		    sk->sk_protocol != IPPROTO_TCP ||
		    (sk->sk_family != AF_INET && sk->sk_family != AF_INET6))
			return ERR_PTR(-EINVAL);
		return sk;
	case COSCHED_HOOK_IO_URING:
		if (!cosched_file_is_uring(file))
			return ERR_PTR(-EINVAL);
		return file->private_data;	/* struct io_ring_ctx */
	case COSCHED_HOOK_RDMA_CQ:
		if (!cosched_file_is_rdma_cq(file))
			return ERR_PTR(-EINVAL);
		return file;	/* pinned while registered */
	default:
		return ERR_PTR(-EINVAL);
	}
}

static struct cosched_hook *cosched_hook_find(const void *key, u32 kind)
{
	struct cosched_hook *h;

	hash_for_each_possible_rcu(cosched_hook_table, h, hnode,
				   (unsigned long)key)
		if (h->key == key && h->kind == kind)
			return h;
	return NULL;
}

/* Unlist and free one registration; under cosched_hooks_mutex. */
static void cosched_hook_drop(struct cosched_hook *h)
{
	lockdep_assert_held(&cosched_hooks_mutex);
	/* Takes the queue's lock: no wake-up of ours runs after this. */
	remove_wait_queue(h->whead, &h->wait);
	hash_del_rcu(&h->hnode);
	list_del(&h->ep_node);
	h->ep->nr_hooks--;
	cosched_user_uncharge_hook(h->ep->user);
	atomic_dec(&cosched_nr_hooks);
	fput(h->file);
	/* A kfunc caller may still be looking at it. */
	kfree_rcu(h, rcu);
}

/* Drop @ep's registrations whose file only they still hold. */
static void cosched_hook_reap_ep(struct cosched_ep *ep)
{
	struct cosched_hook *h, *tmp;

	lockdep_assert_held(&cosched_hooks_mutex);
	list_for_each_entry_safe(h, tmp, &ep->hooks, ep_node)
		if (file_count(h->file) == 1)
			cosched_hook_drop(h);
}

/*
 * Drop every registration whose file only it still holds.  One chain at
 * a time, the mutex dropped in between: every user's registrations are
 * walked here, and REGISTER, UNREGISTER and each endpoint's release wait
 * for that mutex.
 */
static void cosched_hook_reap_fn(struct work_struct *work)
{
	struct hlist_node *tmp;
	struct cosched_hook *h;
	unsigned int bkt;

	for (bkt = 0; bkt < HASH_SIZE(cosched_hook_table); bkt++) {
		mutex_lock(&cosched_hooks_mutex);
		hlist_for_each_entry_safe(h, tmp, &cosched_hook_table[bkt], hnode)
			if (file_count(h->file) == 1)
				cosched_hook_drop(h);
		mutex_unlock(&cosched_hooks_mutex);
		cond_resched();
	}
	if (atomic_read(&cosched_nr_hooks))
		schedule_delayed_work(&cosched_hook_reaper, HZ);
}

/*
 * Room for one more registration on @ep: every endpoint may have
 * %COSCHED_MAX_HOOKS (ABI 1's promise), and beyond that its user's
 * user_max_hooks decides.  At the user's limit, @ep's own closed sockets
 * are reaped first, so a process that reconnects finds their room at
 * once; the walk is over @ep's registrations only.
 */
static int cosched_hook_charge(struct cosched_ep *ep)
{
	if (ep->nr_hooks < COSCHED_MAX_HOOKS) {
		cosched_user_force_charge_hook(ep->user);
		return 0;
	}
	if (!cosched_user_charge_hook(ep->user))
		return 0;
	cosched_hook_reap_ep(ep);
	if (ep->nr_hooks < COSCHED_MAX_HOOKS) {
		cosched_user_force_charge_hook(ep->user);
		return 0;
	}
	return cosched_user_charge_hook(ep->user);
}

/**
 * cosched_hook_register() - report arrivals on one of current's files
 * @ep: current's endpoint, pinned by the caller
 * @reg: the validated request (flags and reserved fields are 0)
 *
 * The descriptor is resolved in current's file table only, so a process
 * can register nothing but its own sockets and rings.  A file that is
 * readable already (data, a connection or a completion queued, an end
 * of stream, an error) counts an arrival at once.
 *
 * Return: 0; -EBADF for a descriptor that is not open; -ENOTSOCK for a
 * %COSCHED_HOOK_TCP that is no socket; -EINVAL for another kind of socket
 * or file, or an unknown kind; -EEXIST if the socket or ring is registered
 * already (to any endpoint); -ENOSPC when the endpoint has
 * %COSCHED_MAX_HOOKS registrations and its user user_max_hooks; -ENXIO if
 * the endpoint is being destroyed; -ENOMEM.
 */
int cosched_hook_register(struct cosched_ep *ep,
			  const struct cosched_hook_reg *reg)
{
	struct cosched_hook *h;
	struct file *file;
	const void *key;
	__poll_t mask;
	int ret;

	file = fget(reg->fd);	/* a negative fd is not found either */
	if (!file)
		return -EBADF;
	key = cosched_hook_key(file, reg->kind);
	if (IS_ERR(key)) {
		ret = PTR_ERR(key);
		goto err_put;
	}
	h = kzalloc(sizeof(*h), GFP_KERNEL_ACCOUNT);
	if (!h) {
		ret = -ENOMEM;
		goto err_put;
	}
	h->ep = ep;
	h->file = file;
	h->key = key;
	h->kind = reg->kind;
	init_waitqueue_func_entry(&h->wait, cosched_hook_wake);
	init_poll_funcptr(&h->pt, cosched_hook_queue_proc);

	mutex_lock(&cosched_hooks_mutex);
	if (ep->hooks_closed) {
		ret = -ENXIO;
		goto err_unlock;
	}
	if (cosched_hook_find(key, reg->kind)) {
		ret = -EEXIST;
		goto err_unlock;
	}
	ret = cosched_hook_charge(ep);
	if (ret)
		goto err_unlock;
	mask = vfs_poll(file, &h->pt);
	if (!h->whead || h->extra_queue) {
		/* Not the one poll queue of a socket or ring. */
		if (h->whead)
			remove_wait_queue(h->whead, &h->wait);
		cosched_user_uncharge_hook(ep->user);
		ret = -EINVAL;
		goto err_unlock;
	}
	hash_add_rcu(cosched_hook_table, &h->hnode, (unsigned long)key);
	list_add_tail(&h->ep_node, &ep->hooks);
	ep->nr_hooks++;
	if (atomic_inc_return(&cosched_nr_hooks) == 1)
		schedule_delayed_work(&cosched_hook_reaper, HZ);
	/*
	 * Data (or a connection, a completion, an end of stream, an error
	 * pending or queued) before the entry was on the poll queue woke
	 * nobody: an arrival for all of it, or a receiver that blocks
	 * before reading it would sleep to its timeout.  Not a hang-up
	 * alone: a TCP socket never connected polls as EPOLLHUP.  Under the mutex, as hooks_closed
	 * was checked: nothing reports for an endpoint being closed.
	 */
	if (mask & (EPOLLIN | EPOLLRDNORM | EPOLLERR))
		cosched_hook_signal(ep);
	mutex_unlock(&cosched_hooks_mutex);
	return 0;

err_unlock:
	mutex_unlock(&cosched_hooks_mutex);
	kfree(h);
err_put:
	fput(file);
	return ret;
}

/**
 * cosched_hook_unregister() - stop reporting arrivals on one of current's files
 * @ep: current's endpoint, pinned by the caller
 * @reg: the validated request (flags and reserved fields are 0)
 *
 * Return: 0; -EBADF, -ENOTSOCK, -EINVAL as for cosched_hook_register();
 * -ENOENT if the socket or ring is not registered with @ep.
 */
int cosched_hook_unregister(struct cosched_ep *ep,
			    const struct cosched_hook_reg *reg)
{
	struct cosched_hook *h;
	struct file *file;
	const void *key;
	int ret = -ENOENT;

	file = fget(reg->fd);
	if (!file)
		return -EBADF;
	key = cosched_hook_key(file, reg->kind);
	if (IS_ERR(key)) {
		fput(file);
		return PTR_ERR(key);
	}
	mutex_lock(&cosched_hooks_mutex);
	h = cosched_hook_find(key, reg->kind);
	if (h && h->ep == ep) {
		cosched_hook_drop(h);
		ret = 0;
	}
	mutex_unlock(&cosched_hooks_mutex);
	fput(file);
	return ret;
}

/*
 * Called once, before the endpoint is closed: drops every registration of @ep
 * and refuses new ones.  A hook_work already queued still holds its own
 * reference and finds the endpoint dead.
 */
void cosched_hooks_ep_release(struct cosched_ep *ep)
{
	struct cosched_hook *h, *tmp;

	mutex_lock(&cosched_hooks_mutex);
	ep->hooks_closed = true;
	list_for_each_entry_safe(h, tmp, &ep->hooks, ep_node)
		cosched_hook_drop(h);
	mutex_unlock(&cosched_hooks_mutex);
}

/* BTF_KFUNCS_START: 6.9 and later, where BPF tracing may call kfuncs. */
#if IS_ENABLED(CONFIG_DEBUG_INFO_BTF_MODULES) && defined(BTF_KFUNCS_START)
#define COSCHED_KFUNCS 1

/*
 * The BPF side: where module BTF exists, programs attached to the
 * kernel's TCP receive and io_uring completion paths report through
 * these.  Both only compare the pointer with registered keys.
 */
static int cosched_hook_key_arrival(const void *key, u32 kind)
{
	struct cosched_hook *h;
	int ret = -ENOENT;

	if (!atomic_read(&cosched_nr_hooks))
		return ret;
	rcu_read_lock();
	h = cosched_hook_find(key, kind);
	if (h) {
		cosched_hook_signal(h->ep);
		ret = 0;
	}
	rcu_read_unlock();
	return ret;
}

__bpf_kfunc_start_defs();

/**
 * cosched_sock_arrival() - kfunc: data was queued on a socket
 * @sk: the socket
 *
 * Return: 0 if @sk is registered (its endpoint is told), -ENOENT if not.
 */
__bpf_kfunc int cosched_sock_arrival(struct sock *sk)
{
	return cosched_hook_key_arrival(sk, COSCHED_HOOK_TCP);
}

/**
 * cosched_ring_arrival() - kfunc: completions were posted to an io_uring
 * @ctx: the ring's struct io_ring_ctx, as an opaque key
 *
 * Return: 0 if the ring is registered (its endpoint is told), -ENOENT if
 * not.
 */
__bpf_kfunc int cosched_ring_arrival(u64 ctx)
{
	return cosched_hook_key_arrival((const void *)(unsigned long)ctx,
					COSCHED_HOOK_IO_URING);
}

__bpf_kfunc_end_defs();

BTF_KFUNCS_START(cosched_kfunc_ids)
BTF_ID_FLAGS(func, cosched_sock_arrival)
BTF_ID_FLAGS(func, cosched_ring_arrival)
BTF_KFUNCS_END(cosched_kfunc_ids)

static const struct btf_kfunc_id_set cosched_kfunc_set = {
	.owner	= THIS_MODULE,
	.set	= &cosched_kfunc_ids,
};
#endif

/* True once the kfuncs are registered: BPF hooks can be attached. */
static bool cosched_kfuncs;
module_param_named(bpf_kfuncs, cosched_kfuncs, bool, 0444);
MODULE_PARM_DESC(bpf_kfuncs, "The BPF arrival kfuncs are available (read-only)");

int cosched_hooks_init(void)
{
#ifdef COSCHED_KFUNCS
	int ret = register_btf_kfunc_id_set(BPF_PROG_TYPE_TRACING,
					    &cosched_kfunc_set);

	/* Not fatal: the built-in hooks work without BTF. */
	if (ret)
		pr_info("cosched: no BPF arrival kfuncs (%d); built-in hooks only\n",
			ret);
	else
		cosched_kfuncs = true;
#endif
	return 0;
}

/*
 * No endpoint, hence no registration, is left: every open file pins the
 * module.  Wait for the reaper and for hook_work items queued last.
 */
void cosched_hooks_exit(void)
{
	cancel_delayed_work_sync(&cosched_hook_reaper);
	cosched_flush_boost_worker();
}
