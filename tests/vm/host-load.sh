#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# host-load.sh PID FILE [SECONDS]: while process PID (a guest's QEMU)
# runs, append one line to FILE every SECONDS (default 2):
#
#	<epoch seconds> <others> <steal> <aux>
#
# others: how many host CPUs processes other than PID kept busy over the
# interval (all busy time in /proc/stat less PID's own CPU time); steal:
# how many the host's own hypervisor took; aux: how many PID's threads
# other than its vCPUs ("CPU n/TCG", named under -name debug-threads=on)
# kept busy: QEMU's main loop, its 9p and RCU workers (left out where no
# thread is named so).  A guest computes
# slower when any is above 0 on a host with no CPU to spare (the vCPU
# threads wait while the guest's clock runs on), and CPU time inside
# the guest cannot see it: bench/run-mix reads FILE through the guest's
# results share and records each run's mean (host_others, host_steal,
# host_qemu_aux).
# Started by tests/vm/vmrun.sh; no output but FILE.
set -u
export LC_ALL=C  # $EPOCHREALTIME with a decimal point, as awk reads it
pid=${1:?usage: host-load.sh PID FILE [SECONDS]}
file=${2:?usage: host-load.sh PID FILE [SECONDS]}
every=${3:-2}
hz=$(getconf CLK_TCK)

# sample: busy and steal ticks of the whole host, PID's ticks, the time.
sample() {
	local cpu user nice sys idle iow irq sirq steal rest stat
	read -r cpu user nice sys idle iow irq sirq steal rest </proc/stat
	busy=$((user + nice + sys + irq + sirq))
	stolen=$steal
	# The command name (field 2) may hold spaces: cut after its ')'.
	read -r stat 2>/dev/null <"/proc/$pid/stat" || return 1
	stat=${stat##*) }
	set -- $stat
	# utime and stime are fields 14 and 15, here 12 and 13.
	own=$((${12} + ${13}))
	vcpus=0 named=0
	local f line name
	for f in /proc/"$pid"/task/*/stat; do
		read -r line 2>/dev/null <"$f" || continue
		name=${line#*(}
		name=${name%)*}
		[[ $name == "CPU "*/TCG || $name == "CPU "*/KVM ]] || continue
		set -- ${line##*) }
		vcpus=$((vcpus + ${12} + ${13}))
		named=1
	done
	now=$EPOCHREALTIME
}

sample || exit 0
while sleep "$every"; do
	b0=$busy s0=$stolen o0=$own v0=$vcpus t0=$now
	sample || exit 0
	# (A vCPU thread's ticks are PID's too: aux is PID's less its vCPUs'.)
	awk -v t0="$t0" -v t1="$now" -v hz="$hz" -v b="$((busy - b0 - (own - o0)))" \
		-v s="$((stolen - s0))" -v a="$((own - o0 - (vcpus - v0)))" -v named="$named" 'BEGIN {
		dt = (t1 - t0) * hz
		if (dt <= 0)
			exit
		if (b < 0)
			b = 0
		if (a < 0)
			a = 0
		# No thread named as a vCPU (an older QEMU, single-threaded
		# TCG): aux would be all of PID, so none is written.
		if (named)
			printf "%.3f %.3f %.3f %.3f\n", t1, b / dt, s / dt, a / dt
		else
			printf "%.3f %.3f %.3f\n", t1, b / dt, s / dt
	}' >>"$file"
done
