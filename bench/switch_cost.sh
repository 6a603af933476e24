#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The cost cosched's sched_switch probe adds to every context switch, in
# one guest run: without the module, with it loaded and no endpoints, with
# 64 idle endpoints (every lookup misses), and with the switching threads
# owning endpoints (every lookup hits).  The configurations take turns in
# ROUNDS rounds so that host noise hits them alike; each cell is the
# median over the rounds.  Run inside a guest, from the repository root:
#   make modules && make -C bench
#   tests/vm/vmrun.sh --kernel 6.12 -- bench/switch_cost.sh [rounds]
set -eu
BIN=build/bench/switch_cost
KO=build/$(uname -r)/cosched.ko
ROUNDS=${1:-7}
OUT=$(mktemp)

ns() { "$BIN" -r 3 "$@" | sed 's/.*ns_per_switch=\([0-9]*\).*/\1/'; }

"$(dirname "$0")/../scripts/rmmod-cosched" -q
r=0
while [ $r -lt "$ROUNDS" ]; do
	echo "base $(ns)" >>"$OUT"
	insmod "$KO"
	echo "empty $(ns)" >>"$OUT"
	echo "idle $(ns -E 64)" >>"$OUT"
	echo "own $(ns -e)" >>"$OUT"
	"$(dirname "$0")/../scripts/rmmod-cosched"
	r=$((r + 1))
done

median() { grep "^$1 " "$OUT" | awk '{print $2}' | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
base=$(median base)
echo "# context switch cost on $(uname -r), ns per switch, median of $ROUNDS rounds"
printf '# %-40s %8s %8s\n' configuration ns ratio
for row in "base:no module" "empty:module, no endpoints" \
	   "idle:module, 64 idle endpoints" "own:module, switching tasks own endpoints"; do
	key=${row%%:*} name=${row#*:}
	v=$(median "$key")
	printf '# %-40s %8s %8s\n' "$name" "$v" \
		"$(awk -v a="$v" -v b="$base" 'BEGIN { printf "%.3f", a / b }')"
done
rm -f "$OUT"
