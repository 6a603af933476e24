#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The wait path's cost of finding sockets, before (a /proc/self/fd scan
# at MPI_Init and again from the wait loop) and after (registration when
# MPI makes a socket): as root in a guest with the module, from the
# repository root:
#   measure.sh OLD_GLUE_DIR NEW_GLUE_DIR [rounds]
# 1. the suite (build/mpi-glue/test/suite.*) under each glue with -v:
#    every rank's counters line (old: scans, scan_us = mean per scan;
#    new: sockets, sockets_full);
# 2. bench's mpi_pingpong under each glue, policy local, ROUNDS rounds
#    taking turns: its msgbench lines.
set -eu
OLD=$1
NEW=$2
ROUNDS=${3:-3}
RUN=mpi-glue/cosched-run
# The glue directories compared may predate libcosched-ucx-finalize.so
# (89e1a58); these runs were made without it, and cosched-run refuses a
# directory that lacks it unless told to leave it out.
export COSCHED_UCX_FINALIZE=0
KO=build/$(uname -r)/cosched.ko
ip link set lo up 2>/dev/null || true
[ -d /sys/kernel/cosched ] || insmod "$KO"
i=0
while [ ! -e /dev/cosched ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
echo local >/sys/kernel/cosched/policy
echo "# $(uname -r), $(nproc) CPUs, policy $(cat /sys/kernel/cosched/policy)"
for m in mpich openmpi; do
	for g in old new; do
		[ $g = old ] && d=$OLD || d=$NEW
		echo "## suite $m $g: COSCHED_MPI_GLUE_DIR=$d $RUN -v -m $m -n 2 build/mpi-glue/test/suite.$m"
		COSCHED_MPI_GLUE_DIR=$d timeout 120 $RUN -v -m $m -n 2 \
			build/mpi-glue/test/suite.$m 2>&1 >/dev/null |
			grep '^cosched-mpi: rank' || echo "# (no counters: status $?)"
	done
done
r=1
while [ $r -le "$ROUNDS" ]; do
	for m in mpich openmpi; do
		for g in old new; do
			[ $g = old ] && d=$OLD || d=$NEW
			echo "## pingpong round $r $m $g: COSCHED_MPI_GLUE_DIR=$d $RUN -m $m -n 2 build/bench/mpi_pingpong.$m -s 8,4K -n 2000"
			COSCHED_MPI_GLUE_DIR=$d timeout 120 $RUN -m $m -n 2 \
				build/bench/mpi_pingpong.$m -s 8,4K -n 2000 2>&1 |
				sed "s/^/$g $m r$r: /" || true
		done
	done
	r=$((r + 1))
done
