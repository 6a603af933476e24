#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: the cosched fuzzer's driver, for inside a guest (as root), e.g.
#   make -C tests/fuzz && tests/vm/vmrun.sh --kernel 6.12 -- tests/fuzz/run.sh --ops 100000
#
# usage: run.sh [--ops N] [--seconds S] [--seed S] [--threads T] [--procs P]
#               [--cycles C] [--cycle-seconds S] [--ko KO]
#   --ops N            operations of the first phase (default 200000)
#   --seconds S        time limit of the first phase (default 0: none)
#   --seed S           base seed (default: from the clock; always printed)
#   --threads, --procs per fuzzer run (default 2 and 4)
#   --cycles C         second phase: C fuzzer runs with a module reload
#                      after each and an rmmod attempt during each (default 4)
#   --cycle-seconds S  length of each of those runs (default 4)
#   --ko KO            module (default $COSCHED_KO or build/$(uname -r)/cosched.ko)
#
# Fails if a fuzzer run fails (kernel warning, hang, crash), if the kernel
# log gets a BUG/WARNING/Oops line (tests/guest/run.sh's pattern), or if
# the module does not unload at the end.  Leaves the module loaded.  The
# last line is "N passed, N failed".

cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
FUZZ=$ROOT/build/fuzz/cosched-fuzz
KO=${COSCHED_KO:-$ROOT/build/$(uname -r)/cosched.ko}
OPS=200000
SECONDS_=0
SEED=
THREADS=2
PROCS=4
CYCLES=4
CYCLE_S=4
BAD_DMESG='BUG:|Oops|WARNING:|Call Trace|general protection|KASAN|kmemleak|refcount_t|list_del corruption|UBSAN|still has objects|blocked for more than'

while [ $# -gt 0 ]; do
	case $1 in
	--ops) OPS=$2 ;;
	--seconds) SECONDS_=$2 ;;
	--seed) SEED=$2 ;;
	--threads) THREADS=$2 ;;
	--procs) PROCS=$2 ;;
	--cycles) CYCLES=$2 ;;
	--cycle-seconds) CYCLE_S=$2 ;;
	--ko) KO=$2 ;;
	*) sed -n '7,17s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
	shift 2 || { echo "run.sh: $1 needs a value" >&2; exit 2; }
done
SEED=${SEED:-$(( $(date +%s) % 1000000 * 1000 + $$ % 1000 ))}

[ "$(id -u)" = 0 ] || { echo "run.sh: must run as root (inside the guest)" >&2; exit 2; }
[ -x "$FUZZ" ] || { echo "run.sh: no $FUZZ (make -C tests/fuzz on the host)" >&2; exit 2; }
[ -f "$KO" ] || { echo "run.sh: no module at $KO" >&2; exit 2; }

passed=0
failed=0
check() {	# check NAME CONDITION-STATUS [WHY]
	if [ "$2" = 0 ]; then
		passed=$((passed + 1))
		echo "ok - $1"
	else
		failed=$((failed + 1))
		echo "not ok - $1${3:+: $3}"
	fi
}

load() {
	"$ROOT/scripts/insmod-cosched" "$KO"
}

# rmmod, retried: a killed child may still be closing its descriptors.
unload() {
	for i in 1 2 3 4 5 6 7 8 9 10; do
		rmmod cosched 2> /dev/null && return 0
		sleep 0.5
	done
	rmmod cosched
}

total_ops=0
# fuzz LOG ARGS...: one fuzzer run; adds its op count; returns its status.
fuzz() {
	log=$1
	shift
	limit=2800
	[ "$SECONDS_" = 0 ] || limit=$((SECONDS_ + CYCLE_S + 300))
	timeout -k 5 "$limit" "$FUZZ" "$@" > "$log" 2>&1
	rc=$?
	grep -E '^# (cosched-fuzz|[0-9]+ ops|result)|^not ok|^# kernel|^# watchdog|^# worker' "$log"
	[ $rc = 0 ] || tail -n 80 "$log" | grep -v '^# [a-z_]* *[0-9]* ' | head -80
	n=$(sed -n 's/^# \([0-9]*\) ops in .*/\1/p' "$log" | tail -n 1)
	total_ops=$((total_ops + ${n:-0}))
	return $rc
}

LOGS=${COSCHED_VMOUT:-/tmp}/fuzz
mkdir -p "$LOGS"
lines=$(dmesg | wc -l)
start=$(date +%s)
echo "# cosched fuzz on $(uname -r), $(nproc) CPUs, seed $SEED, module $KO"
load
check "module loaded" $?

# Phase 1: the long run.
fuzz "$LOGS/phase1.log" --seed "$SEED" --ops "$OPS" --seconds "$SECONDS_" \
	--threads "$THREADS" --procs "$PROCS"
rc=$?
check "phase 1: $OPS ops, seed $SEED" $rc "fuzzer exit $rc (log $LOGS/phase1.log)"

# Phase 2: reload cycles.  Each run gets an rmmod attempt half way, which
# fails while descriptors are open and must not hurt when it succeeds;
# after each run the module must unload and load again.
k=1
while [ $k -le "$CYCLES" ]; do
	s=$((SEED + k))
	( sleep $(( CYCLE_S / 2 )).$((k % 10)); rmmod cosched 2> /dev/null && { echo "# cycle $k: rmmod succeeded during the run"; load; } ) &
	rmpid=$!
	fuzz "$LOGS/cycle$k.log" --seed "$s" --ops 100000000 --seconds "$CYCLE_S" \
		--threads "$THREADS" --procs "$PROCS"
	rc=$?
	wait $rmpid
	check "cycle $k: fuzz $CYCLE_S s, seed $s" $rc "fuzzer exit $rc (log $LOGS/cycle$k.log)"
	unload
	rc=$?
	check "cycle $k: rmmod after the run" $rc
	load
	check "cycle $k: insmod" $?
	k=$((k + 1))
done

new=$(dmesg | tail -n +$((lines + 1)) | grep -E "$BAD_DMESG")
if [ -n "$new" ]; then
	dmesg | tail -n +$((lines + 1)) | grep -E -B5 -A30 "$BAD_DMESG" | head -120 | sed 's/^/# kernel: /'
	check "kernel log clean" 1 "$(echo "$new" | head -1)"
else
	check "kernel log clean" 0
fi
unload
check "module unloads at the end" $?
load > /dev/null 2>&1
secs=$(( $(date +%s) - start ))
echo "# $total_ops ops in ${secs}s ($(( total_ops / (secs ? secs : 1) )) ops/s overall), seed $SEED on $(uname -r)"
echo "$passed passed, $failed failed"
[ $failed = 0 ]
