/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The periodic examiner of the pb policies, and the spin-yield's pick.
 */
#ifndef _COSCHED_PB_H
#define _COSCHED_PB_H

struct cosched_ep;

int cosched_pb_init(void);
void cosched_pb_exit(void);
void cosched_pb_update(void);
struct cosched_ep *cosched_pick_local(struct cosched_ep *self);

#endif /* _COSCHED_PB_H */
