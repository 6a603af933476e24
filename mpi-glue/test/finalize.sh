#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# finalize.sh: MPICH 4.0.2/UCX's hang in MPI_Finalize (issue 12), counted.
# Runs test/finalize.c (Init, Allreduce, Finalize; 2 ranks) RUNS times
# through cosched-run, each within LIMIT s, and counts the runs that
# printed their line and then did not end: hangs in MPI_Finalize.
#
# usage: finalize.sh [-n RUNS] [-l LIMIT] [-N] [-u]
#   -n RUNS   runs (default 100)
#   -l LIMIT  seconds a run may take (default 10; a run takes < 1 s)
#   -N        cosched-run -N (no glue) instead of the glue
#   -u        unfixed: without test/finalize/finalize-progress.c
#             preloaded (the hang is expected: about 1 run in 4 with the
#             glue, 1 in 25 without, on the 2-CPU host)
# Host only (no module needed).  One TAP line, then "N passed, N failed".
# Not in make check: a run of 100 takes about 2 minutes.
cd "$(dirname "$0")/../.." || exit 2
RUNS=100
LIMIT=10
GLUE=
FIX=1
while getopts n:l:Nu o; do
	case $o in
	n) RUNS=$OPTARG ;;
	l) LIMIT=$OPTARG ;;
	N) GLUE=-N ;;
	u) FIX=0 ;;
	*) sed -n '8,14s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
# shellcheck source=mpi-glue/test/tap.sh
. mpi-glue/test/tap.sh
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
command -v mpicc.mpich >/dev/null || { echo "# no MPICH: skipped"; tap_summary; exit 0; }
[ -n "$GLUE" ] || [ -f build/mpi-glue/libcosched-mpi-mpich.so ] ||
	{ echo "# build/mpi-glue/libcosched-mpi-mpich.so missing: make mpi-glue" >&2; exit 2; }
mpicc.mpich -O2 -o "$W/finalize" mpi-glue/test/finalize.c || exit 2
PRE=
if [ $FIX = 1 ]; then
	gcc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$W/libfinalize-progress.so" \
		mpi-glue/test/finalize/finalize-progress.c -ldl -pthread || exit 2
	PRE=$W/libfinalize-progress.so
fi

hangs=0
fails=0
i=0
while [ $i -lt "$RUNS" ]; do
	i=$((i + 1))
	# (the preload reaches the ranks through cosched-run, before the glue)
	LD_PRELOAD=$PRE timeout -k 5 "$LIMIT" mpi-glue/cosched-run $GLUE \
		"$W/finalize" >"$W/out" 2>&1
	rc=$?
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		if grep -q '^allreduce 2 of 2' "$W/out"; then
			hangs=$((hangs + 1))
		else
			fails=$((fails + 1))
			echo "# run $i: no line in $LIMIT s"
		fi
	elif [ $rc != 0 ]; then
		fails=$((fails + 1))
		echo "# run $i: exit $rc"
		sed 's/^/#   /' "$W/out" | head -5
	fi
done
fix=$([ $FIX = 1 ] && echo "finalize-progress preloaded" || echo "unfixed")
echo "# $RUNS runs, ${GLUE:-glue}, $fix: $hangs hung in MPI_Finalize, $fails failed otherwise (load $(cut -d' ' -f1-3 /proc/loadavg))"
check $((hangs + fails)) "no hang in MPI_Finalize in $RUNS runs (${GLUE:-glue}, $fix)"
tap_summary
[ $((hangs + fails)) = 0 ]
