#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The mix bench's smoke test (tests/check.sh).  First bench/resume-test.sh
# on the host (seconds, no guest): a sweep killed and restarted resumes;
# bench/validate-test.sh: the validation's sides and table; and
# bench/slurm-launch-test.sh: run-mix --slurm's srun lines and columns;
# bench/hostload-test.sh: what a run records of the host's other load.
# Then one tiny mix (mix12, two LIFE jobs of high communication) under
# local and dcs, one repeat, jobs of about a second alone, in a 6.12
# guest, the same command a second time in the same guest (every cell on
# disk: nothing may run again), each run's record of the host's other
# load (host-load.csv, which vmrun.sh writes), and bench/report on the host.  Passes when
# the report prints the completion-time row of the mix; it asserts nothing
# about times (the host is shared).  Prints "N passed, N failed".  Needs
# make modules (and make bpf for the monitor's columns).
set -u
cd "$(dirname "$0")/.."
. bench/tap.sh
finish() { tap_end; exit; }

res=$(bench/resume-test.sh; bench/validate-test.sh; bench/slurm-launch-test.sh; bench/hostload-test.sh)
echo "$res" | grep -v '^[0-9]* passed, [0-9]* failed$'
passed=$(echo "$res" | grep -c '^ok - ')
failed=$(echo "$res" | grep -c '^not ok - ')

# The guest cannot build: the workloads and the glue are built here first.
if ! make -s -C bench/workloads >/dev/null || ! make -s -C mpi-glue >/dev/null; then
	nok "building bench/workloads and mpi-glue failed"
	finish
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cmd='bench/run-mix -p local,dcs -r 1 -t 1 12'
flock /tmp/cosched-guest.lock tests/vm/vmrun.sh --kernel 6.12 --smp 2 \
	--timeout 900 --outdir "$out" -- sh -c "$cmd && $cmd" >"$out/stdout"
status=$?
cat "$out/stdout"
if [ "$status" -ne 0 ]; then
	nok "bench/run-mix in the guest exited $status"
	finish
fi
# The second sweep's only progress line: both cells already on disk.
if [ "$(grep -c '^mix-results .*: 2/2 cells' "$out/stdout")" -eq 2 ] &&
   [ "$(grep -c '^mix-results .*: 1/2 cells' "$out/stdout")" -eq 1 ]; then
	ok "in the guest: progress lines, and the same command again runs nothing"
else
	nok "in the guest: progress lines (1/2, 2/2, then 2/2 on the rerun) missing"
fi
# Each run records the host's other load, which vmrun.sh samples into
# the results share (host-load.csv) and run-mix reads in the guest, and
# what QEMU's threads other than its vCPUs took (named vCPU threads).
loads=$(python3 -c 'import csv, sys
print(" ".join((r.get("host_others") or "-") + "/" + (r.get("host_qemu_aux") or "-")
               for r in csv.DictReader(open(sys.argv[1]))))' \
	"$out/mix-results/runs.csv" 2>/dev/null)
if [ -s "$out/host-load.csv" ] &&
   printf '%s\n' "$loads" | grep -Eq '^[0-9.]+/[0-9.]+ [0-9.]+/[0-9.]+$'; then
	ok "in the guest: each run records the host's other load and QEMU's aux threads' from host-load.csv ($loads CPUs)"
else
	nok "host_others of the guest's runs: '$loads' (host-load.csv: $(wc -l <"$out/host-load.csv" 2>/dev/null) lines)"
fi
# (Not tee /dev/stderr: when stderr is a file, that reopens and truncates it.)
bench/report "$out/mix-results" >"$out/report.out" 2>&1
cat "$out/report.out" >&2
if grep -Eq '^\| mix12 \|.*x[0-9.]+.*\|.*x[0-9.]+' "$out/report.out"; then
	ok "the report prints mix12 under local and dcs"
else
	nok "no completion-time row for mix12 under local and dcs"
fi
finish
