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
KO=build/$(uname -r)/cosched.ko
G=$(pwd)/build/mpi-glue
p50() { # how
	set --
	[ "$1" != plain ] && set -- -genv LD_PRELOAD "$G/libcosched-mpi-mpich.so:$G/libcosched-ucx-finalize.so"
	[ "$1" = off ] && set -- "$@" -genv COSCHED_MPI 0
	env MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp UCX_NET_DEVICES=lo mpiexec.mpich -n 2 -bind-to user:0,1 "$@" \
		build/bench/mpi_pingpong.mpich -s 8 -n 1000 2>/dev/null |
		grep '^bench=' | head -1 | sed 's/.*lat_ns_p50=\([0-9]*\).*/\1/'
}
for r in 1 2 3 4 5 6 7 8 9; do
	scripts/rmmod-cosched -q 2>/dev/null
	echo "round $r nomod p50_ns $(p50 nomod)"
	insmod "$KO" && sleep 0.5 && echo local >/sys/kernel/cosched/policy || exit 1
	for how in plain off on; do
		echo "round $r $how p50_ns $(p50 $how)"
	done
done
