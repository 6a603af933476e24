/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /sys/kernel/cosched: tunables, stats/ and jobs/.
 */
#ifndef _COSCHED_SYSFS_H
#define _COSCHED_SYSFS_H

int cosched_sysfs_init(void);
void cosched_sysfs_exit(void);

#endif /* _COSCHED_SYSFS_H */
