#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What the MPI glue costs where it cannot help: each workload alone,
# 2 ranks (CPU 0 and CPU 1), plain MPI (cosched-run -N) against the glue
# preloaded (cosched-run), both under the policy local.  Each workload
# is sized once, plain, to about -t seconds; then the two take turns in
# ROUNDS rounds at that iteration count, so that host noise hits both
# alike.  The table gives, per workload and MPI, the median time_s of
# the timed part over the rounds with the spread (min-max), and the
# ratio of the medians glue/plain (Documentation/mpi.rst, "Where the
# glue cannot help": its target is within 3%).  -k: the module's
# built-in arrival hooks off (builtin_hooks=N) throughout, to tell their
# per-segment cost from the glue's own.
#
# Runs as root inside a guest, from the repository root:
#   make modules && make -C bench/workloads && make mpi-glue
#   tests/vm/vmrun.sh --kernel 6.12 --smp 2 --timeout 3600 -- \
#       bench/glue_cost.sh [-r rounds] [-t seconds] [-m "openmpi mpich"] [-w "life-hi life-lo mg lu ep"] [-k]
set -eu
ROUNDS=5
T=3
MPIS="openmpi mpich"
WLS="life-hi life-lo mg lu ep"
HOOKS=Y
ARGS="$*"
while getopts r:t:m:w:k o; do
	case $o in
	k) HOOKS=N ;;
	r) ROUNDS=$OPTARG ;;
	t) T=$OPTARG ;;
	m) MPIS=$OPTARG ;;
	w) WLS=$OPTARG ;;
	*) echo "usage: bench/glue_cost.sh [-r rounds] [-t seconds] [-m MPIS] [-w WORKLOADS] [-k]" >&2
	   exit 2 ;;
	esac
done
B=build/bench/workloads
RUN=mpi-glue/cosched-run
KO=build/$(uname -r)/cosched.ko
SYS=/sys/kernel/cosched
OUT=$(mktemp)
LOG=$(mktemp)

[ -d /sys/module/cosched ] || insmod "$KO"
echo local >"$SYS/policy"
echo $HOOKS >/sys/module/cosched/parameters/builtin_hooks

# workload name -> program and arguments
prog() {
	case $1 in
	life-hi) echo "life -v hi" ;;
	life-lo) echo "life -v lo" ;;
	*) echo "$1" ;;
	esac
}

# One run of workload w under MPI m, plain or with the glue: its result line.
run() { # how mpi workload size-args...
	how=$1 m=$2 w=$3
	shift 3
	glue=
	[ "$how" = plain ] && glue=-N
	# shellcheck disable=SC2046
	if ! $RUN -m "$m" -n 2 -c 0,1 $glue -v $B/$m/$(prog "$w" | cut -d' ' -f1) \
		$(prog "$w" | cut -s -d' ' -f2-) "$@" -q >"$LOG" 2>"$LOG.err"; then
		echo "glue_cost.sh: $w under $m ($how) failed:" >&2
		cat "$LOG" "$LOG.err" >&2
		exit 1
	fi
	# With the glue, every rank must have had its endpoint (no fallback).
	if [ "$how" = glue ] && { [ "$(grep -c '^cosched-mpi: rank' "$LOG.err")" != 2 ] ||
		grep -q 'plain MPI way' "$LOG.err"; }; then
		echo "glue_cost.sh: $w under $m: the glue was not active in both ranks:" >&2
		cat "$LOG.err" >&2
		exit 1
	fi
	grep '^workload=' "$LOG"
}

field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

echo "# reproduce: tests/vm/vmrun.sh --kernel $(uname -r) --smp $(nproc) --timeout 3600 -- bench/glue_cost.sh $ARGS"
for m in $MPIS; do
	for w in $WLS; do
		line=$(run plain "$m" "$w" -t "$T")
		iters=$(field "$line" iters)
		echo "# $m $w: $iters iterations for about $T s"
		r=0
		while [ $r -lt "$ROUNDS" ]; do
			for how in plain glue; do
				line=$(run $how "$m" "$w" -n "$iters")
				echo "$m $w $how $(field "$line" time_s)" | tee -a "$OUT"
			done
			r=$((r + 1))
		done
	done
done

stats() { # mpi workload how -> "median min max"
	awk -v m="$1" -v w="$2" -v h="$3" '$1 == m && $2 == w && $3 == h { print $4 }' "$OUT" |
		sort -g | awk '{ v[NR] = $1 } END { printf "%s %s %s", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
echo local >"$SYS/policy"
echo Y >/sys/module/cosched/parameters/builtin_hooks
echo "# time_s of the timed part, median (min-max) over $ROUNDS rounds; policy local; module's built-in hooks $HOOKS"
printf '# %-8s %-8s %-22s %-22s %s\n' mpi workload plain glue glue/plain
for m in $MPIS; do
	for w in $WLS; do
		set -- $(stats "$m" "$w" plain) $(stats "$m" "$w" glue)
		printf '# %-8s %-8s %-22s %-22s %s\n' "$m" "$w" "$1 ($2-$3)" "$4 ($5-$6)" \
			"$(awk -v a="$1" -v b="$4" 'BEGIN { printf "%.3f", b / a }')"
	done
done
rm -f "$OUT" "$LOG" "$LOG.err"
