#!/bin/sh
# The 6.12 guest with its EEVDF slice at the host's effective quantum:
# natively the slice (1.4 ms) is shorter than the 4 ms tick of HZ=250
# with PREEMPT_NONE, so a busy task runs a whole tick; the calibrated
# guest's 10.9 ms slice with the same 4 ms guest tick gives 12 ms guest
# = 1.54 ms native-equivalent.  29.25 ms makes it 32 ms guest = 4.1 ms.
cd /work/main
d=/sys/kernel/debug/sched
echo "before: $(cat $d/base_slice_ns)"
echo "${SLICE:-29250000}" >$d/base_slice_ns
echo "after: $(cat $d/base_slice_ns)"
exec bench/run-mix -p busy-poll,gang -r 2 --dilate -t 1 --gang-slice 100 -n 2 -m openmpi \
	--no-monitor -o "$COSCHED_VMOUT/mix-results" \
	/work/valrun/build/validate/6.12/mixes/val-4j-1ms.conf \
	/work/valrun/build/validate/6.12/mixes/val-hog-1ms.conf
