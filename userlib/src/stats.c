// SPDX-License-Identifier: LGPL-2.1-or-later
/* stats.c - cosched_stats(): the library's counters and the module's. */
#include "internal.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#define READ(ep, f) __atomic_load_n(&(ep)->cnt.f, __ATOMIC_RELAXED)

PUBLIC int cosched_stats(struct cosched_ep *ep, struct cosched_ep_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->sends = READ(ep, sends);
	st->doorbells = READ(ep, doorbells);
	st->send_full = READ(ep, send_full);
	st->receives = READ(ep, receives);
	st->spin_hits = READ(ep, spin_hits);
	st->blocks = READ(ep, blocks);
	st->yields = READ(ep, yields);
	/* Without the module its counters stay 0. */
	if (ep_has_module(ep) && ioctl(ep->fd, COSCHED_IOC_STATS, &st->module))
		return -errno;
	return 0;
}

/*
 * Not in struct cosched_ep_stats: callers built against COSCHED_1 pass
 * that struct at its old size.
 */
PUBLIC uint64_t cosched_missed_wakeups(struct cosched_ep *ep)
{
	return READ(ep, missed_wakeups);
}
