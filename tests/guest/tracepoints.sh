#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tracepoints.sh: the module's six tracepoints that need no dcs-fair fire,
# each with its fields (cosched_repay: fair-move.c).
# Uses a trace instance of its own with only the cosched events enabled,
# so the global buffer (and whatever the harness set there) is left alone.
# Drives the events with the policies test (arrival, boost, unboost), a
# short hammer (block, wake) and the yield test (yield).
#
# usage: tracepoints.sh      (run from the repository root, as root)

BIN=${BIN:-build/tests}
T=/sys/kernel/tracing
I=$T/instances/cosched-test.$$
. "$(dirname "$0")/lib/tap.sh"

[ -d "$T/events/cosched" ] || { echo "not ok 1 - no events/cosched in $T"; exit 1; }
mkdir "$I" || exit 1
trap 'echo 0 > "$I/events/cosched/enable"; rmdir "$I"' EXIT
echo 1 > "$I/events/cosched/enable"
echo 1 > "$I/tracing_on"

"$BIN/policies" > /dev/null 2>&1
"$BIN/hammer" -n 2000 -t 10 > /dev/null 2>&1
"$BIN/yield" > /dev/null 2>&1
echo 0 > "$I/tracing_on"

out=$(cat "$I/trace")
for ev in "cosched_arrival: job=[0-9]+ rank=[0-9]+ count=[0-9]+ arrivals=[0-9]+ on_cpu=[01]" \
	  "cosched_boost: job=[0-9]+ rank=[0-9]+ pid=[0-9]+ reason=(arrival|periodic|yield) len_ns=[0-9]+" \
	  "cosched_unboost: job=[0-9]+ rank=[0-9]+ pid=[0-9]+" \
	  "cosched_block: job=[0-9]+ rank=[0-9]+ pid=[0-9]+" \
	  "cosched_wake: job=[0-9]+ rank=[0-9]+ pid=[0-9]+ ret=" \
	  "cosched_yield: job=[0-9]+ rank=[0-9]+ pid=[0-9]+ target_endpoint=[0-9]+"; do
	name=${ev%%:*}
	n=$(printf '%s\n' "$out" | grep -cE "$ev")
	tap $([ "$n" -gt 0 ] && echo 1 || echo 0) "$name fired with its fields ($n)" \
		"no line matching '$ev'"
done
for reason in arrival periodic yield; do
	n=$(printf '%s\n' "$out" | grep -c "cosched_boost:.*reason=$reason")
	tap $([ "$n" -gt 0 ] && echo 1 || echo 0) "a boost for reason $reason ($n)" "none"
done
echo "1..$num"
exit $fail
