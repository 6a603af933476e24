#!/bin/sh
# missed.sh: two jobs under sb, each MPI REPS times on a quiet guest and
# REPS times beside a CPU hog on every CPU (slow peers): `threads`
# (mpi-glue/test/threads.c, MPI_THREAD_MULTIPLE) and `barrier` (bench's
# barrier workload, one rank 2 ms late to each barrier: the glue's
# MPI_Ibarrier and a wait).  Per run: the module's sleeps, those no
# arrival ended (timeouts, signals), and the library's missed wake-ups
# (cosched_missed_wakeups(3): a sleep that ran out its timeout, after
# which the wait completed with nothing come).  As root in a guest:
#   missed.sh [REPS]      (default 5; summary in $COSCHED_VMOUT or /tmp)
# GLUES="name=dir ...": glue builds to compare (default: new=build/mpi-glue).
cd "$(dirname "$0")/../../../.." || exit 2
REPS=${1:-5}
GLUES=${GLUES:-new=build/mpi-glue}
ip link set lo up
scripts/insmod-cosched build/$(uname -r)/cosched.ko || exit 1
echo sb > /sys/kernel/cosched/policy
OUT=${COSCHED_VMOUT:-/tmp}
S=/sys/kernel/cosched/stats
# sum FILE FIELD: the ranks' FIELD summed; "missing" unless both print it.
sum() { grep -h '^cosched-mpi: rank' "$1" | awk -v f="$2" '{for(i=1;i<NF;i++) if($i==f) { s+=$(i+1); n++ }} END{print (n == 2 ? s : "missing")}'; }
prog() { # job mpi
	case $1 in
	threads) echo "build/mpi-glue/test/threads.$2 -i 300" ;;
	barrier) echo "build/bench/workloads/$2/barrier -n 200 -d 2000" ;;
	esac
}
for load in quiet hogs; do
	HOGS=
	if [ $load = hogs ]; then
		for c in $(seq 0 $(($(nproc) - 1))); do
			taskset -c "$c" sh -c 'while :; do :; done' &
			HOGS="$HOGS $!"
		done
	fi
	for rep in $(seq "$REPS"); do
	for job in threads barrier; do
	for m in openmpi mpich; do
	for g in $GLUES; do
		n=${g%%=*}
		f="$OUT/m-$load-$job-$m-$n-$rep"
		b0=$(cat $S/blocks); w0=$(cat $S/wakeups)
		s=$(date +%s.%N)
		# shellcheck disable=SC2046 # the program and its arguments
		COSCHED_MPI_GLUE_DIR=$PWD/${g#*=} timeout 300 mpi-glue/cosched-run -v -m $m -n 2 \
			$(prog $job $m) >"$f.out" 2>"$f.err"
		rc=$?
		e=$(date +%s.%N)
		b=$(($(cat $S/blocks) - b0)); w=$(($(cat $S/wakeups) - w0))
		echo "$load $job $m $n rep $rep rc $rc secs $(echo "$e - $s" | bc) sleeps $b not_by_arrival $((b - w)) missed_wakeups $(sum "$f.err" missed_wakeups)" |
			tee -a "$OUT/missed.txt"
	done; done; done; done
	[ -n "$HOGS" ] && kill $HOGS
done
exit 0
