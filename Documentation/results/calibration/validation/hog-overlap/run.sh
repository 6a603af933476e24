#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# How a busy-polling 2-rank job and a hog on each CPU share the CPUs:
# the validation's "1 job beside hogs" at the 1 ms grain (Open MPI,
# grain -c 1000), with every context switch recorded (perf, sched_switch)
# for W seconds in the middle of the run.  overlap.py then gives each
# task's on-CPU stints and how much of the time both ranks ran at once.
# As root, natively or in a guest (times in the guest's own, divided by
# $COSCHED_DILATION where set):
#   Documentation/results/calibration/validation/hog-overlap/run.sh [OUT [T [W]]]
# OUT: directory for the raw files (default /tmp/hog-overlap); T: the
# job's standalone seconds and W the seconds recorded, both
# native-equivalent (default 6 and 2).  Needs perf (Debian: linux-perf).
# SESSIONS=own: each hog and the job in a session of its own, as
# bench/run-mix starts them (autogroup then groups them apart); default:
# all in this shell's session.
cd "$(dirname "$0")/../../../../.." || exit 2
HERE=Documentation/results/calibration/validation/hog-overlap
OUT=${1:-/tmp/hog-overlap}
T=${2:-6}
W=${3:-2}
D=${COSCHED_DILATION:-1}
mkdir -p "$OUT"
ip link set lo up 2>/dev/null
grain=build/bench/workloads/openmpi/grain
# grain's -t is in the machine's own seconds.
own=	# setsid for the beside-hogs part with SESSIONS=own
run() {
	$own mpi-glue/cosched-run -N -m openmpi -n 2 "$grain" -c 1000 \
		-t "$(echo "$T $D" | awk '{ print $1 * $2 }')" "$@"
}
field() { sed -n "s/^workload=.* $1=\([^ ]*\).*/\1/p" "$2"; }
echo "# $(uname -r), dilation $D, T=$T s, W=$W s"
run >"$OUT/alone.out" 2>&1 || { cat "$OUT/alone.out"; exit 1; }
alone=$(field time_s "$OUT/alone.out")
echo "alone: $alone s"
# setsid execs in place (a background job leads no process group): $! is
# still the hog's or the job's pid.
[ "${SESSIONS:-}" = own ] && own=setsid
echo "# sessions: ${SESSIONS:-shared}; autogroup $(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)"
$own taskset -c 0 build/bench/workloads/hog >"$OUT/hog0.out" &
h0=$!
$own taskset -c 1 build/bench/workloads/hog >"$OUT/hog1.out" &
h1=$!
run -u "$(field units "$OUT/alone.out")" >"$OUT/job.out" 2>&1 &
job=$!
# Record the middle of the run: after start-up (MPI_Init, calibration).
sleep "$(echo "$T $D" | awk '{ print $1 * $2 / 2 }')"
perf record -q -e sched:sched_switch -a -o "$OUT/perf.data" -- \
	sleep "$(echo "$W $D" | awk '{ print $1 * $2 }')" 2>"$OUT/perf.err"
wait $job
kill $h0 $h1
wait $h0 $h1 2>/dev/null
echo "hogs: $(cat "$OUT/hog0.out" "$OUT/hog1.out" | sed -n 's/.*share=\([^ ]*\).*/\1/p' | paste -sd' ') of their CPUs"
beside=$(field time_s "$OUT/job.out")
echo "beside hogs: $beside s, $(echo "$beside $alone" | awk '{ printf "%.2f", $1 / $2 / 2 }') x the fair share"
perf script -i "$OUT/perf.data" -F cpu,time,trace >"$OUT/switches.txt" 2>/dev/null
python3 "$HERE/overlap.py" "$OUT/switches.txt" "$D"
