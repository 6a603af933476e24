#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# System calls of each MPICH ping-pong rank (strace -c), plain and with the
# glue on, module loaded, policy local.  As root in a guest:
#   tests/vm/vmrun.sh --kernel 6.12 --smp 2 --timeout 600 -- \
#       Documentation/results/mpi-glue/zero-cost/syscalls-pp.sh
cd "$(dirname "$0")/../../../.." || exit 2
# shellcheck source=bench/mpi_launch.sh
. bench/mpi_launch.sh
G=$(pwd)/build/mpi-glue
insmod build/$(uname -r)/cosched.ko && echo local >/sys/kernel/cosched/policy
for how in plain glue; do
	pre=
	[ $how = plain ] || pre=$(glue_preload mpich "$G")
	mpi_launch mpich "$pre" sh -c "exec strace -f -c -S calls -o /tmp/st.$how.\$\$ build/bench/mpi_pingpong.mpich -s 8 -n 1000" 2>&1 |
		grep '^bench=' | head -1
	for f in /tmp/st.$how.*; do echo "== $how $f"; cat "$f"; done
done
