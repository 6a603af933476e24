#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The reproducer at windows of 2, 4, 8 and 16 ints, over UCX's TCP (as
# cosched-run sets MPICH up) and with MPICH's defaults.  On the host:
#   Documentation/results/mpi-glue/mpich-small-window/run.sh
cd "$(dirname "$0")" || exit 2
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mpicc.mpich -O2 -o "$t/repro" repro.c || exit 1
for how in ucx-tcp defaults; do
	for n in 2 4 8 16; do
		if [ $how = ucx-tcp ]; then
			env MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp UCX_NET_DEVICES=lo \
				timeout 60 mpiexec.mpich -n 2 "$t/repro" $n
		else
			timeout 60 mpiexec.mpich -n 2 "$t/repro" $n
		fi 2>&1 | sed "s/^/$how: /"
	done
done
