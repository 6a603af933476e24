#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/calibrate's COSCHED_MODPARAMS at a given factor (nothing
# measured): every time tunable the built module declares (modinfo: a
# name ending in _us or _ms) comes out, at factor x its default.
# repay_max_debt_us, whose description holds a colon and whose range
# read differently, was once left out, so calibrated guests ran
# dcs-fair with its default in guest time.  TAP.
# Then the probe's watch mode (-w): a line per batch, for as long as
# asked, and bad durations refused.
# usage: bench/calibrate_test.sh   (after make modules bench)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
n=0 pass=0
check() {
	n=$((n + 1))
	if eval "$2"; then
		echo "ok $n - $1"
		pass=$((pass + 1))
	else
		echo "not ok $n - $1"
	fi
}
for k in 6.1 6.12; do
	rel=$("$ROOT/tests/vm/kernels.sh" resolve "$k")
	ko=$ROOT/build/$rel/cosched.ko
	mp=$(COSCHED_HOST_QUANTUM_MS=4 "$ROOT/bench/calibrate" --env --kernel "$rel" \
		--dilation 2.5 2>/dev/null | sed -n 's/^COSCHED_MODPARAMS=//p')
	names=$(modinfo -F parm "$ko" 2>/dev/null |
		awk -F: '$1 ~ /_(us|ms)$/ { print $1 }' | sort | xargs)
	echo "# $k: $mp"
	check "$k: the module declares time tunables ($names)" '[ -n "$names" ]'
	check "$k: COSCHED_MODPARAMS scales every one of them" \
		'[ "$(tr " " "\n" <<<"$mp" | cut -d= -f1 | sort | xargs)" = "$names" ]'
	check "$k: repay_max_debt_us at 2.5 x its default (30000)" \
		'grep -qw "repay_max_debt_us=75000" <<<"$mp"'
	check "$k: spin_us at 2.5 x its default (250)" 'grep -qw "spin_us=625" <<<"$mp"'
done
probe=$ROOT/build/bench/calibrate
t0=$(date +%s%N)
w=$(timeout 10 "$probe" -s 400 -w 0.3)
took_ms=$((($(date +%s%N) - t0) / 1000000))
echo "# calibrate -s 400 -w 0.3: $(wc -l <<<"$w") lines, the last: $(tail -n1 <<<"$w")"
# ns/iter: about 2.5 natively, 20-40 under TCG; 1000 would be a wrong unit.
check "-w: two numbers a line, the first from 0 and rising, the second in (0, 1000)" \
	'awk "NF != 2 || \$2 <= 0 || \$2 >= 1000 || \$1 < prev || (NR == 1 && \$1 > 0.01) { bad = 1 }
	     { prev = \$1 } END { exit bad || NR < 3 }" <<<"$w"'
# Only lower bounds on time: a loaded host may stretch a batch.
check "-w: runs for the time asked (0.3 s; took $took_ms ms), its last batch begun before it" \
	'[ "$took_ms" -ge 300 ] && awk "{ last = \$1 } END { exit !(last < 0.3) }" <<<"$w"'
for bad in 0 -1 x 1x 0.5s nan inf '' 1e9 "0.3 -q" "0.3 -s 1000"; do
	check "-w $bad refused (exit 2, nothing printed)" \
		'out=$(timeout 10 "$probe" -w $bad 2>/dev/null); [ $? = 2 ] && [ -z "$out" ]'
done
echo "1..$n"
echo "$pass passed, $((n - pass)) failed"
[ "$pass" = "$n" ]
