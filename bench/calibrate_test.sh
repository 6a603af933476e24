#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench/calibrate's COSCHED_MODPARAMS at a given factor (nothing
# measured): every time tunable the built module declares (modinfo: a
# name ending in _us or _ms) comes out, at factor x its default.
# repay_max_debt_us, whose description holds a colon and whose range
# read differently, was once left out, so calibrated guests ran
# dcs-fair with its default in guest time.  TAP.
# usage: bench/calibrate_test.sh   (after make modules)
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
echo "1..$n"
echo "$pass passed, $((n - pass)) failed"
[ "$pass" = "$n" ]
