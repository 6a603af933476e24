#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# latency.sh: arrival-to-on-CPU latency of a receiver sharing its CPU with
# a hog, under local, dcs (fifo and nice boosts) and pb, in one guest run,
# as a table with ratios against local.  The configurations take turns in
# short runs (ROUNDS rounds) so that slow drifts of a noisy TCG host hit
# them all alike.  The table pools each row's samples; the assertions
# compare each round with local's run of the same round and take the
# median round (dcs/fifo p90 at least 5x below local's; pb p90 within
# one period plus slack, pb max under two periods plus slack), except the median of
# dcs/fifo, which must be lower than local's over the pooled arrivals
# that found the receiver off its CPU (see below).
# A dcs/fifo row with budget_pct=100 is printed for diagnosis only.
#
# Each round starts by measuring how much of CPU 0's time the host takes
# from the guest (build/tests/steal).  When the median round lost more
# than STEAL_MAX percent, no latency in this guest means anything, and
# the comparisons are reported as skipped, with the steal, rather than
# failed: a busy host is not a broken policy.
#
# offcpu_med: median over the arrivals that found the receiver off its CPU
# (off%: their share); boost_ms: the longest single boost seen.
#
# usage: latency.sh [samples per configuration]   (as root, repository root)

BIN=${BIN:-build/tests}
N=${1:-300}
ROUNDS=${ROUNDS:-7}
PERIOD=10000			# pb_period_us of the pb row
SLACK_US=5000			# on top of two periods for pb's max
S=/sys/kernel/cosched
ROWS="local dcs-fifo dcs-nice pb dcs-fifo-budget100"
STEAL_MAX=${STEAL_MAX:-5}	# % of CPU 0 the host may take (STEAL_MAX_PCT in check.h)
OUT=$(mktemp -d /tmp/latency.XXXXXX)
PER=$(( (N + ROUNDS - 1) / ROUNDS ))
. "$(dirname "$0")/lib/tap.sh"

args_of() {
	case $1 in
	local)			echo "-p local" ;;
	dcs-fifo)		echo "-p dcs -m fifo" ;;
	dcs-nice)		echo "-p dcs -m nice" ;;
	pb)			echo "-p pb -P $PERIOD" ;;
	dcs-fifo-budget100)	echo "-p dcs -m fifo -b 100" ;;
	esac
}

defaults() {
	echo local > $S/policy
	echo fifo > $S/boost_mech
	echo 10000 > $S/pb_period_us
	echo 30 > $S/budget_pct
}

# Pooled statistics of a row: "median p90 max" in us.
pct() {
	sort -n "$OUT/$1.raw" | awk '{ v[NR] = $1 } END {
		if (!NR) { print "0 0 0"; exit }
		m = v[int(0.5 * (NR - 1) + 1.5)]; p = v[int(0.9 * (NR - 1) + 1.5)]
		printf "%.1f %.1f %.1f\n", m / 1000, p / 1000, v[NR] / 1000
	}'
}

# Pooled median (us) of the arrivals that found the receiver off its CPU,
# and their share of all arrivals: "median share".
offcpu() {
	awk '$2 == 1 { print $1 }' "$OUT/$1.raw" | sort -n | awk -v all="$(wc -l < "$OUT/$1.raw")" '
		{ v[NR] = $1 } END {
		printf "%.1f %.3f\n", NR ? v[int(0.5 * (NR - 1) + 1.5)] / 1000 : 0, all ? NR / all : 0
	}'
}

# Sum of a key over a row's runs ("mean" or "max" instead with $3).
agg() {
	sed -n "s/.* $2=\([^ ]*\).*/\1/p" "$OUT/$1.lines" |
		awk -v how="$3" '{ s += $1; n++; if ($1 > m) m = $1 }
			END { printf "%g\n", how == "max" ? m : (how == "mean" && n) ? s / n : s }'
}

r=1
while [ $r -le $ROUNDS ]; do
	steal=$("$BIN/steal" -c 0 -t 300)
	echo "# round $r host steal on CPU 0: $steal"
	echo "$steal" | sed -n 's/^stolen_pct=\([^ ]*\).*/\1/p' >> "$OUT/steal"
	for row in $ROWS; do
		defaults
		"$BIN/latency" -n $PER $(args_of $row) -o "$OUT/$row.raw" > "$OUT/run" 2>&1
		rc=$?
		grep '^latency:' "$OUT/run" >> "$OUT/$row.lines"
		echo "# round $r $row: $(grep '^latency:' "$OUT/run" | cut -d' ' -f7-11,14)"
		if [ $rc != 0 ]; then
			grep '^not ok' "$OUT/run" | sed 's/^/#   /'
			echo "$row" >> "$OUT/failed"
		fi
	done
	r=$((r + 1))
done
defaults

for row in $ROWS; do
	tap $(grep -qx "$row" "$OUT/failed" 2>/dev/null && echo 0 || echo 1) \
		"latency runs of $row passed (every arrival seen, fresh last_arrival_ns, boosts bounded)" "see the lines above"
done

echo "# arrival-to-on-CPU latency, $N samples each in $ROUNDS rounds, receiver + hog on CPU 0 ($(uname -r))"
printf '# %-20s %10s %10s %10s %10s %6s %7s %7s %9s %9s %8s %8s\n' config median_us p90_us \
	max_us offcpu_med off% hog_cpu boosts exhausted boost_ms p90/loc med/loc
set -- $(pct local)
lmed=$1 lp90=$2
for row in $ROWS; do
	set -- $(pct $row)
	eval "med_$(echo $row | tr - _)=$1 p90_$(echo $row | tr - _)=$2 max_$(echo $row | tr - _)=$3"
	off=$(offcpu $row)
	eval "off_$(echo $row | tr - _)=${off% *}"
	awk -v r="$row" -v m="$1" -v p="$2" -v x="$3" -v h="$(agg $row hog_share mean)" \
		-v om="${off% *}" -v of="${off#* }" \
		-v b="$(agg $row boosts)" -v e="$(agg $row budget_exhausted)" \
		-v lb="$(agg $row longest_boost_ms max)" -v lp="$lp90" -v lm="$lmed" 'BEGIN {
		printf "# %-20s %10.1f %10.1f %10.1f %10.1f %5.0f%% %6.1f%% %7d %9d %9.1f %8.3f %8.3f\n",
			r, m, p, x, om, of * 100, h * 100, b, e, lb, (lp > 0 ? p / lp : 0), (lm > 0 ? m / lm : 0)
	}'
done

lt() {		# a < b as numbers
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'
}

# Median over the rounds of a row's per-round value of a key, divided by
# local's value in the same round ("abs" instead: the row's own value).
# A noisy host stalls the guest for tens or hundreds of ms now and then;
# such a stall spoils one round of one row, not the median round.
per_round() {	# per_round <row> <key> [abs]
	awk -v key="$2" -v abs="$3" '
	function val(line,   m) {
		return match(line, " " key "=[^ ]*") ? \
			substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2) + 0 : 0
	}
	FNR == NR { l[FNR] = val($0); next }
	{ v = val($0); r[++n] = abs ? v : (l[FNR] > 0 ? v / l[FNR] : 1e9) }
	END {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && r[j - 1] > r[j]; j--) {
				t = r[j]; r[j] = r[j - 1]; r[j - 1] = t
			}
		printf "%.4f\n", n ? (n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2) : 1e9
	}' "$OUT/local.lines" "$OUT/$1.lines"
}

steal_med=$(sort -n "$OUT/steal" | awk '{ v[NR] = $1 }
	END { print NR ? (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) : 0 }')
echo "# host steal on CPU 0, median round: ${steal_med}% (comparisons skipped above ${STEAL_MAX}%)"
# A comparison of latencies, or a skip when the host took too much.
tap_timing() {	# tap_timing <1 if ok> <name> <why>
	if lt "$STEAL_MAX" "$steal_med"; then
		num=$((num + 1))
		echo "ok $num - $2 # SKIP the host took ${steal_med}% of CPU 0 (limit ${STEAL_MAX}%): $3"
	else
		tap "$@"
	fi
}

d90=$(per_round dcs-fifo p90_us)
p90r=$(per_round pb p90_us)
pmax=$(per_round pb max_us abs)
p90abs=$(per_round pb p90_us abs)
lim=$((2 * PERIOD + SLACK_US))
lim90=$((PERIOD + SLACK_US))
echo "# per round, median over $ROUNDS rounds: dcs-fifo p90/local $d90;" \
	"pb p90/local $p90r, pb max ${pmax} us"
tap_timing $(lt "$d90" 0.2 && echo 1 || echo 0) \
	"dcs/fifo p90 at least 5x lower than local (median round)" \
	"dcs/local p90 ratio $d90 (pooled: dcs $p90_dcs_fifo us, local $lp90 us)"
# The receiver runs about half the time, so half the arrivals find it on
# its CPU (latency ~0) under any policy and the plain median sits on that
# edge; the median of the arrivals that found it off its CPU is the one
# a boost can change.
tap_timing $(lt "$off_dcs_fifo" "$off_local" && echo 1 || echo 0) \
	"dcs/fifo median lower than local (arrivals that found the receiver off its CPU)" \
	"dcs $off_dcs_fifo us, local $off_local us (all arrivals: dcs $med_dcs_fifo us, local $lmed us)"
tap $([ "$(agg dcs-fifo boosts)" -gt 0 ] && echo 1 || echo 0) \
	"dcs/fifo boosted the receiver" "no boosts"
# PB bounds the wait by its period; it need not beat local's p90, which
# EEVDF already keeps near 4 ms against one hog (below PB's 10 ms period):
# the ratio is printed above, the bound is asserted.
tap_timing $(lt "$p90abs" "$lim90" && echo 1 || echo 0) \
	"pb p90 within one period + ${SLACK_US} us (median round)" \
	"pb p90 $p90abs us in the median round (pooled $p90_pb us), limit $lim90 us"
tap_timing $(lt "$pmax" "$lim" && echo 1 || echo 0) \
	"pb max under 2 periods + ${SLACK_US} us (median round)" \
	"pb max $pmax us in the median round (pooled max $max_pb us), limit $lim us"
echo "1..$num"
rm -rf "$OUT"
exit $fail
