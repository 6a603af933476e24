/* SPDX-License-Identifier: GPL-2.0 */
/* The operations, one function each; the table is in ops.c. */
#ifndef COSCHED_FUZZ_OPS_H
#define COSCHED_FUZZ_OPS_H

#include "fuzz.h"

#define OP(name) int op_##name(struct ctx *c, u64 *a __attribute__((unused)), \
			     u64 *b __attribute__((unused)))

/* ops_dev.c: the device file and its ioctls */
OP(open);
OP(close);
OP(dup);
OP(info);
OP(create);
OP(create_bad);
OP(destroy);
OP(doorbell);
OP(doorbell_bad);
OP(wait);
OP(yield);
OP(stats);
OP(hook);
OP(ioctl_sized);
OP(ioctl_raw);
OP(poll);
OP(epoll);
OP(fileop);
OP(other_fd);

/* ops_mem.c: mappings */
OP(mmap_ctrl);
OP(mmap_ring);
OP(munmap);
OP(mem_read);
OP(mem_write);
OP(mprotect);
OP(madvise);
OP(mremap);

/* ops_proc.c: processes, threads, scheduling */
OP(fork);
OP(exec);
OP(thread);
OP(kill);
OP(reap);
OP(sched);
OP(affinity);

/* sysfs.c */
#define op_sysfs_write sysfs_fuzz_write
#define op_sysfs_read sysfs_fuzz_read

/* Guarded memory access: ret gets ERR_SEGV/ERR_BUS if body faults. */
#define GUARDED(ret, body) do {						\
	int __sig;							\
	fault_armed = 1;						\
	__sig = sigsetjmp(fault_jb, 1);					\
	if (__sig)							\
		(ret) = __sig;						\
	else {								\
		body;							\
	}								\
	fault_armed = 0;						\
} while (0)

#endif
