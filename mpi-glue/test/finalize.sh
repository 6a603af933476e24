#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# finalize.sh: MPICH 4.0.2/UCX's hang in MPI_Finalize (issue 12), counted
# through cosched-run, which preloads libcosched-ucx-finalize.so
# (mpi-glue/ucx_finalize.c) into MPICH ranks.  For each of the glue and
# -N (no glue): one run of test/launcher_maps.c asserts that both ranks
# map the library, then test/finalize.c (Init, Allreduce, Finalize; 2
# ranks) runs RUNS times, each within LIMIT s; a run that printed its
# line and then did not end hung in MPI_Finalize.
#
# usage: finalize.sh [-n RUNS] [-l LIMIT] [-N | -G] [-u]
#   -n RUNS   runs each (default 100: make check's, about 11 s a mode)
#   -l LIMIT  seconds a run may take (default 30: a run takes 0.1-1 s,
#             more on a loaded host)
#   -N, -G    -N only (no glue), the glue only (default both)
#   -u        unfixed: COSCHED_UCX_FINALIZE=0 (hangs expected: about 1
#             run in 4 with the glue, 0-1 in 25 without, on the 2-CPU
#             host), and the maps check expects no library
# Host only (no module needed).  TAP lines, then "N passed, N failed".
cd "$(dirname "$0")/../.." || exit 2
RUNS=100
LIMIT=30
MODES="glue -N"
FIX=1
while getopts n:l:NGu o; do
	case $o in
	n) RUNS=$OPTARG ;;
	l) LIMIT=$OPTARG ;;
	N) MODES=-N ;;
	G) MODES=glue ;;
	u) FIX=0 ;;
	*) sed -n '11,19s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
# shellcheck source=mpi-glue/test/tap.sh
. mpi-glue/test/tap.sh
T=build/mpi-glue/test
command -v mpicc.mpich >/dev/null || { echo "# no MPICH: skipped"; tap_summary; exit 0; }
for f in build/mpi-glue/libcosched-mpi-mpich.so build/mpi-glue/libcosched-ucx-finalize.so \
	$T/finalize.mpich $T/launcher_maps.mpich; do
	[ -f "$f" ] || { echo "# $f missing: make mpi-glue" >&2; exit 2; }
done
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export COSCHED_UCX_FINALIZE=$FIX
fix=$([ $FIX = 1 ] && echo "fix preloaded" || echo "unfixed: COSCHED_UCX_FINALIZE=0")

for mode in $MODES; do
	g=$([ "$mode" = -N ] && echo -N)
	G=$([ "$mode" = -N ] && echo 0 || echo 1)
	# "maps: rank R cpus L glue G,F up NAME:G,F ...": F, the fix mapped
	# (in the rank; never in the launcher's processes above it)
	timeout -k 5 30 mpi-glue/cosched-run ${g:+"$g"} "$T/launcher_maps.mpich" $$ \
		libcosched-ucx-finalize >"$W/maps" 2>&1
	n=$(grep -c "^maps: rank [01] cpus [^ ]* glue $G,$FIX up\( [^ ]*:[-01]*,0\)*\$" "$W/maps")
	check $((n != 2)) "$mode: both ranks map libcosched-ucx-finalize.so: $FIX, glue: $G, mpiexec: 0" ||
		sed 's/^/#   /' "$W/maps" | head -5

	hangs=0
	fails=0
	i=0
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		timeout -k 5 "$LIMIT" mpi-glue/cosched-run ${g:+"$g"} "$T/finalize.mpich" >"$W/out" 2>&1
		rc=$?
		if [ $rc = 124 ] || [ $rc = 137 ]; then
			if grep -q '^allreduce 2 of 2' "$W/out"; then
				hangs=$((hangs + 1))
			else
				fails=$((fails + 1))
				echo "# run $i: no line in $LIMIT s (not a Finalize hang)"
				sed 's/^/#   /' "$W/out" | head -5
			fi
		elif [ $rc != 0 ]; then
			fails=$((fails + 1))
			echo "# run $i: exit $rc (not a Finalize hang)"
			sed 's/^/#   /' "$W/out" | head -5
		fi
	done
	echo "# $RUNS runs, $mode, $fix: $hangs hung in MPI_Finalize, $fails failed otherwise (load $(cut -d' ' -f1-3 /proc/loadavg))"
	check "$hangs" "$mode: no hang in MPI_Finalize in $RUNS runs ($fix)"
	check "$fails" "$mode: $RUNS runs ended, each with its line"
done
tap_summary
[ "$fail" = 0 ]
