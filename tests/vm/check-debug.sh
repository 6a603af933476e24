#!/usr/bin/env bash
# check-debug.sh - `make check-debug`: the guest suite, the fuzzer and a
# kmemleak scan in the debug kernel (KASAN, lockdep, kmemleak, debug
# objects; see debug-kernel.sh), which is built first unless cached.
#
# usage: check-debug.sh [TEST...]   tests of tests/guest/run.sh (default: all)
# environment: DEBUG_TIMEOUT (guest timeout, s; default 10800),
#   DEBUG_OUTDIR (where the guest's logs stay; default build/debug-out),
#   DEBUG_MEM (guest memory, MB; default 2048: KASAN's shadow and
#   quarantine and kmemleak's metadata need room), FUZZ_ARGS (options of
#   tests/fuzz/run.sh; default "--seconds 600": KASAN slows each operation)
# Ends with "N passed, N failed"; exits 1 if anything failed.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2

fail() {
	echo "check-debug: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

rel=$(tests/vm/debug-kernel.sh build) || fail "building the debug kernel failed"
echo "check-debug: kernel $rel (built in $(cat "$(tests/vm/debug-kernel.sh tree)/../build-seconds" 2>/dev/null || echo '?') s)"
make --no-print-directory -s module KVER="$rel" || fail "building cosched.ko for $rel failed"
make --no-print-directory -s tests || fail "make tests failed"
# What the rest of the suite runs, when present (as tests/check.sh builds it).
make --no-print-directory -s -C userlib || fail "make -C userlib failed"
make --no-print-directory -s mpi-glue || fail "make mpi-glue failed"
if [ -f tests/fuzz/Makefile ]; then
	make --no-print-directory -s -C tests/fuzz || fail "make -C tests/fuzz failed"
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
export FUZZ_ARGS=${FUZZ_ARGS:---seconds 600}
# The guest's logs (the fuzzer's operation log among them) stay here.
outdir=${DEBUG_OUTDIR:-build/debug-out}
mkdir -p "$outdir"
# The irqsoff tracer starts at boot, on one CPU: switching tracers later
# patches kernel text while both vCPUs run (bench/many-endpoints.sh).
flock /tmp/cosched-guest.lock tests/vm/vmrun.sh --kernel "$rel" --smp 2 \
	--append 'ftrace=irqsoff trace_options=nofunction-trace' \
	--outdir "$outdir" --env FUZZ_ARGS --mem "${DEBUG_MEM:-2048}" --timeout "${DEBUG_TIMEOUT:-10800}" \
	-- tests/vm/debug-guest.sh "$@" | tee "$out"
status=${PIPESTATUS[0]}
line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
passed=0 failed=0
if [ -n "$line" ]; then
	passed=${line%% *}
	failed=${line#* passed, }
	failed=${failed%% *}
fi
# A kernel report vmrun.sh found at the end (3), a timeout or a dead guest
# is one more failure.
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
	echo "check-debug: vmrun.sh exited $status"
	failed=1
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
