#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make -C mpi-glue check: the host tests of the glue (host.sh: the
# fallback without the module, the table's calls, Fortran; chain.sh: PMPI
# tools beside the glue, LD_BIND_NOW; netcalls-unit: the interposed
# socket calls, the module stubbed; finalize.sh: no MPICH/UCX hang in
# MPI_Finalize through cosched-run), one summary line for all.
cd "$(dirname "$0")" || exit 2
log=$(mktemp)
trap 'rm -f "$log"' EXIT
passed=0
failed=0
for t in host.sh chain.sh ../../build/mpi-glue/test/netcalls-unit finalize.sh; do
	echo "# $t"
	./$t | tee "$log"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1)
	[ -n "$line" ] || line="0 passed, 1 failed"
	passed=$((passed + ${line%% *}))
	f=${line#* passed, }
	failed=$((failed + ${f%% *}))
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
