// SPDX-License-Identifier: GPL-2.0
/*
 * Operations on the device file: open, close, dup, every ioctl with valid
 * and invalid arguments, unknown ioctls, poll, epoll, the other file
 * operations, and the descriptors that hooks register.
 */
#define _GNU_SOURCE
#include "ops.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/io_uring.h>
#include <unistd.h>

/* Per-thread ioctl buffer: room for the largest size field, 16 KiB. */
static __thread unsigned char iobuf[1u << 14] __attribute__((aligned(64)));

static int ioc(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

static unsigned long resize(unsigned long cmd, u32 size)
{
	return _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), size);
}

OP(open)
{
	static const int modes[] = { O_RDWR, O_RDWR, O_RDWR, O_RDONLY, O_WRONLY };
	int flags = modes[rng_below(&c->r, 5)], fd, i;

	if (rng_chance(&c->r, 10))
		flags |= O_NONBLOCK;
	if (rng_chance(&c->r, 20))
		flags |= O_CLOEXEC;	/* most stay open across exec */
	/* COSCHED_FUZZ_DEV=/dev/zero tests the fuzzer's own bookkeeping. */
	fd = open(getenv("COSCHED_FUZZ_DEV") ?: COSCHED_DEVICE, flags);
	*a = (u64)flags;
	*b = (u64)fd;
	if (fd < 0)
		return errno;
	for (i = 0; i < NSLOTS; i++) {
		int expect = -1;

		if (__atomic_compare_exchange_n(&c->ps->fd[i], &expect, fd,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return 0;
	}
	close(fd);	/* table full: an open and close of its own */
	return 0;
}

OP(close)
{
	int i = (int)rng_below(&c->r, NSLOTS);
	int fd = __atomic_exchange_n(&c->ps->fd[i], -1, __ATOMIC_ACQ_REL);

	*a = (u64)i;
	*b = (u64)fd;
	if (fd < 0)
		return EBADF;
	return close(fd) ? errno : 0;
}

OP(dup)
{
	int src = slot_fd(c), i = (int)rng_below(&c->r, NSLOTS);
	int fd, expect = -1;

	if (src < 0)
		return EBADF;
	fd = dup(src);
	*a = (u64)src;
	*b = (u64)fd;
	if (fd < 0)
		return errno;
	if (!__atomic_compare_exchange_n(&c->ps->fd[i], &expect, fd, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		close(fd);
	return 0;
}

OP(info)
{
	struct cosched_info *in = (void *)iobuf;
	int r, fd = any_fd(c);

	memset(in, 0xa5, sizeof(*in));
	r = ioc(fd, COSCHED_IOC_INFO, in);
	*a = (u64)fd;
	*b = r ? 0 : in->ring_size;
	return r;
}

static void publish(struct ctx *c, u64 job, u32 rank)
{
	u32 h = (u32)(seed_mix(job, rank, c->ps->uid) % MAX_PUB);
	struct pub_ep *p = &sh->pub[h];

	p->job = job;
	p->rank = rank;
	p->uid = c->ps->uid;
	__atomic_store_n(&p->valid, 1, __ATOMIC_RELEASE);
}

OP(create)
{
	struct cosched_create cr = {
		.abi_version = COSCHED_ABI_VERSION,
		.job_id = gen_job(&c->r),
		.rank = gen_rank(&c->r),
	};
	int r, fd = slot_fd(c);

	*a = cr.job_id;
	*b = cr.rank;
	r = ioc(fd, COSCHED_IOC_CREATE, &cr);
	if (!r)
		publish(c, cr.job_id, cr.rank);
	return r;
}

OP(create_bad)
{
	struct cosched_create cr = {
		.abi_version = COSCHED_ABI_VERSION,
		.job_id = gen_job(&c->r),
		.rank = gen_rank(&c->r),
	};
	int fd = slot_fd(c);

	switch (rng_below(&c->r, 7)) {
	case 0:
		cr.abi_version = gen_u32(&c->r);
		break;
	case 1:
		cr.flags = gen_u32(&c->r) | 1;
		break;
	case 2:
		cr.__reserved = gen_u32(&c->r) | 1;
		break;
	case 3:
		cr.job_id = 0;
		break;
	case 4:
		cr.rank = COSCHED_MAX_RANKS + (u32)rng_below(&c->r, 1u << 31);
		break;
	case 5:
		cr.endpoint_id = gen_u64(&c->r);	/* out field, ignored */
		break;
	default:
		cr.rank = 0xffffffff;
		break;
	}
	*a = cr.job_id;
	*b = (u64)cr.rank << 32 | cr.flags;
	return ioc(fd, COSCHED_IOC_CREATE, &cr);
}

OP(destroy)
{
	int fd = slot_fd(c);

	*a = (u64)fd;
	if (rng_chance(&c->r, 10))	/* a size on a sizeless command */
		return ioc(fd, resize(COSCHED_IOC_DESTROY,
				      (u32)rng_below(&c->r, 64)), iobuf);
	return ioctl(fd, COSCHED_IOC_DESTROY, gen_ptr(&c->r, iobuf, 8)) ? errno : 0;
}

/* A target: a published endpoint (either uid), else anything. */
static void pick_target(struct ctx *c, __u64 *job, __u32 *rank)
{
	struct pub_ep *p = &sh->pub[rng_below(&c->r, MAX_PUB)];

	if (rng_chance(&c->r, 70) &&
	    __atomic_load_n(&p->valid, __ATOMIC_ACQUIRE)) {
		*job = p->job;
		*rank = p->rank;
		return;
	}
	*job = gen_job(&c->r);
	*rank = gen_rank(&c->r);
}

OP(doorbell)
{
	struct cosched_doorbell d = { .count = 1 + (u32)rng_below(&c->r, 4) };
	int fd = any_fd(c);

	pick_target(c, &d.job_id, &d.rank);
	if (rng_chance(&c->r, 3))
		d.count = COSCHED_MAX_DOORBELL;
	*a = d.job_id;
	*b = (u64)d.rank << 32 | d.count;
	return ioc(fd, COSCHED_IOC_DOORBELL, &d);
}

OP(doorbell_bad)
{
	struct cosched_doorbell d = { .count = 1 };
	int fd = any_fd(c);

	pick_target(c, &d.job_id, &d.rank);
	switch (rng_below(&c->r, 6)) {
	case 0:
		d.count = 0;
		break;
	case 1:
		d.count = COSCHED_MAX_DOORBELL + 1 + (u32)rng_below(&c->r, 1u << 30);
		break;
	case 2:
		d.flags = gen_u32(&c->r) | 1;
		break;
	case 3:
		d.__reserved = gen_u32(&c->r) | 1;
		break;
	case 4:
		d.job_id = 0;
		break;
	default:
		d.rank = COSCHED_MAX_RANKS + (u32)rng_below(&c->r, 1000);
		break;
	}
	*a = d.job_id;
	*b = (u64)d.rank << 32 | d.count;
	return ioc(fd, COSCHED_IOC_DOORBELL, &d);
}

/* The endpoint's arrival count, so that a wait really sleeps. */
static u64 seen_of(struct ctx *c, int fd)
{
	struct cosched_stats st;

	if (rng_chance(&c->r, 30) || ioctl(fd, COSCHED_IOC_STATS, &st))
		return gen_u64(&c->r);
	return st.arrivals;
}

OP(wait)
{
	int fd = slot_fd(c), r;
	struct cosched_wait w = {
		.seen = seen_of(c, fd),
		.timeout_ns = gen_timeout(&c->r),
	};

	if (rng_chance(&c->r, 5))
		w.flags = gen_u32(&c->r) | 1;
	if (rng_chance(&c->r, 5))
		w.__reserved = gen_u32(&c->r) | 1;
	*a = w.seen;
	*b = w.timeout_ns;
	/* Whatever the timeout, a signal ends the wait within 3 ms. */
	intr_arm(500000 + rng_below(&c->r, 2500000));
	r = ioc(fd, COSCHED_IOC_WAIT, &w);
	intr_arm(0);
	return r;
}

OP(yield)
{
	int fd = slot_fd(c), r;
	struct cosched_yield y = { .seen = seen_of(c, fd) };

	switch (rng_below(&c->r, 6)) {
	case 0:
		y.flags = COSCHED_YIELD_END;
		break;
	case 1:
		y.flags = gen_u32(&c->r);
		break;
	case 2:
		y.lowered = gen_u32(&c->r);
		y.target_id = gen_u64(&c->r);
		break;
	default:
		break;
	}
	*a = y.seen;
	*b = y.flags;
	intr_arm(3000000);
	r = ioc(fd, COSCHED_IOC_YIELD, &y);
	intr_arm(0);
	return r;
}

OP(stats)
{
	int fd = any_fd(c);

	*a = (u64)fd;
	return ioc(fd, COSCHED_IOC_STATS, gen_ptr(&c->r, iobuf, sizeof(struct cosched_stats)));
}

OP(hook)
{
	struct cosched_hook_reg h = {
		.fd = any_fd(c),
		.kind = 1 + (u32)rng_below(&c->r, 3),
	};
	int fd = slot_fd(c);

	switch (rng_below(&c->r, 8)) {
	case 0:
		h.kind = gen_u32(&c->r);
		break;
	case 1:
		h.flags = gen_u32(&c->r) | 1;
		break;
	case 2:
		h.__reserved = gen_u32(&c->r) | 1;
		break;
	case 3:
		h.fd = (s32)gen_u32(&c->r);
		break;
	default:
		h.fd = c->ps->other[rng_below(&c->r, NOTHER)];
		break;
	}
	*a = (u64)(u32)h.fd << 32 | h.kind;
	*b = fd;
	return ioc(fd, rng_chance(&c->r, 50) ? COSCHED_IOC_REGISTER :
		   COSCHED_IOC_UNREGISTER, &h);
}

static const unsigned long known[] = {
	COSCHED_IOC_INFO, COSCHED_IOC_CREATE, COSCHED_IOC_DESTROY,
	COSCHED_IOC_DOORBELL, COSCHED_IOC_WAIT, COSCHED_IOC_YIELD,
	COSCHED_IOC_STATS, COSCHED_IOC_REGISTER, COSCHED_IOC_UNREGISTER,
};

/*
 * A known command whose size field lies: shorter (below and above the
 * first version's size), longer with a zero or non-zero tail, up to the
 * 14-bit maximum; sometimes another direction; random contents.
 */
OP(ioctl_sized)
{
	unsigned long cmd = known[rng_below(&c->r, sizeof(known) / sizeof(known[0]))];
	u32 real = _IOC_SIZE(cmd), size = gen_size(&c->r, real);
	int fd = slot_fd(c), r;
	void *arg;

	if (rng_chance(&c->r, 50)) {
		memset(iobuf, 0, sizeof(iobuf));
		for (u32 i = 0; i < real / 8; i++)
			((u64 *)iobuf)[i] = rng_chance(&c->r, 50) ? 0 :
					    rng_below(&c->r, 8);
		if (cmd == COSCHED_IOC_CREATE)
			((u32 *)iobuf)[0] = COSCHED_ABI_VERSION;
		if (rng_chance(&c->r, 50) && size > real)
			iobuf[real + rng_below(&c->r, size - real)] =
				(unsigned char)(1 + rng_below(&c->r, 255));
	} else {
		for (u32 i = 0; i < 64; i++)
			((u64 *)iobuf)[i] = gen_u64(&c->r);
	}
	cmd = resize(cmd, size);
	if (rng_chance(&c->r, 10))
		cmd = _IOC(rng_below(&c->r, 4), _IOC_TYPE(cmd), _IOC_NR(cmd), size);
	arg = gen_ptr(&c->r, iobuf, size);
	*a = cmd;
	*b = (u64)(uintptr_t)arg;
	/* A WAIT built from random bytes may sleep without a timeout. */
	intr_arm(3000000);
	r = ioc(fd, cmd, arg);
	intr_arm(0);
	return r;
}

/* Unknown commands; never the VFS's own (freeze, clone, ...). */
OP(ioctl_raw)
{
	unsigned long cmd;
	int fd = slot_fd(c), r;
	u32 type;

	switch (rng_below(&c->r, 4)) {
	case 0:
		cmd = _IOC(rng_below(&c->r, 4), COSCHED_IOC_MAGIC,
			   9 + rng_below(&c->r, 247), rng_below(&c->r, 256));
		break;
	case 1:
		cmd = _IOC(rng_below(&c->r, 4), COSCHED_IOC_MAGIC,
			   rng_below(&c->r, 9), rng_below(&c->r, 1u << 14));
		break;
	case 2:
		cmd = (u32)rng_next(&c->r);
		break;
	default:
		cmd = rng_chance(&c->r, 50) ? FIONREAD : FIONBIO;
		break;
	}
	type = _IOC_TYPE(cmd);
	if (type == 'X' || type == 'f' || type == 0x94 || type == 0x15 ||
	    type == 0x12 || (cmd & 0xffff) == 0x5450 || (cmd & 0xffff) == 0x5451)
		cmd = _IOC(_IOC_DIR(cmd), COSCHED_IOC_MAGIC, 0x40, _IOC_SIZE(cmd));
	*a = cmd;
	intr_arm(3000000);
	r = ioc(fd, cmd, rng_chance(&c->r, 20) ? (void *)(uintptr_t)gen_u64(&c->r) :
		gen_ptr(&c->r, iobuf, _IOC_SIZE(cmd)));
	intr_arm(0);
	return r;
}

OP(poll)
{
	struct pollfd p[3];
	int n = 1 + (int)rng_below(&c->r, 3), r;
	int ms = (int)rng_below(&c->r, 3);

	for (int i = 0; i < n; i++) {
		p[i].fd = rng_chance(&c->r, 80) ? slot_fd(c) : any_fd(c);
		p[i].events = (short)(rng_chance(&c->r, 70) ? POLLIN :
				      rng_below(&c->r, 0x10000));
	}
	*a = (u64)n;
	*b = (u64)ms;
	r = poll(p, (nfds_t)n, ms);
	return r < 0 ? errno : 0;
}

OP(epoll)
{
	struct epoll_event ev, out[4];
	int fd, r = 0;

	if (c->epfd < 0) {
		c->epfd = epoll_create1(rng_chance(&c->r, 50) ? EPOLL_CLOEXEC : 0);
		return c->epfd < 0 ? errno : 0;
	}
	switch (rng_below(&c->r, 5)) {
	case 0:
	case 1:
		fd = slot_fd(c);
		ev.events = EPOLLIN | (rng_chance(&c->r, 30) ? EPOLLET : 0) |
			    (rng_chance(&c->r, 20) ? EPOLLONESHOT : 0) |
			    (rng_chance(&c->r, 10) ? EPOLLEXCLUSIVE : 0);
		ev.data.u64 = rng_next(&c->r);
		*a = (u64)fd;
		r = epoll_ctl(c->epfd, rng_chance(&c->r, 60) ? EPOLL_CTL_ADD :
			      rng_chance(&c->r, 50) ? EPOLL_CTL_MOD : EPOLL_CTL_DEL,
			      fd, &ev) ? errno : 0;
		break;
	case 2:
	case 3:
		*b = rng_below(&c->r, 3);
		r = epoll_wait(c->epfd, out, 4, (int)*b) < 0 ? errno : 0;
		break;
	default:
		close(c->epfd);
		c->epfd = -1;
		break;
	}
	return r;
}

/* The file operations the device does not have, and fcntl. */
OP(fileop)
{
	int fd = slot_fd(c);
	struct stat st;
	ssize_t n = 0;

	*a = rng_below(&c->r, 7);
	switch (*a) {
	case 0:
		n = read(fd, iobuf, rng_below(&c->r, 128));
		break;
	case 1:
		n = write(fd, iobuf, rng_below(&c->r, 128));
		break;
	case 2:
		n = lseek(fd, (off_t)gen_u64(&c->r), SEEK_SET);
		break;
	case 3:
		n = fstat(fd, &st);
		break;
	case 4:
		n = fcntl(fd, F_SETFL, rng_chance(&c->r, 50) ? O_NONBLOCK : O_ASYNC);
		break;
	case 5:
		n = fcntl(fd, F_SETOWN, getpid());
		break;
	default:
		n = fsync(fd);
		break;
	}
	return n < 0 ? errno : 0;
}

static int uring_setup(void)
{
	struct io_uring_params p;

	memset(&p, 0, sizeof(p));
	return (int)syscall(__NR_io_uring_setup, 4, &p);
}

/* (Re)make one of the descriptors hooks register: sockets, rings, pipes. */
OP(other_fd)
{
	int i = (int)rng_below(&c->r, NOTHER), fd = -1, pfd[2];
	int old = __atomic_exchange_n(&c->ps->other[i], -1, __ATOMIC_ACQ_REL);

	if (old >= 0)
		close(old);
	*a = rng_below(&c->r, 6);
	switch (*a) {
	case 0:
	case 1:
		fd = socket(rng_chance(&c->r, 70) ? AF_INET : AF_INET6, SOCK_STREAM, 0);
		break;
	case 2:
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		break;
	case 3:
		fd = uring_setup();
		break;
	case 4:
		if (!pipe(pfd)) {
			close(pfd[1]);
			fd = pfd[0];
		}
		break;
	default:
		fd = eventfd(0, 0);
		break;
	}
	*b = (u64)fd;
	if (fd < 0)
		return errno;
	__atomic_store_n(&c->ps->other[i], fd, __ATOMIC_RELEASE);
	return 0;
}
