#!/bin/bash
# In a --slurm-gang cluster: do two sruns take turns and both finish?
cd /work/main
N=2
show() { squeue -h -o '%i %T %M' | tr '\n' ';'; echo; }
t0=$(date +%s)
srun -N $N -n $N -J ga sleep 12 >/dev/null 2>&1 & a=$!
sleep 1
srun -N $N -n $N -J gb sleep 12 >/dev/null 2>&1 & b=$!
while kill -0 $a 2>/dev/null || kill -0 $b 2>/dev/null; do
	echo "t=$(( $(date +%s) - t0 )) $(show)"; sleep 2
	[ $(( $(date +%s) - t0 )) -gt 150 ] && { echo "gave up"; scancel -n ga -n gb; break; }
done
wait $a; echo "a: $?"; wait $b; echo "b: $?"
echo "== run-mix --slurm -p slurm-gang"
timeout 900 bench/run-mix --slurm --remote cosched-rexec --net-if eth0 -p slurm-gang -r 1 -t 10 \
	--no-monitor -o /tmp/vmout/sg 12
cat /tmp/vmout/sg/runs.csv | cut -d, -f1-12
