#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# System calls of each MPICH ping-pong rank (strace -c), plain and with the
# glue on, module loaded, policy local.  As root in a guest:
#   tests/vm/vmrun.sh --kernel 6.12 --smp 2 --timeout 600 -- \
#       Documentation/results/mpi-glue/zero-cost/syscalls-pp.sh
cd "$(dirname "$0")/../../../.." || exit 2
G=$(pwd)/build/mpi-glue
insmod build/$(uname -r)/cosched.ko && echo local >/sys/kernel/cosched/policy
for how in plain glue; do
	set --
	[ $how = glue ] && set -- -genv LD_PRELOAD "$G/libcosched-mpi-mpich.so:$G/libcosched-ucx-finalize.so"
	env MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp UCX_NET_DEVICES=lo mpiexec.mpich -n 2 -bind-to user:0,1 "$@" \
		sh -c "exec strace -f -c -S calls -o /tmp/st.$how.\$\$ build/bench/mpi_pingpong.mpich -s 8 -n 1000" 2>&1 | grep '^bench=' | head -1
	for f in /tmp/st.$how.*; do echo "== $how $f"; cat "$f"; done
done
