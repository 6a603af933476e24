#!/usr/bin/env bash
# The newcomer's first command (`make demo`): install what is needed,
# build the module, the MPI glue and the workloads, boot a calibrated
# Debian 6.12 guest with the module, and run a small workload mix of the thesis
# (mix 12: two LIFE jobs of high communication, one rank per CPU, MPI
# over TCP) under local, dcs, pb and dcs-sb, and under Open MPI's own
# yield mode; then print the completion-time table with the slowdown
# against the ideal (the sum of the jobs' standalone times).  A few
# minutes on a 2-core machine.  Results, plots included, stay in
# build/demo/mix-results (bench/report; Documentation/bench.rst).
set -euo pipefail
cd "$(dirname "$0")/.."

kernel=${1:-6.12}
out=build/demo
scripts/setup.sh
make -s modules mpi-glue
make -s -C bench/workloads
# The monitor adds CPU-share and coscheduling-degree columns; the mix
# runs without it if it cannot be built here.
make -s bpf >/dev/null 2>&1 || echo "demo: no cosched-monitor; the table lacks its columns" >&2
rm -rf "$out" && mkdir -p "$out"
echo "demo: booting a $kernel guest; the mix takes a few minutes" >&2
# A calibrated guest (Documentation/calibration.rst): the scheduler's and
# the module's time constants, and with --dilate the jobs' length, are
# stretched by how much slower the guest computes, so that the mix sees
# the proportions a native node would (bench/calibrate measures the
# factor once per kernel, a few minutes, then keeps it).
tests/vm/vmrun.sh --calibrated --kernel "$kernel" --smp 2 --timeout 3600 --outdir "$out" -- \
	bench/run-mix -p local,dcs,pb,dcs-sb,mpi-yield -r 1 --standalone-repeats 1 --dilate -t 1 12
bench/report "$out/mix-results"
