#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The MPI glue's effect: co-scheduled MPI jobs of a stencil-like program
# (build/mpi-glue/stencil: halo exchange every iteration, an allreduce
# every 10th), rank i of every job on CPU i, MPI over TCP on lo.  For 2
# and JOBS jobs at once, and for one job next to a compute-bound hog on
# each CPU, the completion time of the timed part (all jobs start it
# together) under
#   local     busy-polling MPI, no glue, module policy local
#   yield     Open MPI's --mca mpi_yield_when_idle 1, no glue
#   <policy>  the glue (cosched-run), module policy <policy>
# and the slowdown: the last job's time against the ideal, the sum of
# the jobs' standalone times (perfect gang scheduling), or with hogs the
# fair share (twice the standalone time: each CPU shared with one hog).
# Runs as root in a 2-CPU guest, from anywhere:
#   make modules mpi-glue && flock /tmp/cosched-guest.lock \
#     tests/vm/vmrun.sh --kernel 6.12 --smp 2 --timeout 1800 -- mpi-glue/effect.sh
#   effect.sh [-m mpi] [-j jobs] [-i iters] [-c cells] [-p "policies"] [-t limit_s]
# Defaults: openmpi, 4, 200, 50000, "sb dcs dcs-sb pb sy", 90.
# A configuration that does not finish within the limit shows ">limit".
set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)
RUN=$ROOT/mpi-glue/cosched-run
SYS=${COSCHED_SYSFS:-/sys/kernel/cosched}
KO=${COSCHED_KO:-$ROOT/build/$(uname -r)/cosched.ko}
MPI=openmpi
JOBS=4
ITERS=200
CELLS=50000
POLICIES="sb dcs dcs-sb pb sy"
LIMIT=90
ARGS=
for a in "$@"; do ARGS="$ARGS '$a'"; done
while getopts m:j:i:c:p:t: o; do
	case $o in
	m) MPI=$OPTARG ;;
	j) JOBS=$OPTARG ;;
	i) ITERS=$OPTARG ;;
	c) CELLS=$OPTARG ;;
	p) POLICIES=$OPTARG ;;
	t) LIMIT=$OPTARG ;;
	*) sed -n '18,21s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
BIN=$ROOT/build/mpi-glue/stencil.$MPI
[ "$(id -u)" = 0 ] || { echo "effect.sh: run as root in a guest" >&2; exit 2; }
[ -x "$BIN" ] || { echo "effect.sh: $BIN missing: make mpi-glue" >&2; exit 2; }
ip link set lo up 2>/dev/null
if [ ! -d "$SYS" ]; then
	insmod "$KO" || exit 2
	sleep 0.2
fi
W=$(mktemp -d)
HOGS=
cleanup() {
	for h in $HOGS; do kill "$h" 2>/dev/null; done
	rm -rf "$W"
}
trap cleanup EXIT

# run_jobs N CONFIG: N jobs at once; prints each job's time_ms, or
# ">limit" for one that did not finish.
run_jobs() {
	n=$1
	cfg=$2
	rm -rf "$W/go"
	mkdir -p "$W/go"
	case $cfg in
	local) pol=local opt="-N" yw=0 ;;
	yield) pol=local opt="-N" yw=1 ;;
	*) pol=$cfg opt= yw=0 ;;
	esac
	echo "$pol" >"$SYS/policy" || { echo "effect.sh: policy $pol refused" >&2; exit 1; }
	k=1
	pids=
	while [ "$k" -le "$n" ]; do
		# shellcheck disable=SC2086
		OMPI_MCA_mpi_yield_when_idle=$yw timeout -k 5 "$LIMIT" "$RUN" -m "$MPI" -n 2 -j $((1000 + k)) $opt \
			"$BIN" -i "$ITERS" -c "$CELLS" -g "$W/go" >"$W/out.$k" 2>"$W/err.$k" &
		pids="$pids $!"
		k=$((k + 1))
	done
	# Start the timed parts together, once every job is up.
	t=0
	while [ "$(ls "$W/go" | grep -c '^ready')" -lt "$n" ] && [ $t -lt $((LIMIT * 10)) ]; do
		sleep 0.1
		t=$((t + 1))
	done
	touch "$W/go/go"
	for p in $pids; do wait "$p"; done
	k=1
	while [ "$k" -le "$n" ]; do
		v=$(sed -n 's/.*time_ms \([0-9.]*\).*/\1/p' "$W/out.$k")
		printf '%s ' "${v:->${LIMIT}000}"
		k=$((k + 1))
	done
	echo
}

max() { tr ' ' '\n' | grep . | sed 's/^>//' | sort -g | tail -1; }
anyover() { case $1 in *'>'*) echo '>' ;; esac; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

kver=$(uname -r)
echo "# make modules mpi-glue && flock /tmp/cosched-guest.lock tests/vm/vmrun.sh --kernel $kver --smp $(nproc) --timeout 1800 -- mpi-glue/effect.sh$ARGS"
alone=$(run_jobs 1 local | max)
echo "# $MPI over TCP (lo), stencil: 2 ranks per job (rank i on CPU i of $(nproc)), $ITERS iterations of $CELLS cells per rank"
echo "# one job alone (policy local, no glue): $alone ms; spin_us $(cat $SYS/spin_us 2>/dev/null || echo ?)"
printf '# %-10s %-6s %-40s %11s %9s %9s\n' config jobs "each job, ms" last_ms ideal_ms slowdown
CONFIGS="local"
[ "$MPI" = openmpi ] && CONFIGS="$CONFIGS yield"
CONFIGS="$CONFIGS $POLICIES"
for n in 2 "$JOBS"; do
	ideal=$(awk -v a="$alone" -v n="$n" 'BEGIN { printf "%.1f", a * n }')
	for c in $CONFIGS; do
		times=$(run_jobs "$n" "$c")
		last=$(echo "$times" | max)
		printf '# %-10s %-6s %-40s %11s %9s %8s%s\n' "$c" "$n" "$(echo $times | tr ' ' ,)" \
			"$(anyover "$times")$last" "$ideal" "$(anyover "$times")" "$(ratio "$last" "$ideal")"
	done
	[ "$JOBS" = 2 ] && break
done
# One job, each CPU shared with a compute-bound hog: fair share = 2x alone.
for cpu in 0 1; do
	taskset -c "$cpu" sh -c 'while :; do :; done' &
	HOGS="$HOGS $!"
done
ideal=$(awk -v a="$alone" 'BEGIN { printf "%.1f", a * 2 }')
for c in $CONFIGS; do
	times=$(run_jobs 1 "$c")
	last=$(echo "$times" | max)
	printf '# %-10s %-6s %-40s %11s %9s %8s%s\n' "$c" "1+hogs" "$(echo $times | tr ' ' ,)" \
		"$(anyover "$times")$last" "$ideal" "$(anyover "$times")" "$(ratio "$last" "$ideal")"
done
echo local >"$SYS/policy"
