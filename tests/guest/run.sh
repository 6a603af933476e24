#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: the cosched guest test suite.  Runs inside a QEMU guest as root,
# from anywhere (it changes to the repository root), e.g.
#   make -C tests/guest && tests/vm/vmrun.sh --kernel 6.12 -- tests/guest/run.sh
#
# usage: run.sh [-l] [-k module.ko] [TEST...]
#   -l            list the tests and exit
#   -k KO         module to load (default $COSCHED_KO or build/$(uname -r)/cosched.ko)
#   TEST...       run only these (default: all, in the listed order)
# environment: HAMMER_N (arrivals per hammer run), LATENCY_N (samples),
#   HOOKS_N (samples per policy of the TCP hook latency, 0 skips it),
#   RDMA_N (soft-RoCE wake-ups of the rdma test),
#   MPIGLUE_ARGS (options of mpi-glue/test/guest.sh, e.g. "-p all"),
#   COSCHED_VMOUT (logs go to $COSCHED_VMOUT/guest-tests/ when set),
#   LIMIT_SCALE (multiplies every test's time limit; default 3 on a kernel
#   whose release says "debug", whose checks make everything slower, else 1)
#
# Before every test the module is reloaded with its defaults; a test fails
# if it exits non-zero, times out, leaves the module unloaded, or the
# kernel logs a BUG/WARNING/Oops while it runs.  The last line is
# "N passed, N failed"; the exit status is 1 if any test failed.

cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
BIN=$ROOT/build/tests
KO=${COSCHED_KO:-$ROOT/build/$(uname -r)/cosched.ko}
HAMMER_N=${HAMMER_N:-1000000}
LATENCY_N=${LATENCY_N:-315}
HOOKS_N=${HOOKS_N:-350}
RDMA_N=${RDMA_N:-50}
ALL="abi sysfs policies preempted tracepoints ring hammer hammer-sb latency yield pb pba fair fair-move budget lifecycle security pertask trust stress pingpong modes hooks hooks-bpf uring-wake rdma mpiglue fuzz"
BAD_DMESG='BUG:|Oops|WARNING:|Call Trace|general protection|KASAN|kmemleak|refcount_t|list_del corruption|UBSAN|still has objects|blocked for more than'
LOGDIR=${COSCHED_VMOUT:+$COSCHED_VMOUT/guest-tests}
LOGDIR=${LOGDIR:-/tmp/guest-tests}

# test name -> "timeout_seconds command..."
spec() {
	case $1 in
	abi)		echo "90 $BIN/abi" ;;
	policies)	echo "60 $BIN/policies" ;;
	preempted)	echo "60 $BIN/preempted" ;;
	ring)		echo "60 $BIN/ring" ;;
	tracepoints)	echo "90 $ROOT/tests/guest/tracepoints.sh" ;;
	sysfs)		echo "90 $BIN/sysfs" ;;
	hammer)		echo "90 $BIN/hammer -n $HAMMER_N -t 40" ;;
	hammer-sb)	echo "90 $BIN/hammer -n $HAMMER_N -t 40 -p dcs-sb" ;;
	latency)	echo "300 $ROOT/tests/guest/latency.sh $LATENCY_N" ;;
	yield)		echo "90 $BIN/yield" ;;
	pb)		echo "240 $BIN/pb" ;;
	pba)		echo "60 $BIN/pba" ;;
	fair)		echo "90 $BIN/fair" ;;
	fair-move)	echo "60 $BIN/fair-move" ;;
	budget)		echo "120 $BIN/budget" ;;
	budget-flood)	echo "90 $BIN/budget flood" ;;
	lifecycle)	echo "90 $BIN/lifecycle" ;;
	security)	echo "60 $BIN/security" ;;
	pertask)	echo "60 $BIN/pertask" ;;
	trust)		echo "90 $BIN/trust" ;;
	stress)		echo "180 $BIN/stress -p 16 -i 500" ;;
	pingpong)	echo "180 $ROOT/build/userlib/guest_pingpong" ;;
	modes)		echo "180 $ROOT/build/userlib/guest_modes" ;;
	hooks)		echo "240 $BIN/hooks -w 200 -n $HOOKS_N -r 7" ;;
	hooks-bpf)	echo "180 $ROOT/tests/guest/hooks-bpf.sh 200" ;;
	uring-wake)	echo "240 $ROOT/tests/guest/uring-wake.sh 3 60" ;;
	mpiglue)	echo "1500 $ROOT/mpi-glue/test/guest.sh $MPIGLUE_ARGS" ;;
	rdma)		echo "120 $ROOT/tests/guest/rdma.sh -n $RDMA_N" ;;
	# ABI fuzzer, ~45 s: 30 s of random ops, 3 module reload cycles.
	fuzz)		echo "240 $ROOT/tests/fuzz/run.sh --seconds 30 --ops 100000000 --cycles 3 --cycle-seconds 4" ;;
	*)		return 1 ;;
	esac
}

while getopts lk: opt; do
	case $opt in
	l) echo "$ALL" | tr ' ' '\n'; exit 0 ;;
	k) KO=$OPTARG ;;
	*) sed -n '8,15s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
TESTS=${*:-$ALL}
export COSCHED_KO="$KO" BIN
case $(uname -r) in
*debug*) LIMIT_SCALE=${LIMIT_SCALE:-3} ;;
*) LIMIT_SCALE=${LIMIT_SCALE:-1} ;;
esac

for t in $TESTS; do
	spec "$t" > /dev/null || { echo "run.sh: unknown test '$t' (-l lists them)" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "run.sh: must run as root (inside the guest)" >&2; exit 2; }
[ -f "$KO" ] || { echo "run.sh: no module at $KO (make module KVER=$(uname -r))" >&2; exit 2; }
[ -x "$BIN/abi" ] || { echo "run.sh: no test binaries in $BIN (make -C tests/guest on the host)" >&2; exit 2; }
mkdir -p "$LOGDIR"

# The module may stay busy for a moment after the last close (per-task
# records are freed after an RCU grace period): retry for two seconds.
unload() {
	"$ROOT/scripts/rmmod-cosched" -q
}

reload() {
	unload || return 1
	"$ROOT/scripts/insmod-cosched" "$KO" || return 1
	# What udev/60-cosched.rules does on a real system: the group that
	# may use the device (a number: the guest has no /etc/group of its own).
	chgrp "${COSCHED_TEST_GID:-4242}" /dev/cosched
}

taint() {
	cat /proc/sys/kernel/tainted
}

passed=0
failed=0
failed_names=
suite_start=$(date +%s)
echo "# cosched guest tests on $(uname -r), $(nproc) CPUs, module $KO"
for t in $TESTS; do
	set -- $(spec "$t")
	limit=$(($1 * LIMIT_SCALE))
	shift
	log=$LOGDIR/$t.log
	secs=0
	why=
	echo "# ---- $t: $*"
	if ! reload; then
		why="module reload failed"
	else
		lines=$(dmesg | wc -l)
		taint0=$(taint)
		start=$(date +%s)
		# A session of its own, so that whatever the test leaves behind
		# (a child blocked in WAIT after an abort) can be killed and
		# cannot hold the module for the tests after it.
		setsid timeout -k 5 "$limit" "$@" > "$log" 2>&1 &
		tpid=$!
		wait $tpid
		rc=$?
		kill -9 "-$tpid" 2>/dev/null
		secs=$(( $(date +%s) - start ))
		cat "$log"
		if [ $rc = 124 ] || [ $rc = 137 ]; then
			why="timed out after ${limit}s"
		elif [ $rc != 0 ]; then
			why="exit status $rc"
		fi
		new=$(dmesg | tail -n +$((lines + 1)) | grep -E "$BAD_DMESG")
		if [ -n "$new" ]; then
			echo "$new" | head -20 | sed 's/^/# kernel: /'
			why="${why:+$why; }kernel log: $(echo "$new" | head -1)"
		fi
		# New taint bits other than module loading ones (O, E).
		t1=$(taint)
		if [ $(( (t1 & ~taint0) & ~(4096 | 8192) )) != 0 ]; then
			why="${why:+$why; }kernel taint $taint0 -> $t1"
		fi
		if [ ! -d /sys/module/cosched ]; then
			why="${why:+$why; }left the module unloaded"
		fi
	fi
	if [ -z "$why" ]; then
		passed=$((passed + 1))
		echo "PASS $t (${secs}s)"
	else
		failed=$((failed + 1))
		failed_names="$failed_names $t"
		echo "FAIL $t (${secs}s): $why"
	fi
done
reload > /dev/null 2>&1
echo "# total $(( $(date +%s) - suite_start ))s on $(uname -r); logs in $LOGDIR${failed_names:+; failed:$failed_names}"
echo "$passed passed, $failed failed"
[ $failed = 0 ]
