#!/bin/sh
# measure.sh: MPI_THREAD_MULTIPLE (mpi-glue/test/threads.c) under sb, the
# glue before cosched_progress_begin (build/tmp/oldtree: a git worktree of
# 29405c4 built with make mpi-glue) and after it (build/mpi-glue):
# blocks of the waiting thread and how many ended by an arrival.
cd "$(dirname "$0")/../../../.." || exit 2
ip link set lo up
insmod build/$(uname -r)/cosched.ko || exit 1
echo sb > /sys/kernel/cosched/policy
OUT=${COSCHED_VMOUT:-/tmp}
for rep in 1 2 3; do
for m in openmpi mpich; do
for g in old new; do
	if [ $g = old ]; then GD=build/tmp/oldtree/build/mpi-glue; else GD=build/mpi-glue; fi
	b0=$(cat /sys/kernel/cosched/stats/blocks); w0=$(cat /sys/kernel/cosched/stats/wakeups)
	s=$(date +%s.%N)
	COSCHED_MPI_GLUE_DIR=$PWD/$GD COSCHED_MPI_VERBOSE=1 timeout 120 mpi-glue/cosched-run -v -m $m -n 2 build/mpi-glue/test/threads.$m -i 300 >$OUT/t-$g-$m-$rep.out 2>$OUT/t-$g-$m-$rep.err
	rc=$?
	e=$(date +%s.%N)
	b1=$(cat /sys/kernel/cosched/stats/blocks); w1=$(cat /sys/kernel/cosched/stats/wakeups)
	echo "$g $m rep $rep rc $rc secs $(echo "$e - $s" | bc) $(grep -h 'cosched-mpi: rank' $OUT/t-$g-$m-$rep.err | awk '{for(i=1;i<=NF;i++){if($i=="blocks")b+=$(i+1); if($i=="wakeups")w+=$(i+1); if($i=="cosched_waits")c+=$(i+1)}} END{print "cosched_waits",c}') module_blocks $((b1-b0)) module_wakeups $((w1-w0)) timeouts $((b1-b0-w1+w0))" | tee -a $OUT/summary.txt
done; done; done
