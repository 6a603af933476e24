#!/bin/sh
# The scheduler rows of bench/calibrate.c (quantum, wake-behind-hog,
# wake-after-spin) on this host and in 6.12 and 6.1 guests: as they
# boot, calibrated with the quantum rule, calibrated with --slice-rule
# scale.
# Run from the repository root after `make bench`; writes into $1
# (default: this script's directory).
set -eu
out=${1:-$(dirname "$0")}
probe=build/bench/calibrate
vm() { flock /tmp/cosched-guest.lock tests/vm/vmrun.sh --smp 2 --timeout 600 "$@"; }
# In the guest: the slice constant as set, then the rows.
# shellcheck disable=SC2016 # expanded in the guest
rows='mount -t debugfs none /sys/kernel/debug 2>/dev/null
d=/sys/kernel/debug/sched
cfs=$(test -e $d/latency_ns && echo y)
echo "# slice $(cat $d/base_slice_ns 2>/dev/null || cat $d/min_granularity_ns) ns${cfs:+, latency $(cat $d/latency_ns 2>/dev/null) ns}, dilation ${COSCHED_DILATION:-none}, host quantum ${COSCHED_HOST_QUANTUM_MS:-none} ms"
exec build/bench/calibrate -q -r 11'
{
	echo "# host $(uname -r), commit $(git rev-parse --short HEAD), $(date -u '+%F %H:%M UTC')"
	flock /tmp/cosched-guest.lock env -u COSCHED_DILATION "$probe" -q -r 11
} >"$out/native.txt"
vm --kernel 6.12 -- sh -c "$rows" >"$out/6.12-as-booted.txt"
vm --kernel 6.12 --calibrated -- sh -c "$rows" >"$out/6.12-quantum-rule.txt"
vm --kernel 6.12 --calibrated --slice-rule scale -- sh -c "$rows" >"$out/6.12-scale-rule.txt"
vm --kernel 6.1 --calibrated -- sh -c "$rows" >"$out/6.1-quantum-rule.txt"
vm --kernel 6.1 --calibrated --slice-rule scale -- sh -c "$rows" >"$out/6.1-scale-rule.txt"
vm --kernel 6.1 -- sh -c "$rows" >"$out/6.1-as-booted.txt"
