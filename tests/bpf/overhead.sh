#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/bpf/overhead.sh [ROUNDS] [TRIPS]: what cosched-monitor costs a
# context switch.  Two processes pinned to CPU 0 pass a byte over pipes
# (build/bpf/pipe_pingpong: 2 switches per round trip), under three
# conditions, interleaved ROUNDS times (default 5) so that a load change
# on a shared machine hits all three alike:
#   off      no monitor
#   other    monitor attached, tracking an unrelated sleeping job: every
#            switch runs the program but finds nothing to account
#   tracked  monitor tracking the two ping-pong processes themselves
# Prints the median round trip per condition and its ratio to "off".
# As root, after make -C bpf.
set -euo pipefail

cd "$(dirname "$0")/../.."
B=build/bpf
rounds=${1:-5}
trips=${2:-200000}
tmp=$(mktemp -d)
sleep 600 & sleeper=$!
trap 'kill $sleeper 2>/dev/null; rm -rf "$tmp"' EXIT

# One run; prints microseconds per round trip.
one() {
	local mode=$1 mon="" pids
	# A stale pids file would be read before the new run writes it.
	rm -f "$tmp/go" "$tmp/pids"
	mkfifo "$tmp/go"
	$B/pipe_pingpong -c 0 -w -n "$trips" <"$tmp/go" >"$tmp/out" 2>"$tmp/pids" &
	local pp=$!
	exec 3>"$tmp/go"	# opening it lets pipe_pingpong start
	while ! grep -qs pids "$tmp/pids"; do sleep 0.01; done
	pids=$(awk '{ print $2 "," $3 }' "$tmp/pids")
	case $mode in
	other) $B/cosched-monitor --job idle=$sleeper --csv /dev/null & mon=$! ;;
	tracked) $B/cosched-monitor --job pp="$pids" --csv /dev/null & mon=$! ;;
	esac 3>&-
	sleep 0.5	# attached and synced
	echo >&3
	exec 3>&-
	wait $pp
	[ -n "$mon" ] && kill -INT $mon && wait $mon
	awk '{ print $(NF-2) }' "$tmp/out"
}

declare -A all
for ((r = 0; r < rounds; r++)); do
	for m in off other tracked; do
		all[$m]="${all[$m]:-} $(one $m)"
	done
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
base=$(echo "${all[off]}" | median)
echo "# pipe ping-pong on CPU 0, $trips round trips x $rounds rounds, kernel $(uname -r)"
for m in off other tracked; do
	med=$(echo "${all[$m]}" | median)
	printf '%-8s %8.3f us/round trip  x%.3f   (runs:%s)\n' "$m" "$med" \
		"$(echo "$med / $base" | bc -l)" "${all[$m]}"
done
