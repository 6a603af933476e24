#!/bin/bash
# experiment: cluster partition sharing, gang partition with sbatch
N=2
show() { squeue -h -o '%i %P %T %r %M' | tr '\n' ';'; echo; }
echo "== cluster: two sruns"
srun -p cluster -N $N -n $N -J ca sleep 15 >/dev/null 2>&1 & a=$!
sleep 2
srun -p cluster -N $N -n $N -J cb sleep 15 >/dev/null 2>&1 & b=$!
for i in 1 2 3 4 5 6 7 8 9 10; do echo "t=$((i*2)) $(show)"; sleep 2; done
wait $a $b
echo "== gang: two sbatch"
sbatch -p gang -N $N -n $N -J ga --wrap "srun sleep 20" 
sleep 2
sbatch -p gang -N $N -n $N -J gb --wrap "srun sleep 20"
for i in $(seq 1 35); do echo "t=$((i*2)) $(show)"; sleep 2; done
scontrol show config | grep -iE "preempt|timeslice"
scontrol show partition | grep -E "PartitionName|OverSubscribe|PreemptMode"
