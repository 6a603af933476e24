#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# hooks.sh: the throughput cost of cosched's arrival hooks on a loopback
# TCP stream (bench/hook_stream.c), in one guest run, as root, from the
# repository root, with cosched.ko loaded or loadable:
#   base      unregistered socket, no BPF attached (no hook at all)
#   builtin   registered socket, the module's built-in hook
#   bpf-unreg unregistered socket, BPF hooks attached (6.12 only)
#   bpf-reg   registered socket, BPF hooks attached (6.12 only)
# ROUNDS rounds of SECS seconds each, configurations interleaved; the
# table gives each row's median MB/s and its ratio to base.
#
# usage: bench/hooks.sh [rounds] [secs]
#   e.g. tests/vm/vmrun.sh --kernel 6.12 --smp 2 -- bench/hooks.sh 5 3

ROUNDS=${1:-5}
SECS=${2:-3}
B=build/bench/hook_stream
H=build/bpf/hooks/cosched-hooks
KO=${COSCHED_KO:-build/$(uname -r)/cosched.ko}
OUT=$(mktemp -d /tmp/hooks-bench.XXXXXX)

[ -d /sys/module/cosched ] || insmod "$KO" || exit 1
ip link set lo up 2>/dev/null
echo local > /sys/kernel/cosched/policy
bpf=0
[ "$(cat /sys/module/cosched/parameters/bpf_kfuncs)" = Y ] && [ -x "$H" ] && bpf=1

r=1
while [ "$r" -le "$ROUNDS" ]; do
	$B -t "$SECS" -l base >> "$OUT/base"
	$B -t "$SECS" -r -l builtin >> "$OUT/builtin"
	if [ $bpf = 1 ]; then
		$H attach > /dev/null || exit 1
		$B -t "$SECS" -l bpf-unreg >> "$OUT/bpf-unreg"
		$B -t "$SECS" -r -l bpf-reg >> "$OUT/bpf-reg"
		$H detach > /dev/null
	fi
	r=$((r + 1))
done

med() {
	sed -n "s/.*$2=\([^ ]*\).*/\1/p" "$OUT/$1" | sort -n |
		awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'
}
base=$(med base MBps)
echo "# loopback TCP stream, 64 KiB sends, $ROUNDS x ${SECS}s per row, $(uname -r)"
printf "# %-10s %10s %8s %12s\n" row "MB/s" ratio "arrivals/s"
for row in base builtin bpf-unreg bpf-reg; do
	[ -s "$OUT/$row" ] || continue
	m=$(med "$row" MBps)
	a=$(med "$row" arrivals)
	printf "# %-10s %10s %8s %12s\n" "$row" "$m" \
		"$(awk -v m="$m" -v b="$base" 'BEGIN { printf "%.3f", b ? m / b : 0 }')" \
		"$(awk -v a="$a" -v s="$SECS" 'BEGIN { printf "%.0f", a / s }')"
	echo "hooks-bench: row=$row MBps=$m ratio=$(awk -v m="$m" -v b="$base" 'BEGIN { printf "%.3f", b ? m / b : 0 }')"
done
rm -rf "$OUT"
