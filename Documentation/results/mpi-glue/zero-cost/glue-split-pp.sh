#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Where the glue's MPICH 8 B ping-pong cost sits, p50 over 9 rounds,
# policy local: plain; the glue preloaded but off (COSCHED_MPI=0); the
# glue on without the module (its wrappers, no endpoint: it waits the
# plain MPI way); the glue on with the module (an endpoint, sockets
# parked).  As root in a guest:
#   tests/vm/vmrun.sh --kernel 6.12 --smp 2 --timeout 1800 -- \
#       Documentation/results/mpi-glue/zero-cost/glue-split-pp.sh
cd "$(dirname "$0")/../../../.." || exit 2
# shellcheck source=bench/mpi_launch.sh
. bench/mpi_launch.sh
# shellcheck source=Documentation/results/mpi-glue/zero-cost/pp.sh
. Documentation/results/mpi-glue/zero-cost/pp.sh
KO=build/$(uname -r)/cosched.ko
for r in 1 2 3 4 5 6 7 8 9; do
	scripts/rmmod-cosched -q 2>/dev/null
	echo "round $r nomod p50_ns $(p50 mpich glue 8)"
	insmod "$KO" && sleep 0.5 && echo local >/sys/kernel/cosched/policy || exit 1
	for how in plain off on; do
		echo "round $r $how p50_ns $(p50 mpich $how 8)"
	done
done
