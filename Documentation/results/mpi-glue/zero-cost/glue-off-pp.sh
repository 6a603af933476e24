#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# MPICH 8 B ping-pong p50, 9 rounds: plain, the glue preloaded but off
# (COSCHED_MPI=0), the glue on; policy local.  As root in a guest:
#   tests/vm/vmrun.sh --kernel 6.12 --smp 2 --timeout 1200 -- \
#       Documentation/results/mpi-glue/zero-cost/glue-off-pp.sh
cd "$(dirname "$0")/../../../.." || exit 2
# shellcheck source=bench/mpi_launch.sh
. bench/mpi_launch.sh
# shellcheck source=Documentation/results/mpi-glue/zero-cost/pp.sh
. Documentation/results/mpi-glue/zero-cost/pp.sh
[ -d /sys/kernel/cosched ] || insmod build/$(uname -r)/cosched.ko
sleep 0.5
echo local > /sys/kernel/cosched/policy
for r in 1 2 3 4 5 6 7 8 9; do
	for how in plain off on; do
		echo "round $r $how p50_ns $(p50 mpich $how 8)"
	done
done
