#!/bin/bash
# In a --slurm-gang cluster with 30 s slices (COSCHED_SLURM_SLICE=30,
# Slurm's default): do two sruns whose steps outlast a slice take turns
# and both finish?  Each step sleeps 40 s; with turns, both end by about
# 80-100 s.
N=2
show() { squeue -h -o '%i %T %M' | tr '\n' ';'; echo; }
grep -h "^SchedulerTimeSlice\|^PreemptMode" /etc/slurm/slurm.conf
t0=$(date +%s)
srun -N $N -n $N -J ga sleep 40 >/dev/null 2>&1 & a=$!
sleep 1
srun -N $N -n $N -J gb sleep 40 >/dev/null 2>&1 & b=$!
while kill -0 $a 2>/dev/null || kill -0 $b 2>/dev/null; do
	echo "t=$(( $(date +%s) - t0 )) $(show)"; sleep 3
	[ $(( $(date +%s) - t0 )) -gt 300 ] && { echo "gave up"; scancel -n ga -n gb; break; }
done
wait $a; echo "a: $? at t=$(( $(date +%s) - t0 ))"; wait $b; echo "b: $? at t=$(( $(date +%s) - t0 ))"
for n in ${COSCHED_HOSTS//,/ }; do
	echo "== $n: slurmd's suspend lines"
	$COSCHED_REXEC "$n" "grep -rh -i 'suspend time' /var/log /var/spool/cosched-slurm 2>/dev/null | tail -5"
done
