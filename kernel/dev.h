/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/cosched.
 */
#ifndef _COSCHED_DEV_H
#define _COSCHED_DEV_H

int cosched_dev_init(void);
void cosched_dev_exit(void);

#endif /* _COSCHED_DEV_H */
