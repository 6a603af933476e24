#!/bin/bash
# In a --slurm-gang cluster with 30 s slices (COSCHED_SLURM_SLICE=30,
# Slurm's default): do two sruns whose steps outlast a slice take turns
# and both finish?  Each step sleeps 40 s; with turns, both end by about
# 80-100 s.  srun's messages (-v) go to /tmp/sr-{a,b}.err, shown at the
# end with the jobs' steps and states while it runs.
N=2
show() { squeue -h -o '%i %T %M' | tr '\n' ';'; echo -n ' steps: '; squeue -h -s -o '%i %M' | tr '\n' ';'; echo; }
grep -h "^SchedulerTimeSlice\|^PreemptMode" /etc/slurm/slurm.conf
t0=$(date +%s)
srun -v -N $N -n $N -J ga sleep 40 >/dev/null 2>/tmp/sr-a.err & a=$!
sleep 1
srun -v -N $N -n $N -J gb sleep 40 >/dev/null 2>/tmp/sr-b.err & b=$!
while kill -0 $a 2>/dev/null || kill -0 $b 2>/dev/null; do
	echo "t=$(( $(date +%s) - t0 )) $(show)"; sleep 3
	if [ $(( $(date +%s) - t0 )) -gt 200 ]; then
		echo "gave up"
		scontrol show job 2 | grep -E "JobState|RunTime|SuspendTime"
		scancel -n ga -n gb
		break
	fi
done
wait $a; echo "a: $? at t=$(( $(date +%s) - t0 ))"; wait $b; echo "b: $? at t=$(( $(date +%s) - t0 ))"
for j in a b; do echo "== srun $j, stderr"; sed 's/^/  /' /tmp/sr-$j.err | tail -25; done
