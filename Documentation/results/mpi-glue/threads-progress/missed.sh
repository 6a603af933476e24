#!/bin/sh
# missed.sh: MPI_THREAD_MULTIPLE (mpi-glue/test/threads.c) under sb, each
# MPI REPS times on a quiet guest and REPS times beside a CPU hog on
# every CPU (slow peers): the module's sleeps, those no arrival ended
# (timeouts), and the library's missed wake-ups among them
# (cosched_missed_wakeups(3): a timeout after which the wait's condition
# held with nothing arrived).  As root in a guest:
#   missed.sh [REPS]      (default 5; summary in $COSCHED_VMOUT or /tmp)
cd "$(dirname "$0")/../../../.." || exit 2
REPS=${1:-5}
ip link set lo up
scripts/insmod-cosched build/$(uname -r)/cosched.ko || exit 1
echo sb > /sys/kernel/cosched/policy
OUT=${COSCHED_VMOUT:-/tmp}
S=/sys/kernel/cosched/stats
sum() { grep -h '^cosched-mpi: rank' "$1" | awk -v f="$2" '{for(i=1;i<NF;i++) if($i==f) s+=$(i+1)} END{print s+0}'; }
for load in quiet hogs; do
	HOGS=
	if [ $load = hogs ]; then
		for c in $(seq 0 $(($(nproc) - 1))); do
			taskset -c "$c" sh -c 'while :; do :; done' &
			HOGS="$HOGS $!"
		done
	fi
	for rep in $(seq "$REPS"); do
		for m in openmpi mpich; do
			b0=$(cat $S/blocks); w0=$(cat $S/wakeups)
			s=$(date +%s.%N)
			timeout 300 mpi-glue/cosched-run -v -m $m -n 2 \
				build/mpi-glue/test/threads.$m -i 300 \
				>"$OUT/m-$load-$m-$rep.out" 2>"$OUT/m-$load-$m-$rep.err"
			rc=$?
			e=$(date +%s.%N)
			b=$(($(cat $S/blocks) - b0)); w=$(($(cat $S/wakeups) - w0))
			echo "$load $m rep $rep rc $rc secs $(echo "$e - $s" | bc) sleeps $b timeouts $((b - w)) missed_wakeups $(sum "$OUT/m-$load-$m-$rep.err" missed_wakeups)" |
				tee -a "$OUT/missed.txt"
		done
	done
	[ -n "$HOGS" ] && kill $HOGS
done
exit 0
