#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One gang run of the 2-job 1 ms mix with failing fallocate calls traced.
# Needs the validation clone's mix file (bench/validate); as run here:
#   tests/vm/vmrun.sh --calibrated --slice-rule quantum --kernel 6.1 --smp 2 \
#       --timeout 1100 --outdir DIR -- .../gang-fallocate-trace.sh
# The trace also carries whatever other events are enabled: stop the
# guest once the error is in (it grows by about 100 MB a minute).
cd "$(dirname "$0")/../../../../.." || exit 2
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T
echo "ret < 0" >$T/events/syscalls/sys_exit_fallocate/filter
echo 1 >$T/events/syscalls/sys_exit_fallocate/enable
echo 1 >$T/tracing_on
cat $T/trace_pipe >/tmp/vmout/fallocate-errors.trace &
bench/run-mix -p gang -r 2 --dilate -t 1 --gang-slice 100 -n 2 -m openmpi --no-monitor \
	-o /tmp/vmout/mix /work/valrun3/build/validate/6.1/mixes/val-2j-1ms.conf
grep -h "PMIX\|pmix" /tmp/vmout/mix/logs/*.err 2>/dev/null | head -20
