/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mapping an endpoint's receive ring into the processes of its job.
 */
#ifndef _COSCHED_RING_H
#define _COSCHED_RING_H

#include <linux/mm_types.h>

struct cosched_ep;

int cosched_ring_mmap(struct cosched_ep *self, struct vm_area_struct *vma);

#endif /* _COSCHED_RING_H */
