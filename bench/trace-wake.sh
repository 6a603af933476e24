#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# trace-wake.sh: bench/tcp_wake under one policy with the events that mark
# each step of a message through libcosched's io_uring transport (the
# breakdown in Documentation/results/hooks/README.md): the sender's
# io_uring_enter, netif_rx on loopback, io_uring_task_add (the arrival),
# the worker's sched_waking/sched_switch, cosched_boost, the receiver's
# io_uring_complete.  Runs inside a guest, as root, from the repository
# root; the trace goes to $COSCHED_VMOUT/trace.txt:
#
#   tests/vm/vmrun.sh --outdir /tmp/vo --kernel 6.12 --smp 2 -- \
#       bench/trace-wake.sh [policy [samples]]
#   less /tmp/vo/trace.txt
set -eu
POLICY=${1:-dcs}
N=${2:-40}
KO=${COSCHED_KO:-build/$(uname -r)/cosched.ko}
T=/sys/kernel/tracing
OUT=${COSCHED_VMOUT:?run through tests/vm/vmrun.sh --outdir DIR}/trace.txt

[ -d /sys/module/cosched ] || insmod "$KO"
echo "$POLICY" >/sys/kernel/cosched/policy
[ -d $T/events ] || mount -t tracefs none $T
echo 0 >$T/tracing_on
echo >$T/trace
echo 20000 >$T/buffer_size_kb
for e in cosched sched/sched_switch sched/sched_waking \
	io_uring/io_uring_task_add io_uring/io_uring_complete \
	io_uring/io_uring_submit_req syscalls/sys_enter_io_uring_enter \
	syscalls/sys_exit_io_uring_enter net/netif_rx; do
	echo 1 >$T/events/$e/enable
done
echo 1 >$T/tracing_on
build/bench/tcp_wake -n "$N" -p $((26000 + $$ % 1000))
echo 0 >$T/tracing_on
cp $T/trace "$OUT"
echo 0 >$T/events/enable
echo local >/sys/kernel/cosched/policy
echo "# $(grep -c . "$OUT") lines in $OUT"
