#!/bin/bash
N=2
show() { squeue -h -o '%i %P %T %r %M' | tr '\n' ';'; echo; }
for opt in "" "-s"; do
echo "== cluster: two sruns $opt"
srun $opt -N $N -n $N -J ca sleep 12 >/dev/null 2>&1 & a=$!
sleep 2
srun $opt -N $N -n $N -J cb sleep 12 >/dev/null 2>&1 & b=$!
for i in 1 2 3 4 5 6 7 8; do echo "t=$((i*2)) $(show)"; sleep 2; done
wait $a $b
done
scontrol show job 1 2>/dev/null | grep -iE "OverSub|Shared" | head -2
scontrol show config | grep -iE "SelectType"
