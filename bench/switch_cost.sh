#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What cosched adds to a context switch, in one guest run.  A task that
# creates an endpoint registers a preempt notifier for itself; other
# tasks pay only the scheduler's test of an empty notifier list.  The
# configurations: no module; module loaded, no endpoints; 64 idle
# endpoints (owned by a sleeping thread); the switching threads own
# endpoints (their notifiers run at every switch); and the switching
# threads own endpoints while 10,000 other endpoints exist (ring_kb=4).
# They take turns in ROUNDS rounds so that host noise hits them alike.
# Each row: the median over the rounds, its ratio to "no module", and
# the lowest and highest of the per-round ratios (each round's cell over
# the same round's "no module").  Run inside a guest, from the
# repository root:
#   make modules bench
#   tests/vm/vmrun.sh --kernel 6.12 -- bench/switch_cost.sh [rounds]
# COSCHED_KO=path measures another build of the module (an older one).
# COSCHED_MANY=0 skips the 10,000-endpoint configuration.
set -eu
BIN=build/bench/switch_cost
KO=${COSCHED_KO:-build/$(uname -r)/cosched.ko}
ROUNDS=${1:-7}
MANY=${COSCHED_MANY:-10000}
SYS=/sys/kernel/cosched
OUT=$(mktemp)

ns() { "$BIN" -r 3 "$@" | sed 's/.*ns_per_switch=\([0-9]*\).*/\1/'; }
set_tunable() { [ ! -e "$SYS/$1" ] || echo "$2" >"$SYS/$1"; }

"$(dirname "$0")/../scripts/rmmod-cosched" -q
r=0
while [ $r -lt "$ROUNDS" ]; do
	echo "$r base $(ns)" >>"$OUT"
	insmod "$KO"
	echo "$r empty $(ns)" >>"$OUT"
	echo "$r idle $(ns -E 64)" >>"$OUT"
	echo "$r own $(ns -e)" >>"$OUT"
	if [ "$MANY" -gt 0 ]; then
		set_tunable ring_kb 4
		set_tunable user_max_endpoints $((MANY + 16))
		echo "$r many $(ns -e -E "$MANY")" >>"$OUT"
	fi
	"$(dirname "$0")/../scripts/rmmod-cosched"
	r=$((r + 1))
done

median() { awk -v k="$1" '$2 == k {print $3}' "$OUT" | sort -n |
	awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# min and max over the rounds of (cell / same round's base)
spread() { awk -v k="$1" '$2 == "base" {b[$1] = $3} $2 == k {c[$1] = $3}
	END { lo = 1e9; hi = 0
	      for (r in c) { x = c[r] / b[r]; if (x < lo) lo = x; if (x > hi) hi = x }
	      printf "%.3f-%.3f", lo, hi }' "$OUT"; }
base=$(median base)
echo "# context switch cost on $(uname -r), module $KO"
echo "# ns per switch, median of $ROUNDS rounds; ratio to no module; per-round ratio min-max"
printf '# %-52s %8s %7s %13s\n' configuration ns ratio "round range"
for row in "base:no module" "empty:module, no endpoints" \
	   "idle:module, 64 idle endpoints" \
	   "own:module, switching threads own endpoints" \
	   "many:switching threads own endpoints, $MANY others exist"; do
	key=${row%%:*} name=${row#*:}
	grep -q " $key " "$OUT" || continue
	v=$(median "$key")
	printf '# %-52s %8s %7s %13s\n' "$name" "$v" \
		"$(awk -v a="$v" -v b="$base" 'BEGIN { printf "%.3f", a / b }')" \
		"$(spread "$key")"
done
echo "# raw (round configuration ns):"
sed 's/^/#   /' "$OUT"
rm -f "$OUT"
