// SPDX-License-Identifier: GPL-2.0
/*
 * arrival.bpf.c: report message arrivals on registered TCP sockets and
 * io_uring instances to cosched.ko through its kfuncs (6.12: module BTF).
 *
 * Both hooks fire after the data is visible to the receiver, never before
 * (a receiver that re-checks after an arrival must find it):
 *  - fentry/tcp_data_ready: TCP calls it after queueing in-order data on
 *    the receive queue (tcp_data_queue, the established fast path, the
 *    out-of-order queue drained), once per segment or coalesced batch,
 *    and only for TCP.  The tcp:tcp_probe tracepoint fires at the top of
 *    tcp_rcv_established(), before the data is queued, and for pure ACKs.
 *  - fexit/__io_submit_flush_completions and fexit/io_cq_unlock_post: the
 *    two functions that publish the CQ tail of batched and of single
 *    completions.  The io_uring:io_uring_complete tracepoint fires per CQE
 *    before the tail is published.
 * The kfuncs compare the pointer with the registered keys (one atomic read
 * while nothing is registered, an RCU hash lookup otherwise) and do
 * nothing for the sockets and rings that are not registered.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

extern int cosched_sock_arrival(struct sock *sk) __ksym;
extern int cosched_ring_arrival(__u64 ctx) __ksym;

char LICENSE[] SEC("license") = "GPL";

/* Events passed to the module, and the ones it found registered. */
__u64 tcp_events, tcp_hits, ring_events, ring_hits;

SEC("fentry/tcp_data_ready")
int BPF_PROG(cosched_tcp_data_ready, struct sock *sk)
{
	if (!cosched_sock_arrival(sk))
		__sync_fetch_and_add(&tcp_hits, 1);
	__sync_fetch_and_add(&tcp_events, 1);
	return 0;
}

/*
 * The ring is only a key to the module: read the argument as a number
 * (a pointer to the kernel's struct may not be passed as a scalar).
 */
static __always_inline void ring_arrival(__u64 *ctx)
{
	__u64 key = 0;

	bpf_probe_read_kernel(&key, sizeof(key), ctx);
	if (!cosched_ring_arrival(key))
		__sync_fetch_and_add(&ring_hits, 1);
	__sync_fetch_and_add(&ring_events, 1);
}

SEC("fexit/__io_submit_flush_completions")
int cosched_ring_flush(__u64 *ctx)
{
	ring_arrival(ctx);
	return 0;
}

SEC("fexit/io_cq_unlock_post")
int cosched_ring_post(__u64 *ctx)
{
	ring_arrival(ctx);
	return 0;
}
