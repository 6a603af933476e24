// SPDX-License-Identifier: GPL-2.0
/*
 * The uapi header stands alone in C and C++ user space, and its layout is
 * what the kernel and every library expect: the control page's kernel
 * half and user half each fill one 64-byte cache line, and no ioctl
 * struct has hidden padding that could leak kernel memory.
 */
#include <stddef.h>
#include <stdio.h>

#include <linux/cosched.h>

#ifdef __cplusplus
#define STATIC_ASSERT static_assert
#else
#define STATIC_ASSERT _Static_assert
#endif

STATIC_ASSERT(offsetof(struct cosched_ctrl, consumed) == 64,
	      "user-written fields start on the second cache line");
STATIC_ASSERT(sizeof(struct cosched_ctrl) == 128, "two cache lines");
STATIC_ASSERT(sizeof(struct cosched_info) == 32, "info size");
STATIC_ASSERT(sizeof(struct cosched_create) == 32, "create size");
STATIC_ASSERT(sizeof(struct cosched_doorbell) == 24, "doorbell size");
STATIC_ASSERT(sizeof(struct cosched_wait) == 24, "wait size");
STATIC_ASSERT(sizeof(struct cosched_yield) == 24, "yield size");
STATIC_ASSERT(offsetof(struct cosched_stats, repay_refused) == 64,
	      "stats: version 1's eight counters, then repay_refused");
STATIC_ASSERT(sizeof(struct cosched_stats) == 72, "stats size");
STATIC_ASSERT(offsetof(struct cosched_ring, head) == 64,
	      "the ring's consumer field has a cache line of its own");
STATIC_ASSERT(offsetof(struct cosched_ring, data_size) == 128,
	      "the ring's kernel fields follow");
STATIC_ASSERT(offsetof(struct cosched_ring, on_cpu) >= 128 &&
	      offsetof(struct cosched_ring, on_cpu) < 192 &&
	      offsetof(struct cosched_ring, armed) == 192 &&
	      sizeof(struct cosched_ring) == 256,
	      "the doorbell hints sit in cache lines nobody writes per message");
STATIC_ASSERT(offsetof(struct cosched_ctrl, peers_lost) < 64 &&
	      offsetof(struct cosched_ctrl, lost_seen) >= 64,
	      "the peer-loss fields sit in their writers' halves");
STATIC_ASSERT(COSCHED_RING_OFFSET(0) == 1ull << 32, "ring 0 above the control page");
STATIC_ASSERT(COSCHED_NR_POLICIES == 14,
	      "Table 6.1's ten, the three pba and dcs-fair");
STATIC_ASSERT(COSCHED_POLICY_DCS_FAIR == 13, "policy ids are ABI: new ones go last");

int main(void)
{
	/* Distinct ioctl numbers, as user space will switch on them. */
	unsigned long cmds[] = {
		COSCHED_IOC_INFO, COSCHED_IOC_CREATE, COSCHED_IOC_DESTROY,
		COSCHED_IOC_DOORBELL, COSCHED_IOC_WAIT, COSCHED_IOC_YIELD,
		COSCHED_IOC_STATS,
	};
	size_t n = sizeof(cmds) / sizeof(cmds[0]), i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (cmds[i] == cmds[j]) {
				printf("not ok - ioctl %zu and %zu collide\n", i, j);
				return 1;
			}
	printf("ok - uapi header layout and ioctl numbers\n");
	return 0;
}
