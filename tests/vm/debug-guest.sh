#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# debug-guest.sh: the guest half of `make check-debug` (tests/vm/check-debug.sh),
# run inside the debug kernel (tests/vm/debug-kernel.sh) by vmrun.sh:
#   the guest suite (tests/guest/run.sh [TEST...]), the fuzzer if there is
#   one (tests/fuzz/run.sh), then a kmemleak scan that must find nothing,
#   with the irqsoff tracer measuring the longest irqs-off section meanwhile.
# FUZZ_ARGS: options of tests/fuzz/run.sh (check-debug.sh passes them).
# Lockdep, KASAN, UBSAN and debug-objects reports land in dmesg, which
# run.sh checks after each test and vmrun.sh at the end.
# The last line is "N passed, N failed"; exit status 1 if anything failed.

cd "$(dirname "$0")/../.." || exit 2
passed=0
failed=0
DBG=/sys/kernel/debug
TR=/sys/kernel/tracing
LEAKS=${COSCHED_VMOUT:-/tmp}/kmemleak.txt

ok() { passed=$((passed + 1)); echo "PASS $*"; }
nok() { failed=$((failed + 1)); echo "FAIL $*"; }

# add_summary LOG STATUS NAME: count a part by its "N passed, N failed".
add_summary() {
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1)
	if [ -n "$line" ]; then
		passed=$((passed + ${line%% *}))
		f=${line#* passed, }
		failed=$((failed + ${f%% *}))
		[ "$2" = 0 ] || [ "${f%% *}" != 0 ] || nok "$3 exited $2"
	elif [ "$2" = 0 ]; then
		ok "$3"
	else
		nok "$3 exited $2"
	fi
}

mountpoint -q $DBG || mount -t debugfs debugfs $DBG
if [ ! -w $DBG/kmemleak ]; then
	echo "debug-guest.sh: no $DBG/kmemleak: not a debug kernel?" >&2
	exit 2
fi
# No scans in the background: a report in the middle of a test would fail
# that test by its dmesg line, racing with objects still in flight; the
# scan at the end decides. What the kernel itself leaked while booting is
# not ours: list it once here, then forget it.
echo scan=off > $DBG/kmemleak
echo scan > $DBG/kmemleak
if [ -s $DBG/kmemleak ]; then
	echo "# kmemleak before the tests (boot), ignored:"
	grep -E '^unreferenced|^    \[' $DBG/kmemleak | head -n 20 | sed 's/^/#   /'
fi
echo clear > $DBG/kmemleak

# irqsoff, started at boot without its function trace (check-debug.sh's
# --append): switching tracers here would patch kernel text while both
# vCPUs run, which crashed a TCG guest.  Only the maximum is reset.
irqsoff=0
if [ "$(cat $TR/current_tracer 2>/dev/null)" = irqsoff ]; then
	echo 0 > $TR/tracing_max_latency
	echo 1 > $TR/tracing_on
	irqsoff=1
else
	echo "# irqsoff tracer not started at boot: no irqs-off maximum"
fi

log=/tmp/debug-guest.$$
{ tests/guest/run.sh "$@"; echo $? > $log.rc; } 2>&1 | tee $log
add_summary $log "$(cat $log.rc)" "guest suite"

if [ -f tests/fuzz/run.sh ]; then
	echo "# ---- fuzzer: tests/fuzz/run.sh $FUZZ_ARGS"
	# shellcheck disable=SC2086 # FUZZ_ARGS is a list of options
	sh tests/fuzz/run.sh $FUZZ_ARGS > $log 2>&1
	rc=$?
	cat $log
	add_summary $log $rc "fuzzer"
else
	echo "# no tests/fuzz/run.sh: fuzzer skipped"
fi

if [ $irqsoff = 1 ]; then
	echo 0 > $TR/tracing_on
	echo "# irqsoff tracer: longest irqs-off section $(cat $TR/tracing_max_latency) us"
	grep -E '^# +(\| task:|=> (started|ended) at:)' $TR/trace | sed 's/^# */#   /'
fi

# Unload first, so that what the module's exit path forgets is counted.
# kmemleak reports only objects older than 5 s: wait, then scan twice.
echo "# ---- kmemleak"
[ -d /sys/module/cosched ] && rmmod cosched
sleep 6
echo scan > $DBG/kmemleak
echo scan > $DBG/kmemleak
cat $DBG/kmemleak > "$LEAKS"
if [ -s "$LEAKS" ]; then
	cat "$LEAKS"
	nok "kmemleak: $(grep -c '^unreferenced' "$LEAKS") unreferenced objects after the tests"
else
	ok "kmemleak: nothing unreferenced after the tests"
fi
rm -f $log $log.rc
echo "$passed passed, $failed failed"
[ $failed = 0 ]
