#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The mix bench's smoke test (tests/check.sh): one tiny mix (mix12, two
# LIFE jobs of high communication) under local and dcs, one repeat, jobs of
# about a second alone, in a 6.12 guest; then bench/report on the host.
# Passes when the report prints the completion-time row of the mix; it
# asserts nothing about times (the host is shared).  Prints "N passed,
# N failed".  Needs make modules (and make bpf for the monitor's columns).
set -u
cd "$(dirname "$0")/.."
# The guest cannot build: the workloads and the glue are built here first.
if ! make -s -C bench/workloads >/dev/null || ! make -s -C mpi-glue >/dev/null; then
	echo "not ok - building bench/workloads and mpi-glue failed"
	echo "0 passed, 1 failed"
	exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flock /tmp/cosched-guest.lock tests/vm/vmrun.sh --kernel 6.12 --smp 2 \
	--timeout 900 --outdir "$out" -- \
	bench/run-mix -p local,dcs -r 1 -t 1 12
status=$?
if [ "$status" -ne 0 ]; then
	echo "not ok - bench/run-mix in the guest exited $status"
	echo "0 passed, 1 failed"
	exit 1
fi
if bench/report "$out/mix-results" | tee /dev/stderr | grep -E '^\| mix12 \|.*x[0-9.]+.*\|.*x[0-9.]+' >/dev/null; then
	echo "ok - the report prints mix12 under local and dcs"
	echo "1 passed, 0 failed"
else
	echo "not ok - no completion-time row for mix12 under local and dcs"
	echo "0 passed, 1 failed"
	exit 1
fi
