#!/bin/bash
# per 0.5 s: host IPIs per CPU (CAL, RES, TLB, LOC) while qemu runs
Q=$(pgrep -f 'qemu-system-x86_64 -accel' | head -1)
snap() { awk '/^ *(CAL|RES|TLB|LOC):/{printf "%s %s %s ", $1, $2, $3}' /proc/interrupts; }
prev=($(snap))
while kill -0 $Q 2>/dev/null; do
	sleep 0.5
	cur=($(snap)); line="$(date +%S.%N | cut -c1-5)"
	for i in 0 3 6 9; do line+=" ${cur[i]}$(( (cur[i+1]-prev[i+1])*2 ))/$(( (cur[i+2]-prev[i+2])*2 ))"; done
	echo "$line"; prev=("${cur[@]}")
done
