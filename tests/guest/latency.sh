#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# latency.sh: arrival-to-on-CPU latency of a receiver sharing its CPU with
# a hog, under local, dcs (fifo and nice boosts) and pb, in one guest run,
# as a table with ratios against local.  Asserts: dcs/fifo p90 at least
# 5x below local's and a lower median; pb p90 below local's and pb max
# under two periods plus slack.  A dcs/fifo row with budget_pct=100 is
# printed for diagnosis only.
#
# usage: latency.sh [samples]     (run from the repository root, as root)

BIN=${BIN:-build/tests}
N=${1:-300}
PERIOD=10000			# pb_period_us of the pb row
SLACK_US=5000			# on top of two periods for pb's max
S=/sys/kernel/cosched
OUT=$(mktemp -d /tmp/latency.XXXXXX)
fail=0
num=0

tap() {		# tap <0|1 ok> <name> [why]
	num=$((num + 1))
	if [ "$1" = 1 ]; then
		echo "ok $num - $2"
	else
		echo "not ok $num - $2 # latency.sh: $3"
		fail=1
	fi
}

defaults() {
	echo local > $S/policy
	echo fifo > $S/boost_mech
	echo 10000 > $S/pb_period_us
	echo 30 > $S/budget_pct
}

# run <row name> <latency args...>: keeps the "latency:" line in $OUT/<row>
run() {
	row=$1
	shift
	defaults
	"$BIN/latency" -n "$N" "$@" > "$OUT/$row.log" 2>&1
	rc=$?
	cat "$OUT/$row.log"
	grep '^latency:' "$OUT/$row.log" > "$OUT/$row" || true
	tap $([ $rc = 0 ] && [ -s "$OUT/$row" ] && echo 1 || echo 0) \
		"latency run $row completed" "exit $rc"
}

# get <row> <key>
get() {
	sed -n "s/.* $2=\([^ ]*\).*/\1/p" "$OUT/$1" 2>/dev/null
}

run local -p local
run dcs-fifo -p dcs -m fifo
run dcs-nice -p dcs -m nice
run pb -p pb -P $PERIOD
run dcs-fifo-budget100 -p dcs -m fifo -b 100
defaults

echo "# arrival-to-on-CPU latency, $N samples, receiver + hog on CPU 0 ($(uname -r))"
printf '# %-20s %10s %10s %10s %8s %8s %9s %8s %8s\n' config median_us p90_us \
	max_us hog_cpu boosts exhausted p90/loc med/loc
lp90=$(get local p90_us)
lmed=$(get local median_us)
for row in local dcs-fifo dcs-nice pb dcs-fifo-budget100; do
	[ -s "$OUT/$row" ] || { echo "# $row: no result"; continue; }
	awk -v r="$row" -v m="$(get $row median_us)" -v p="$(get $row p90_us)" \
		-v x="$(get $row max_us)" -v h="$(get $row hog_share)" \
		-v b="$(get $row boosts)" -v e="$(get $row budget_exhausted)" \
		-v lp="$lp90" -v lm="$lmed" 'BEGIN {
		printf "# %-20s %10.1f %10.1f %10.1f %7.1f%% %8d %9d %8.3f %8.3f\n",
			r, m, p, x, h * 100, b, e, (lp > 0 ? p / lp : 0), (lm > 0 ? m / lm : 0)
	}'
done

# lt <a> <b>: a < b as floats
lt() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'
}

if [ -s "$OUT/local" ] && [ -s "$OUT/dcs-fifo" ]; then
	d90=$(get dcs-fifo p90_us)
	dmed=$(get dcs-fifo median_us)
	tap $(lt "$(awk -v d="$d90" 'BEGIN { print d * 5 }')" "$lp90" && echo 1 || echo 0) \
		"dcs/fifo p90 at least 5x lower than local" "dcs p90 $d90 us, local p90 $lp90 us"
	tap $(lt "$dmed" "$lmed" && echo 1 || echo 0) \
		"dcs/fifo median lower than local" "dcs median $dmed us, local $lmed us"
	tap $([ "$(get dcs-fifo boosts)" -gt 0 ] && echo 1 || echo 0) \
		"dcs/fifo boosted the receiver" "boosts $(get dcs-fifo boosts)"
fi
if [ -s "$OUT/local" ] && [ -s "$OUT/pb" ]; then
	p90=$(get pb p90_us)
	pmax=$(get pb max_us)
	lim=$(( 2 * PERIOD + SLACK_US ))
	tap $(lt "$p90" "$lp90" && echo 1 || echo 0) \
		"pb p90 lower than local" "pb p90 $p90 us, local p90 $lp90 us"
	tap $(lt "$pmax" "$lim" && echo 1 || echo 0) \
		"pb max under 2 periods + ${SLACK_US} us" "pb max $pmax us, limit $lim us"
fi
echo "1..$num"
rm -rf "$OUT"
exit $fail
