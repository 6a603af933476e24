#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# MPICH 8 B ping-pong p50, 9 rounds: plain, the glue preloaded but off
# (COSCHED_MPI=0), the glue on; policy local.  As root in a guest:
#   tests/vm/vmrun.sh --kernel 6.12 --smp 2 --timeout 1200 -- \
#       Documentation/results/mpi-glue/zero-cost/glue-off-pp.sh
cd "$(dirname "$0")/../../../.." || exit 2
[ -d /sys/kernel/cosched ] || insmod build/$(uname -r)/cosched.ko
sleep 0.5
echo local > /sys/kernel/cosched/policy
G=$(pwd)/build/mpi-glue
for r in 1 2 3 4 5 6 7 8 9; do
  for how in plain off on; do
    set --
    [ $how != plain ] && set -- -genv LD_PRELOAD "$G/libcosched-mpi-mpich.so:$G/libcosched-ucx-finalize.so"
    [ $how = off ] && set -- "$@" -genv COSCHED_MPI 0
    p50=$(env MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp UCX_NET_DEVICES=lo mpiexec.mpich -n 2 -bind-to user:0,1 "$@" \
        build/bench/mpi_pingpong.mpich -s 8 -n 1000 2>/dev/null | grep '^bench=' | head -1 | sed 's/.*lat_ns_p50=\([0-9]*\).*/\1/')
    echo "round $r $how p50_ns $p50"
  done
done
