// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hook.c - cosched_register_fd() and cosched_unregister_fd(): let the
 * module count data arriving on a TCP socket of the caller's as arrivals
 * at the endpoint (its arrival hooks, Documentation/hooks.rst), so that
 * cosched_wait() on a condition of that socket wakes and dcs/pb see it.
 */
#include "internal.h"

#include <errno.h>
#include <sys/ioctl.h>

static int hook_ioctl(struct cosched_ep *ep, int fd, unsigned long cmd)
{
	struct cosched_hook_reg reg = { .fd = fd, .kind = COSCHED_HOOK_TCP };

	if (!ep)
		return -EINVAL;
	if (fd < 0)
		return -EBADF;
	/* Without the module nobody watches sockets: say so, harmlessly. */
	if (!ep_has_module(ep))
		return -EOPNOTSUPP;
	return ioctl(ep->fd, cmd, &reg) ? -errno : 0;
}

PUBLIC int cosched_register_fd(struct cosched_ep *ep, int fd)
{
	return hook_ioctl(ep, fd, COSCHED_IOC_REGISTER);
}

PUBLIC int cosched_unregister_fd(struct cosched_ep *ep, int fd)
{
	return hook_ioctl(ep, fd, COSCHED_IOC_UNREGISTER);
}
