/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * cosched: communication-driven coscheduling.
 *
 * The one ABI shared by cosched.ko, the BPF programs, libcosched and the
 * MPI glue: ioctls on /dev/cosched, the endpoint control page and the
 * policy ids.
 *
 * Every ioctl argument is an extensible struct: the kernel accepts a
 * struct that is shorter than its own as long as it holds the first
 * version's fields (anything shorter is -EINVAL), and a longer one only if
 * the bytes it does not know are zero (otherwise -E2BIG), as clone3() and
 * openat2() do.  Unknown flag bits are -EINVAL.  Unknown ioctls are
 * -ENOTTY.
 */
#ifndef _UAPI_LINUX_COSCHED_H
#define _UAPI_LINUX_COSCHED_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define COSCHED_ABI_VERSION	1
#define COSCHED_DEVICE		"/dev/cosched"
#define COSCHED_SYSFS_DIR	"/sys/kernel/cosched"

/*
 * Policies, thesis Table 6.1, and the aligned periodic boost (pba*).
 * Rows: what happens on a message arrival (nothing, boost now, boost at
 * the next periodic examination).  Columns:
 * how a receiver waits (busy wait, spin then block, spin then yield).
 */
enum cosched_policy {
	COSCHED_POLICY_LOCAL = 0,	/* busy wait, no reschedule */
	COSCHED_POLICY_SB,		/* spin, then block */
	COSCHED_POLICY_SY,		/* spin, then yield */
	COSCHED_POLICY_DCS,		/* boost on arrival, busy wait */
	COSCHED_POLICY_DCS_SB,
	COSCHED_POLICY_DCS_SY,
	COSCHED_POLICY_PB,		/* periodic boost, round robin */
	COSCHED_POLICY_PBT,		/* periodic boost, newest arrival */
	COSCHED_POLICY_PB_SB,
	COSCHED_POLICY_PB_SY,
	COSCHED_POLICY_PBA,		/* aligned periodic boost, busy wait */
	COSCHED_POLICY_PBA_SB,
	COSCHED_POLICY_PBA_SY,
	COSCHED_POLICY_DCS_FAIR,	/* dcs that repays its boosted time */
	COSCHED_NR_POLICIES,
};

/*
 * The aligned periodic boost (pba*) boosts, in period @period_nr of the
 * shared clock (CLOCK_REALTIME / pb_period_us), on each CPU the endpoint
 * whose job has the lowest cosched_pba_rank(): the same job on every
 * node that runs it, with no message between nodes.  Users take turns
 * first (the high half: the owner's rank in the period), then each
 * user's jobs (the low half), so that making more jobs wins a user no
 * more turns.  Part of the ABI so that a simulator or another backend
 * picks exactly as the module does.  The mix is SplitMix64's finalizer.
 */
static __inline__ __u64 cosched_pba_mix(__u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static __inline__ __u64 cosched_pba_rank(__u64 job_id, __u32 uid,
					 __u64 period_nr)
{
	__u64 user = cosched_pba_mix(cosched_pba_mix(period_nr) ^ uid);
	__u64 job = cosched_pba_mix(user ^ job_id);

	return (user & 0xffffffff00000000ULL) | (job >> 32);
}

/* How a receiver waits under a policy (cosched_ctrl.wait_mode). */
enum cosched_wait_mode {
	COSCHED_WAIT_BUSY = 0,
	COSCHED_WAIT_BLOCK,		/* spin spin_us, then COSCHED_IOC_WAIT */
	COSCHED_WAIT_YIELD,		/* spin spin_us, then COSCHED_IOC_YIELD */
};

/* cosched_ctrl.state bits, written by the kernel. */
#define COSCHED_STATE_BOOSTED	(1U << 0)	/* runs boosted now */
#define COSCHED_STATE_YIELDED	(1U << 1)	/* lowered itself by a yield */
#define COSCHED_STATE_BLOCKED	(1U << 2)	/* sleeps in WAIT (or dcs-fair's YIELD) */
#define COSCHED_STATE_DEAD	(1U << 3)	/* endpoint destroyed */

/* cosched_ctrl.armed values, written by the owner. */
#define COSCHED_ARMED_NONE	0
#define COSCHED_ARMED_BLOCK	1	/* about to block: senders must ring */
#define COSCHED_ARMED_YIELD	2	/* yielded: senders must ring */

/**
 * struct cosched_ctrl - the control page of one endpoint
 * @arrivals: messages announced to this endpoint since it was created.
 * @last_arrival_ns: CLOCK_MONOTONIC time of the newest arrival.
 * @on_cpu: 1 while the owner task runs on a CPU, 0 otherwise (exact).
 * @cpu: the CPU the owner task last ran on.
 * @state: COSCHED_STATE_* bits.
 * @policy: the active enum cosched_policy.
 * @wait_mode: the active enum cosched_wait_mode.
 * @spin_us: how long to spin before blocking or yielding.
 * @endpoint_id: the id COSCHED_IOC_CREATE returned.
 * @peers_lost: endpoints of this job whose owner went away without
 *	COSCHED_IOC_DESTROY (killed, or exited without closing), ever.
 * @__kernel_pad: fills the kernel's cache line; reads as 0.
 * @consumed: owner-written: the arrival count up to which the owner has
 *	consumed everything (see below).
 * @armed: owner-written: COSCHED_ARMED_* value.
 * @waiting: owner-written: 1 while the owner waits for a message.
 * @lost_seen: owner-written: the @peers_lost value the owner has dealt
 *	with; COSCHED_IOC_WAIT fails with -ECONNRESET and poll() reports
 *	EPOLLERR while the two differ.
 * @__user_pad: fills the owner's cache line; ignored.
 *
 * One page, mmap()ed at offset 0 of the file that owns the endpoint
 * (MAP_SHARED, length exactly the page size).  The first cache line is
 * written by the kernel only; the second by the owner only.  The kernel
 * never trusts the owner's fields for safety: they only steer heuristics
 * (pending = arrivals - consumed) and the owner's own waits.  An owner
 * that drained everything sets @consumed to the @arrivals it read before
 * it found nothing left.
 *
 * Senders cannot see this page; what they need to decide whether to ring
 * the doorbell is mirrored in the receive ring's header (struct
 * cosched_ring).
 */
struct cosched_ctrl {
	__u64 arrivals;
	__u64 last_arrival_ns;
	__u32 on_cpu;
	__u32 cpu;
	__u32 state;
	__u32 policy;
	__u32 wait_mode;
	__u32 spin_us;
	__u64 endpoint_id;
	__u32 peers_lost;
	__u8  __kernel_pad[12];

	__u64 consumed;
	__u32 armed;
	__u32 waiting;
	__u32 lost_seen;
	__u8  __user_pad[44];
};

/**
 * struct cosched_info - COSCHED_IOC_INFO result
 * @abi_version: COSCHED_ABI_VERSION of the running module.
 * @nr_policies: COSCHED_NR_POLICIES of the running module.
 * @policy: the active enum cosched_policy.
 * @spin_us: the spin_us tunable.
 * @pb_period_us: the pb_period_us tunable.
 * @boost_us: the boost_us tunable.
 * @ctrl_size: the length to mmap() for the control page.
 * @ring_size: the length of a receive ring created now (header page and
 *	data area); each ring's own length is in its header.
 */
struct cosched_info {
	__u32 abi_version;
	__u32 nr_policies;
	__u32 policy;
	__u32 spin_us;
	__u32 pb_period_us;
	__u32 boost_us;
	__u32 ctrl_size;
	__u32 ring_size;
};

/**
 * struct cosched_create - COSCHED_IOC_CREATE argument
 * @abi_version: must be COSCHED_ABI_VERSION (else -EPROTO).
 * @flags: none defined yet; must be 0.
 * @job_id: the job; any value but 0.
 * @rank: the process's rank in the job, below COSCHED_MAX_RANKS.
 * @__reserved: must be 0.
 * @endpoint_id: out: the new endpoint's id, unique while the module lives.
 */
struct cosched_create {
	__u32 abi_version;
	__u32 flags;
	__u64 job_id;
	__u32 rank;
	__u32 __reserved;
	__u64 endpoint_id;
};

#define COSCHED_MAX_RANKS	65536

/**
 * struct cosched_doorbell - COSCHED_IOC_DOORBELL argument
 * @job_id: the job of the endpoint to notify.
 * @rank: its rank.
 * @count: arrivals to announce, 1 to COSCHED_MAX_DOORBELL.
 * @flags: none defined yet; must be 0.
 * @__reserved: must be 0.
 */
struct cosched_doorbell {
	__u64 job_id;
	__u32 rank;
	__u32 count;
	__u32 flags;
	__u32 __reserved;
};

#define COSCHED_MAX_DOORBELL	(1U << 20)

/**
 * struct cosched_wait - COSCHED_IOC_WAIT argument
 * @seen: the arrival count the caller saw last; the wait ends as soon as
 *	@arrivals differs from it.
 * @timeout_ns: relative timeout; 0 waits without one.
 * @flags: none defined yet; must be 0.
 * @__reserved: must be 0.
 */
struct cosched_wait {
	__u64 seen;
	__u64 timeout_ns;
	__u32 flags;
	__u32 __reserved;
};

/* cosched_yield.flags */
#define COSCHED_YIELD_END	(1U << 0)

/**
 * struct cosched_yield - COSCHED_IOC_YIELD argument
 * @seen: the arrival count the caller waits to see change.
 * @flags: 0, or %COSCHED_YIELD_END: the awaited message came by a way the
 *	module does not see; end the caller's yield now.
 * @lowered: out: 1 if this call lowered the caller, 0 if it already was
 *	lowered for @seen or a message has already arrived.
 * @target_id: out: endpoint id of the local endpoint boosted, 0 if none.
 *
 * Under dcs-fair the call lowers nothing (@lowered and @target_id stay
 * 0): it ends the caller's boost and, if the caller owes boosted time,
 * sleeps for as long as its share of the CPU takes to pay that, at most
 * 4 ms; the message ends the sleep only if the debt is no more than half
 * repay_max_debt_us (always if that is 0) (-EINTR on a signal).
 */
struct cosched_yield {
	__u64 seen;
	__u32 flags;
	__u32 lowered;
	__u64 target_id;
};

/**
 * struct cosched_stats - counters of one endpoint, job or the module
 * @arrivals: arrivals announced.
 * @doorbells: doorbell calls that announced them.
 * @boosts: boosts applied.
 * @boosted_ns: CPU time spent running boosted.
 * @blocks: waits that went to sleep.
 * @wakeups: sleeping waits ended by an arrival.
 * @yields: yields that lowered the caller.
 * @budget_exhausted: boosts refused because the job's budget was spent.
 * @repay_refused: boosts refused under dcs-fair because the owner owed
 *	more boosted time than repay_max_debt_us (added after version 1).
 */
struct cosched_stats {
	__u64 arrivals;
	__u64 doorbells;
	__u64 boosts;
	__u64 boosted_ns;
	__u64 blocks;
	__u64 wakeups;
	__u64 yields;
	__u64 budget_exhausted;
	__u64 repay_refused;
};

/*
 * Receive rings.  Every endpoint has one, allocated by the module when the
 * endpoint is created (ring_kb).  A process with an endpoint in a job maps
 * the ring of rank R of that job with mmap() at COSCHED_RING_OFFSET(R),
 * MAP_SHARED, read-write, for a length of one page (the header alone) or
 * one page plus data_size.  Only processes of the same job, and of the
 * ring owner's effective uid (or with CAP_SYS_NICE), may map it.  The
 * mapping keeps the ring alive after its endpoint is destroyed.
 *
 * The record format in the data area belongs to libcosched; the kernel
 * only reads @tail, @head and @last_send_ns, to see pending messages
 * (periodic boost, spin-yield) the way the thesis's driver inspected the
 * NIC's queues, without a system call on the message path.
 */
#define COSCHED_RING_OFFSET(rank)	(((__u64)(rank) + 1) << 32)

/**
 * struct cosched_ring - the header page of a receive ring
 * @tail: senders: bytes reserved in the data area, ever.
 * @last_send_ns: senders: CLOCK_MONOTONIC time of the newest message.
 * @__send_pad: fills the senders' cache line.
 * @head: owner: bytes consumed, ever.
 * @__recv_pad: fills the owner's cache line.
 * @data_size: kernel: bytes in the data area, a power of two.
 * @data_offset: kernel: offset of the data area in the mapping.
 * @rank: kernel: the owner's rank.
 * @flags: kernel: COSCHED_RING_* bits.
 * @endpoint_id: kernel: the owner's endpoint id.
 * @on_cpu: kernel: 1 while the owner task runs on a CPU (exact).
 * @__kernel_pad: fills the kernel's cache line; reads as 0.
 * @armed: owner: COSCHED_ARMED_* value, as in its control page.  A cache
 *	line of its own: the owner writes it only around a block or yield,
 *	senders read it for every message, and next to @head (written for
 *	every message) each of those reads would miss.
 * @__armed_pad: fills that cache line.
 *
 * The ring is writable by every process that maps it, so the kernel keeps
 * its own copy of the fields it writes and trusts none of these.
 *
 * The doorbell rule, the thesis's NIC's: after publishing a message, and
 * a full memory barrier, a sender rings (COSCHED_IOC_DOORBELL) when @armed
 * is not %COSCHED_ARMED_NONE, or when the policy boosts on arrival and
 * @on_cpu is 0.  The owner sets @armed, then a full barrier, then looks
 * at the ring one last time before it blocks or yields; so one of the two
 * sees the other.
 */
struct cosched_ring {
	__u64 tail;
	__u64 last_send_ns;
	__u8  __send_pad[48];

	__u64 head;
	__u8  __recv_pad[56];

	__u32 data_size;
	__u32 data_offset;
	__u32 rank;
	__u32 flags;
	__u64 endpoint_id;
	__u32 on_cpu;
	__u8  __kernel_pad[36];

	__u32 armed;
	__u8  __armed_pad[60];
};

/* cosched_ring.flags */
#define COSCHED_RING_CLOSED	(1U << 0)	/* owner destroyed its endpoint */
#define COSCHED_RING_LOST	(1U << 1)	/* owner went away without that */

/* cosched_hook_reg.kind */
#define COSCHED_HOOK_TCP	1	/* a TCP socket (IPv4 or IPv6, any state) */
#define COSCHED_HOOK_IO_URING	2	/* an io_uring instance */
#define COSCHED_HOOK_RDMA_CQ	3	/* a verbs completion channel */

/*
 * Registrations every endpoint may have; more while the endpoint's user
 * has fewer than /sys/kernel/cosched/user_max_hooks (default 4096) in all.
 */
#define COSCHED_MAX_HOOKS	64

/**
 * struct cosched_hook_reg - COSCHED_IOC_REGISTER and _UNREGISTER argument
 * @fd: a descriptor of the caller's own: the TCP socket, io_uring, or
 *	verbs completion channel (struct ibv_comp_channel's fd).
 * @kind: %COSCHED_HOOK_TCP, %COSCHED_HOOK_IO_URING or
 *	%COSCHED_HOOK_RDMA_CQ.
 * @flags: none defined yet; must be 0.
 * @__reserved: must be 0.
 *
 * After COSCHED_IOC_REGISTER, every arrival on the socket (data queued
 * for reading, end of stream, error), the ring (completions posted to
 * its CQ) or the channel (a completion event of a CQ created with it and
 * armed by ibv_req_notify_cq(); the receiver re-arms after each event it
 * takes with ibv_get_cq_event(), as for any event-driven verbs receive)
 * counts as an arrival at the endpoint of the file the ioctl is
 * made on: the arrival count rises, a waiter wakes, a yield ends, the
 * policy may boost, exactly as for a doorbell.  Events that come in a
 * burst are announced as one arrival with their number as the count, and
 * only once they can be read.  The registration keeps the socket or ring
 * open until COSCHED_IOC_UNREGISTER, the endpoint's destruction, or about
 * a second after the caller has closed its last descriptor of it.
 *
 * Errors: -EBADF for a descriptor not open in the caller; -ENOTSOCK for
 * %COSCHED_HOOK_TCP on a file that is not a socket; -EINVAL for an
 * unknown kind, flags or reserved bits, another kind of socket, or a file
 * that is not an io_uring, resp. not a completion channel (an ibv_context
 * async_fd is not one); -EEXIST if the socket or ring is already
 * registered (with any endpoint); -ENOSPC when the endpoint has
 * %COSCHED_MAX_HOOKS registrations and its user (the euid that created
 * it) user_max_hooks, counting those of its sockets it closed, which
 * this call drops first; -ENXIO if the file has no endpoint.  UNREGISTER: -ENOENT
 * if it is not registered with this endpoint.
 */
struct cosched_hook_reg {
	__s32 fd;
	__u32 kind;
	__u32 flags;
	__u32 __reserved;
};

#define COSCHED_IOC_MAGIC	0xC5

/* Module facts; any open file. */
#define COSCHED_IOC_INFO	_IOR(COSCHED_IOC_MAGIC, 0x00, struct cosched_info)
/* Bind a new endpoint to this file: -EBUSY if the file has one. */
#define COSCHED_IOC_CREATE	_IOWR(COSCHED_IOC_MAGIC, 0x01, struct cosched_create)
/* Destroy this file's endpoint; waiters return -EIDRM. */
#define COSCHED_IOC_DESTROY	_IO(COSCHED_IOC_MAGIC, 0x02)
/* Announce arrivals to (job_id, rank); any open file. */
#define COSCHED_IOC_DOORBELL	_IOW(COSCHED_IOC_MAGIC, 0x03, struct cosched_doorbell)
/* Block until this file's endpoint sees an arrival after @seen. */
#define COSCHED_IOC_WAIT	_IOW(COSCHED_IOC_MAGIC, 0x04, struct cosched_wait)
/*
 * Spin-yield: lower the caller, boost a local endpoint with pending work
 * (dcs-fair: sleep off a debt, see struct cosched_yield).
 */
#define COSCHED_IOC_YIELD	_IOWR(COSCHED_IOC_MAGIC, 0x05, struct cosched_yield)
/* Counters of this file's endpoint. */
#define COSCHED_IOC_STATS	_IOR(COSCHED_IOC_MAGIC, 0x06, struct cosched_stats)
/*
 * Report arrivals on a TCP socket, io_uring or verbs completion channel to
 * this file's endpoint.
 */
#define COSCHED_IOC_REGISTER	_IOW(COSCHED_IOC_MAGIC, 0x07, struct cosched_hook_reg)
/* End such a registration. */
#define COSCHED_IOC_UNREGISTER	_IOW(COSCHED_IOC_MAGIC, 0x08, struct cosched_hook_reg)

#endif /* _UAPI_LINUX_COSCHED_H */
