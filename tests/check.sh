#!/usr/bin/env bash
# The whole test suite (`make check`): installs what it needs, runs the
# host tests, then the module suite in a Debian 6.1 guest and a 6.12
# guest.  Ends with one line "N passed, N failed" summing every part.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
passed=0 failed=0

# Runs one part, echoing its output, and adds its own summary line.
part() {
	local name=$1 log t0=$SECONDS
	shift
	echo "=== $name"
	log=$(mktemp)
	"$@" 2>&1 | tee "$log"
	local status=${PIPESTATUS[0]}
	local line
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1)
	rm -f "$log"
	if [ -n "$line" ]; then
		passed=$((passed + $(echo "$line" | awk '{print $1}')))
		failed=$((failed + $(echo "$line" | awk '{print $3}')))
	fi
	if [ "$status" -ne 0 ] && { [ -z "$line" ] || [ "${line#* passed, 0 failed}" != "$line" ]; }; then
		echo "not ok - $name exited $status"
		failed=$((failed + 1))
	fi
	# Each part's time: what to cut when the suite nears its hour.
	echo "=== $name took $((SECONDS - t0)) s"
}

# Guests take turns with any other guest on this machine (developers'
# runs use the same lock): timing tests mean nothing on a shared host.
vm() { flock /tmp/cosched-guest.lock tests/vm/vmrun.sh "$@"; }

start=$(date +%s)
part setup scripts/setup.sh
part unit make -s -C tests/unit check
part userlib make --no-print-directory -s -C userlib check
part mpi-glue make --no-print-directory -s -C mpi-glue check
part bpf tests/bpf/run.sh
part lint tests/lint.sh
part harness tests/vm/selftest.sh
part build sh -c 'make -s modules && make -s tests bench && make -s -C userlib && make -s mpi-glue && echo "1 passed, 0 failed"'
# The workloads on the host, MPI over TCP on loopback: result lines and
# checksums, gang, noise, hog and the mix files (about 4 minutes).
part workloads bench/workloads/test.sh
# The floor every guest latency bench prints ends whatever the host does.
part "vcpu_stall" bench/vcpu_stall_test.sh
# net_wake refuses bad command lines (its measurement runs in the cluster smoke).
part "net_wake" bench/net_wake_test.sh
# The MPI benchmarks' launch lines (bench/mpi_launch.sh), against stand-in mpiexecs.
part "mpi_launch" bench/mpi_launch_test.sh
# Calibrated guests' module parameters: every time tunable scaled.
part calibrate bench/calibrate_test.sh
# The simulator's unit and policy sanity tests (bench/sim, under 30 s).
part sim make --no-print-directory -s -C bench/sim check
# The MPI glue's guest test takes one MPI per kernel, MPICH in 6.1 and
# Open MPI in 6.12, and leaves out sy (pb-sy yields too): both MPIs in
# both guests took about 13 minutes a guest under TCG, more than a third
# of the suite.  make mpi-glue-matrix runs every policy with both MPIs on both
# kernels.
for k in 6.1 6.12; do
	case $k in
	6.1) export MPIGLUE_ARGS="-m mpich -p local,sb,dcs,dcs-sb,pb-sy" ;;
	*) export MPIGLUE_ARGS="-m openmpi -p local,sb,dcs,dcs-sb,pb-sy" ;;
	esac
	part "guest $k" vm --kernel "$k" --smp 2 --timeout 2400 --env MPIGLUE_ARGS -- tests/guest/run.sh
done
unset MPIGLUE_ARGS
# A one-round smoke of the switch-cost and latency benchmarks, in one
# guest boot: one check per table printed; a guest that fails (a kernel
# WARNING, a timeout) fails the part (pipefail).
part "bench smoke" bash -o pipefail -c 'flock /tmp/cosched-guest.lock tests/vm/vmrun.sh --kernel 6.12 --smp 2 --timeout 900 -- \
	sh -c "bench/switch_cost.sh 1; bench/latency.sh 1 8,4K 100" | tee /dev/stderr |
	awk "/switching threads own endpoints/ { s = 1 } /^# target: system calls per message/ { l = 1 }
		END { printf \"%d passed, %d failed\n\", s + l, 2 - s - l }"'
# One tiny mix (two 2-rank jobs of about a second) under local and dcs in
# a guest, then the report: the table is printed (no timing asserted).
part "mix bench smoke" bench/mix-smoke.sh
# Two guests on a private virtual switch, as a site would run them: the
# .debs built and installed, the module loaded by modprobe (DKMS), Slurm
# up, an MPI job across the nodes under srun --cosched with dcs on every
# node (tests/vm/cluster/slurm-smoke.sh; about 4 minutes with the build).
part "cluster smoke" make --no-print-directory -s cluster-slurm-smoke
echo "=== make check took $(( $(date +%s) - start )) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
