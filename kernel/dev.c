// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/cosched: one endpoint per open file, its control page by mmap(),
 * and the ioctls of include/uapi/linux/cosched.h.
 *
 * The device is mode 0660; the udev rule the project ships gives it the
 * group "cosched", so the admin decides who may use it.  Job ids are per
 * user, and whom a doorbell may reach is checked per call against the
 * owner's credentials of the moment (endpoint.c).
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "dev.h"
#include "endpoint.h"
#include "hooks.h"
#include "policy.h"
#include "ring.h"
#include "tunables.h"

struct cosched_file {
	struct mutex lock;		/* binding of @ep */
	struct cosched_ep *ep;
	wait_queue_head_t poll_wq;	/* see cosched_poll() */
	struct rcu_head rcu;
};

/* Hooks first: none may report for an endpoint being closed. */
static void cosched_file_close_ep(struct cosched_ep *ep, bool orderly)
{
	cosched_hooks_ep_release(ep);
	cosched_close_ep(ep, orderly);
}

/* The first version of each ioctl struct: anything shorter is -EINVAL. */
#define COSCHED_V1_SIZE(type, last) offsetofend(type, last)

static int cosched_copy_in(void *dst, size_t ksize, size_t v1size,
			   unsigned int cmd, unsigned long arg)
{
	size_t usize = _IOC_SIZE(cmd);

	if (usize < v1size)
		return -EINVAL;
	return copy_struct_from_user(dst, ksize, (void __user *)arg, usize);
}

/* Give a shorter struct what fits and clear the tail of a longer one. */
static int cosched_copy_out(unsigned int cmd, unsigned long arg,
			    const void *src, size_t ksize)
{
	size_t usize = _IOC_SIZE(cmd);
	void __user *uarg = (void __user *)arg;

	if (copy_to_user(uarg, src, min(usize, ksize)))
		return -EFAULT;
	if (usize > ksize && clear_user(uarg + ksize, usize - ksize))
		return -EFAULT;
	return 0;
}

static bool cosched_file_has_ep(struct cosched_file *cf)
{
	bool has;

	mutex_lock(&cf->lock);
	has = cf->ep;
	mutex_unlock(&cf->lock);
	return has;
}

/* Pin this file's endpoint; NULL if it has none. */
static struct cosched_ep *cosched_file_ep(struct cosched_file *cf)
{
	struct cosched_ep *ep;

	mutex_lock(&cf->lock);
	ep = cf->ep;
	if (ep)
		cosched_ep_get(ep);
	mutex_unlock(&cf->lock);
	return ep;
}

/**
 * cosched_ioc_info() - COSCHED_IOC_INFO: the module's ABI version and tunables
 * @cmd: the command, carrying the caller's struct size
 * @arg: user pointer to struct cosched_info
 *
 * Return: 0, -EINVAL for a struct shorter than its first version, -EFAULT.
 */
static long cosched_ioc_info(unsigned int cmd, unsigned long arg)
{
	struct cosched_info info = {
		.abi_version	= COSCHED_ABI_VERSION,
		.nr_policies	= COSCHED_NR_POLICIES,
		.policy		= cosched_get(COSCHED_T_POLICY),
		.spin_us	= cosched_get(COSCHED_T_SPIN_US),
		.pb_period_us	= cosched_get(COSCHED_T_PB_PERIOD_US),
		.boost_us	= cosched_get(COSCHED_T_BOOST_US),
		.ctrl_size	= PAGE_SIZE,
		.ring_size	= cosched_ring_size(),
	};

	if (_IOC_SIZE(cmd) < COSCHED_V1_SIZE(struct cosched_info, ctrl_size))
		return -EINVAL;
	return cosched_copy_out(cmd, arg, &info, sizeof(info));
}

/**
 * cosched_ioc_create() - COSCHED_IOC_CREATE: bind a new endpoint to a file
 * @cf: the file
 * @cmd: the command, carrying the caller's struct size
 * @arg: user pointer to struct cosched_create
 *
 * The job is the caller's effective uid's job @job_id: another user's
 * job of the same id is another job.
 *
 * Return: 0 with the endpoint id written back; -EPROTO for another ABI
 * version; -EINVAL for bad flags, job or rank; -EBUSY if the file has an
 * endpoint; -EEXIST if the rank is taken; -EUSERS if the user has
 * user_max_endpoints endpoints; -ENOMEM.
 */
static long cosched_ioc_create(struct cosched_file *cf, unsigned int cmd,
			       unsigned long arg)
{
	struct cosched_create c;
	struct cosched_ep *ep;
	int ret;

	ret = cosched_copy_in(&c, sizeof(c),
			      COSCHED_V1_SIZE(struct cosched_create,
					      endpoint_id), cmd, arg);
	if (ret)
		return ret;
	if (c.abi_version != COSCHED_ABI_VERSION)
		return -EPROTO;
	if (c.flags || c.__reserved || !c.job_id ||
	    c.rank >= COSCHED_MAX_RANKS)
		return -EINVAL;

	/*
	 * Neither the creation nor the copy-out runs under cf->lock: the
	 * copy may fault and take the mmap lock, which mmap() holds when it
	 * takes cf->lock (cosched_mmap()).
	 */
	if (cosched_file_has_ep(cf))
		return -EBUSY;
	ep = cosched_ep_create(c.job_id, c.rank, cosched_hook_work_fn);
	if (IS_ERR(ep))
		return PTR_ERR(ep);
	c.endpoint_id = ep->id;
	ret = cosched_copy_out(cmd, arg, &c, sizeof(c));
	if (ret) {
		cosched_file_close_ep(ep, true);
		return ret;
	}
	mutex_lock(&cf->lock);
	if (cf->ep) {
		/* Another thread bound one meanwhile: this one never was. */
		mutex_unlock(&cf->lock);
		cosched_file_close_ep(ep, true);
		return -EBUSY;
	}
	rcu_assign_pointer(ep->poll_wq, &cf->poll_wq);
	cf->ep = ep;
	mutex_unlock(&cf->lock);
	return 0;
}

/**
 * cosched_ioc_destroy() - COSCHED_IOC_DESTROY: end the file's endpoint
 * @cf: the file
 *
 * Return: 0, or -ENXIO if the file has no endpoint.
 */
static long cosched_ioc_destroy(struct cosched_file *cf)
{
	struct cosched_ep *ep;

	mutex_lock(&cf->lock);
	ep = cf->ep;
	cf->ep = NULL;
	mutex_unlock(&cf->lock);
	if (!ep)
		return -ENXIO;
	cosched_file_close_ep(ep, true);
	return 0;
}

/**
 * cosched_ioc_doorbell() - COSCHED_IOC_DOORBELL: announce arrivals
 * @cmd: the command, carrying the caller's struct size
 * @arg: user pointer to struct cosched_doorbell
 *
 * Return: 0; -EINVAL for a bad count or flags; -ENOENT if no endpoint has
 * that job and rank; -EPERM if it belongs to another user.
 */
static long cosched_ioc_doorbell(unsigned int cmd, unsigned long arg)
{
	struct cosched_doorbell d;
	struct cosched_ep *ep;
	int ret;

	ret = cosched_copy_in(&d, sizeof(d),
			      COSCHED_V1_SIZE(struct cosched_doorbell,
					      __reserved), cmd, arg);
	if (ret)
		return ret;
	if (!d.count || d.count > COSCHED_MAX_DOORBELL || d.flags ||
	    d.__reserved)
		return -EINVAL;
	ep = cosched_ep_lookup(current_euid(), d.job_id, d.rank);
	if (!ep)
		return -ENOENT;
	if (cosched_may_steer(ep)) {
		cosched_count(ep, COSCHED_CNT_DOORBELLS, 1);
		cosched_arrive(ep, d.count);
	} else {
		ret = -EPERM;
	}
	cosched_ep_put(ep);
	return ret;
}

/**
 * cosched_ioc_wait() - COSCHED_IOC_WAIT: block until an arrival
 * @cf: the file
 * @cmd: the command, carrying the caller's struct size
 * @arg: user pointer to struct cosched_wait
 *
 * Return: see cosched_wait(); -ENXIO without an endpoint.
 */
static long cosched_ioc_wait(struct cosched_file *cf, unsigned int cmd,
			     unsigned long arg)
{
	struct cosched_wait w;
	struct cosched_ep *ep;
	int ret;

	ret = cosched_copy_in(&w, sizeof(w),
			      COSCHED_V1_SIZE(struct cosched_wait, __reserved),
			      cmd, arg);
	if (ret)
		return ret;
	if (w.flags || w.__reserved)
		return -EINVAL;
	ep = cosched_file_ep(cf);
	if (!ep)
		return -ENXIO;
	ret = cosched_wait(ep, &w);
	cosched_ep_put(ep);
	return ret;
}

/**
 * cosched_ioc_yield() - COSCHED_IOC_YIELD: the spin-yield action
 * @cf: the file
 * @cmd: the command, carrying the caller's struct size
 * @arg: user pointer to struct cosched_yield
 *
 * Return: 0 with the outcome written back; -ENXIO without an endpoint;
 * -EINTR if a signal ended dcs-fair's repaying sleep.
 */
static long cosched_ioc_yield(struct cosched_file *cf, unsigned int cmd,
			      unsigned long arg)
{
	struct cosched_yield y;
	struct cosched_ep *ep;
	int ret;

	ret = cosched_copy_in(&y, sizeof(y),
			      COSCHED_V1_SIZE(struct cosched_yield, target_id),
			      cmd, arg);
	if (ret)
		return ret;
	if (y.flags & ~COSCHED_YIELD_END)
		return -EINVAL;
	ep = cosched_file_ep(cf);
	if (!ep)
		return -ENXIO;
	ret = cosched_yield(ep, &y);
	cosched_ep_put(ep);
	if (!ret)
		ret = cosched_copy_out(cmd, arg, &y, sizeof(y));
	return ret;
}

/**
 * cosched_ioc_stats() - COSCHED_IOC_STATS: the endpoint's counters
 * @cf: the file
 * @cmd: the command, carrying the caller's struct size
 * @arg: user pointer to struct cosched_stats
 *
 * Return: 0; -ENXIO without an endpoint.
 */
static long cosched_ioc_stats(struct cosched_file *cf, unsigned int cmd,
			      unsigned long arg)
{
	struct cosched_stats s;
	struct cosched_ep *ep;
	u64 *out = (u64 *)&s;
	int i;

	BUILD_BUG_ON(sizeof(s) != COSCHED_NR_COUNTERS * sizeof(u64));
	if (_IOC_SIZE(cmd) <
	    COSCHED_V1_SIZE(struct cosched_stats, budget_exhausted))
		return -EINVAL;
	ep = cosched_file_ep(cf);
	if (!ep)
		return -ENXIO;
	for (i = 0; i < COSCHED_NR_COUNTERS; i++)
		out[i] = atomic64_read(&ep->stats.val[i]);
	cosched_ep_put(ep);
	return cosched_copy_out(cmd, arg, &s, sizeof(s));
}

/**
 * cosched_ioc_hook() - COSCHED_IOC_REGISTER and _UNREGISTER
 * @cf: the file whose endpoint gets the arrivals
 * @cmd: the command, carrying the caller's struct size
 * @arg: user pointer to struct cosched_hook_reg
 * @on: register (true) or unregister (false)
 *
 * Return: 0; -EINVAL for a short struct, bad flags or reserved bits;
 * -E2BIG for unknown non-zero trailing bytes; -ENXIO without an endpoint;
 * otherwise see cosched_hook_register() and cosched_hook_unregister().
 */
static long cosched_ioc_hook(struct cosched_file *cf, unsigned int cmd,
			     unsigned long arg, bool on)
{
	struct cosched_hook_reg r;
	struct cosched_ep *ep;
	int ret;

	ret = cosched_copy_in(&r, sizeof(r),
			      COSCHED_V1_SIZE(struct cosched_hook_reg,
					      __reserved), cmd, arg);
	if (ret)
		return ret;
	if (r.flags || r.__reserved)
		return -EINVAL;
	ep = cosched_file_ep(cf);
	if (!ep)
		return -ENXIO;
	if (on)
		ret = cosched_hook_register(ep, &r);
	else
		ret = cosched_hook_unregister(ep, &r);
	cosched_ep_put(ep);
	return ret;
}

/**
 * cosched_ioctl() - dispatch the ioctls of include/uapi/linux/cosched.h
 * @file: an open /dev/cosched
 * @cmd: the ioctl; its size field is the caller's struct size
 * @arg: the caller's struct
 *
 * Commands are matched on type, number and direction, not size, so one
 * built with an older or newer struct still arrives here.
 *
 * Return: 0 or a negative errno, as documented per ioctl in the header.
 */
static long cosched_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct cosched_file *cf = file->private_data;
	unsigned int sizeless = cmd & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT);

#define SIZELESS(c) ((c) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))
	switch (sizeless) {
	case SIZELESS(COSCHED_IOC_INFO):
		return cosched_ioc_info(cmd, arg);
	case SIZELESS(COSCHED_IOC_CREATE):
		return cosched_ioc_create(cf, cmd, arg);
	case COSCHED_IOC_DESTROY:
		if (cmd != COSCHED_IOC_DESTROY)
			return -ENOTTY;
		return cosched_ioc_destroy(cf);
	case SIZELESS(COSCHED_IOC_DOORBELL):
		return cosched_ioc_doorbell(cmd, arg);
	case SIZELESS(COSCHED_IOC_WAIT):
		return cosched_ioc_wait(cf, cmd, arg);
	case SIZELESS(COSCHED_IOC_YIELD):
		return cosched_ioc_yield(cf, cmd, arg);
	case SIZELESS(COSCHED_IOC_STATS):
		return cosched_ioc_stats(cf, cmd, arg);
	case SIZELESS(COSCHED_IOC_REGISTER):
		return cosched_ioc_hook(cf, cmd, arg, true);
	case SIZELESS(COSCHED_IOC_UNREGISTER):
		return cosched_ioc_hook(cf, cmd, arg, false);
	default:
		return -ENOTTY;
	}
#undef SIZELESS
}

/**
 * cosched_mmap() - map the endpoint's control page, or a ring of its job
 * @file: the file
 * @vma: at offset 0, one page, for the control page; at
 *	COSCHED_RING_OFFSET(rank) for a receive ring (see cosched_ring_mmap())
 *
 * Return: 0; -EINVAL for another size or offset or a private mapping;
 * -EPERM for an executable one; -ENXIO without an endpoint; the errors of
 * cosched_ring_mmap().
 */
static int cosched_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct cosched_file *cf = file->private_data;
	struct cosched_ep *ep;
	int ret;

	if (!(vma->vm_flags & VM_SHARED) ||
	    (!vma->vm_pgoff && vma->vm_end - vma->vm_start != PAGE_SIZE))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	ep = cosched_file_ep(cf);
	if (!ep)
		return -ENXIO;
	if (vma->vm_pgoff)
		ret = cosched_ring_mmap(ep, vma);
	else	/* The mapping holds its own page reference. */
		ret = vm_insert_page(vma, vma->vm_start, ep->ctrl_page);
	cosched_ep_put(ep);
	return ret;
}

/**
 * cosched_poll() - readiness of the file's endpoint, for poll and friends
 * @file: the file
 * @wait: the poll table
 *
 * Lets an event loop (epoll, io_uring) sleep on the endpoint beside its
 * other sources.  Like COSCHED_IOC_WAIT, it is woken by arrivals and by
 * doorbells, so the owner arms its ring before it sleeps.
 *
 * Return: EPOLLIN | EPOLLRDNORM while messages are pending; EPOLLERR
 * while a lost peer is not yet in the owner's lost_seen; EPOLLHUP without
 * an endpoint.
 */
static __poll_t cosched_poll(struct file *file, poll_table *wait)
{
	struct cosched_file *cf = file->private_data;
	struct cosched_ep *ep;
	__poll_t mask = 0;

	poll_wait(file, &cf->poll_wq, wait);
	/*
	 * On the queue before looking at the state: pairs with the barrier
	 * in cosched_poll_wake()'s wq_has_sleeper().
	 */
	smp_mb();
	ep = cosched_file_ep(cf);
	if (!ep)
		return EPOLLHUP;
	if (cosched_pending(ep))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (cosched_peer_lost_unseen(ep))
		mask |= EPOLLERR;
	cosched_ep_put(ep);
	return mask;
}

static int cosched_open(struct inode *inode, struct file *file)
{
	struct cosched_file *cf;

	cf = kzalloc(sizeof(*cf), GFP_KERNEL_ACCOUNT);
	if (!cf)
		return -ENOMEM;
	mutex_init(&cf->lock);
	init_waitqueue_head(&cf->poll_wq);
	file->private_data = cf;
	return nonseekable_open(inode, file);
}

static int cosched_release(struct inode *inode, struct file *file)
{
	struct cosched_file *cf = file->private_data;

	if (cf->ep)
		cosched_file_close_ep(cf->ep, false);
	mutex_destroy(&cf->lock);
	/* An arrival may still be waking poll_wq through a stale endpoint. */
	kfree_rcu(cf, rcu);
	return 0;
}

static const struct file_operations cosched_fops = {
	.owner		= THIS_MODULE,
	.open		= cosched_open,
	.release	= cosched_release,
	.unlocked_ioctl	= cosched_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= cosched_mmap,
	.poll		= cosched_poll,
};

static struct miscdevice cosched_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "cosched",
	.fops	= &cosched_fops,
	.mode	= 0660,
};

int cosched_dev_init(void)
{
	return misc_register(&cosched_misc);
}

void cosched_dev_exit(void)
{
	misc_deregister(&cosched_misc);
}
