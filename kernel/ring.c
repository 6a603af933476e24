// SPDX-License-Identifier: GPL-2.0
/*
 * Receive rings: one per endpoint (allocated with it, endpoint.c), mapped
 * here into the processes of the endpoint's job, which exchange messages
 * through them without system calls (libcosched owns the record
 * format).  The module only reads the ring's head and tail to see
 * pending messages.
 */
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "endpoint.h"
#include "job.h"
#include "ring.h"

/* Map the ring's pages, one by one: a vmalloc area is not contiguous. */
static int cosched_ring_insert(struct vm_area_struct *vma, void *ring,
			       unsigned long len)
{
	unsigned long off;
	int ret;

	for (off = 0; off < len; off += PAGE_SIZE) {
		ret = vm_insert_page(vma, vma->vm_start + off,
				     vmalloc_to_page(ring + off));
		if (ret)
			return ret;
	}
	return 0;
}

/* Every mapping holds a reference on the ring's endpoint. */
static void cosched_ring_vm_open(struct vm_area_struct *vma)
{
	cosched_ep_get(vma->vm_private_data);
}

static void cosched_ring_vm_close(struct vm_area_struct *vma)
{
	cosched_ep_put(vma->vm_private_data);
}

static const struct vm_operations_struct cosched_ring_vm_ops = {
	.open	= cosched_ring_vm_open,
	.close	= cosched_ring_vm_close,
};

/**
 * cosched_ring_mmap() - map the ring of a rank of the caller's job
 * @self: the caller's endpoint, pinned
 * @vma: at COSCHED_RING_OFFSET(rank), one page or the whole ring
 *
 * Return: 0; -EINVAL for a bad offset or length; -ENOENT if the job has
 * no such rank; -EPERM if its owner is another user; -ENOMEM.
 */
int cosched_ring_mmap(struct cosched_ep *self, struct vm_area_struct *vma)
{
	u64 offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
	unsigned long len = vma->vm_end - vma->vm_start;
	struct cosched_ep *target;
	u64 rank = (offset >> 32) - 1;
	int ret;

	if (offset != COSCHED_RING_OFFSET(rank) || rank >= COSCHED_MAX_RANKS)
		return -EINVAL;
	target = cosched_ep_lookup(self->job->owner, self->job->id, rank);
	if (!target)
		return -ENOENT;
	ret = -EPERM;
	if (!cosched_may_steer(target))
		goto err;
	ret = -EINVAL;
	if (len != PAGE_SIZE && len != PAGE_SIZE + target->ring_data)
		goto err;
	ret = cosched_ring_insert(vma, target->ring, len);
	if (ret)
		goto err;
	/* The lookup's reference now belongs to the mapping. */
	vma->vm_private_data = target;
	vma->vm_ops = &cosched_ring_vm_ops;
	return 0;
err:
	cosched_ep_put(target);
	return ret;
}
