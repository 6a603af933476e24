#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vcpu_stall on the host with a CPU hog beside its reader (CPU 0) and a
# store every 1 ms: the reader, preempted for longer than that, misses
# stores, and must still end at the writer's last one (it once waited
# forever for a store that never came: a hung tcp_wake.sh in CI).  TAP.
# usage: bench/vcpu_stall_test.sh   (after make -C bench)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/build/bench/vcpu_stall
echo "1..2"
taskset -c 0 sh -c 'while :; do :; done' &
hog=$!
trap 'kill "$hog" 2>/dev/null' EXIT INT TERM
out=$(timeout 60 "$BIN" -n 300 -g 1)
rc=$?
echo "# $out"
pass=0
if [ $rc = 0 ]; then
	echo "ok 1 - vcpu_stall ends beside a hog"
	pass=1
else
	echo "not ok 1 - vcpu_stall ends beside a hog # exit $rc (124: did not end in 60 s)"
fi
missed=$(echo "$out" | sed -n 's/.*missed=\([0-9]*\).*/\1/p')
if [ -n "$missed" ]; then
	[ "$missed" = 0 ] && note=" (none: the hog never held the reader that long, the case went untried)"
	echo "ok 2 - it says how many stores it missed: $missed${note:-}"
	pass=$((pass + 1))
else
	echo "not ok 2 - no missed= in its line"
fi
echo "$pass passed, $((2 - pass)) failed"
