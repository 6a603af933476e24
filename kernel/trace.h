/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cosched tracepoints: arrival, boost, unboost, block, wake, yield,
 * repay.
 * Enable with: echo 1 > /sys/kernel/tracing/events/cosched/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cosched

#if !defined(_COSCHED_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _COSCHED_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(cosched_arrival,
	TP_PROTO(u64 job, u32 rank, u32 count, u64 arrivals, bool on_cpu),
	TP_ARGS(job, rank, count, arrivals, on_cpu),
	TP_STRUCT__entry(
		__field(u64, job)
		__field(u32, rank)
		__field(u32, count)
		__field(u64, arrivals)
		__field(bool, on_cpu)
	),
	TP_fast_assign(
		__entry->job = job;
		__entry->rank = rank;
		__entry->count = count;
		__entry->arrivals = arrivals;
		__entry->on_cpu = on_cpu;
	),
	TP_printk("job=%llu rank=%u count=%u arrivals=%llu on_cpu=%d",
		  __entry->job, __entry->rank, __entry->count,
		  __entry->arrivals, __entry->on_cpu)
);

TRACE_EVENT(cosched_boost,
	TP_PROTO(u64 job, u32 rank, pid_t pid, int reason, u64 len_ns),
	TP_ARGS(job, rank, pid, reason, len_ns),
	TP_STRUCT__entry(
		__field(u64, job)
		__field(u32, rank)
		__field(pid_t, pid)
		__field(int, reason)
		__field(u64, len_ns)
	),
	TP_fast_assign(
		__entry->job = job;
		__entry->rank = rank;
		__entry->pid = pid;
		__entry->reason = reason;
		__entry->len_ns = len_ns;
	),
	TP_printk("job=%llu rank=%u pid=%d reason=%s len_ns=%llu",
		  __entry->job, __entry->rank, __entry->pid,
		  __print_symbolic(__entry->reason,
				   { 0, "arrival" }, { 1, "periodic" },
				   { 2, "yield" }, { 3, "preempted" },
				   { 4, "aligned" }),
		  __entry->len_ns)
);

DECLARE_EVENT_CLASS(cosched_ep_event,
	TP_PROTO(u64 job, u32 rank, pid_t pid),
	TP_ARGS(job, rank, pid),
	TP_STRUCT__entry(
		__field(u64, job)
		__field(u32, rank)
		__field(pid_t, pid)
	),
	TP_fast_assign(
		__entry->job = job;
		__entry->rank = rank;
		__entry->pid = pid;
	),
	TP_printk("job=%llu rank=%u pid=%d",
		  __entry->job, __entry->rank, __entry->pid)
);

DEFINE_EVENT(cosched_ep_event, cosched_unboost,
	TP_PROTO(u64 job, u32 rank, pid_t pid),
	TP_ARGS(job, rank, pid));

DEFINE_EVENT(cosched_ep_event, cosched_block,
	TP_PROTO(u64 job, u32 rank, pid_t pid),
	TP_ARGS(job, rank, pid));

TRACE_EVENT(cosched_wake,
	TP_PROTO(u64 job, u32 rank, pid_t pid, int ret),
	TP_ARGS(job, rank, pid, ret),
	TP_STRUCT__entry(
		__field(u64, job)
		__field(u32, rank)
		__field(pid_t, pid)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->job = job;
		__entry->rank = rank;
		__entry->pid = pid;
		__entry->ret = ret;
	),
	TP_printk("job=%llu rank=%u pid=%d ret=%d",
		  __entry->job, __entry->rank, __entry->pid, __entry->ret)
);

TRACE_EVENT(cosched_yield,
	TP_PROTO(u64 job, u32 rank, pid_t pid, u64 target_id),
	TP_ARGS(job, rank, pid, target_id),
	TP_STRUCT__entry(
		__field(u64, job)
		__field(u32, rank)
		__field(pid_t, pid)
		__field(u64, target_id)
	),
	TP_fast_assign(
		__entry->job = job;
		__entry->rank = rank;
		__entry->pid = pid;
		__entry->target_id = target_id;
	),
	TP_printk("job=%llu rank=%u pid=%d target_endpoint=%llu",
		  __entry->job, __entry->rank, __entry->pid,
		  __entry->target_id)
);

/*
 * A repaying sleep of dcs-fair ended: how long it slept, the part of
 * that off the runqueue, the share it was paid at, the credit computed
 * (the debt is floored at a 4 ms credit), and the debt left (after the
 * time since the last update is accounted; negative: a credit).
 */
TRACE_EVENT(cosched_repay,
	TP_PROTO(u64 job, u32 rank, pid_t pid, u64 slept_ns, u64 away_ns,
		 u32 share_permille, u64 credit_ns, s64 debt_ns),
	TP_ARGS(job, rank, pid, slept_ns, away_ns, share_permille, credit_ns,
		debt_ns),
	TP_STRUCT__entry(
		__field(u64, job)
		__field(u32, rank)
		__field(pid_t, pid)
		__field(u64, slept_ns)
		__field(u64, away_ns)
		__field(u32, share_permille)
		__field(u64, credit_ns)
		__field(s64, debt_ns)
	),
	TP_fast_assign(
		__entry->job = job;
		__entry->rank = rank;
		__entry->pid = pid;
		__entry->slept_ns = slept_ns;
		__entry->away_ns = away_ns;
		__entry->share_permille = share_permille;
		__entry->credit_ns = credit_ns;
		__entry->debt_ns = debt_ns;
	),
	TP_printk("job=%llu rank=%u pid=%d slept_ns=%llu away_ns=%llu share_permille=%u credit_ns=%llu debt_ns=%lld",
		  __entry->job, __entry->rank, __entry->pid,
		  __entry->slept_ns, __entry->away_ns,
		  __entry->share_permille, __entry->credit_ns,
		  __entry->debt_ns)
);

#endif /* _COSCHED_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
