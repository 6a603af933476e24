#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The MPI baseline for the latency benchmarks: build/bench/mpi_pingpong.*
# (a plain MPI ping-pong, no cosched calls) under MPICH and Open MPI, two
# ranks pinned to CPU 0 and CPU 1, under each cosched policy asked for.
# The configurations take turns in ROUNDS rounds, in a new random order
# each round (printed on stderr), so that host noise and a configuration's
# place in the round hit them alike; each cell of the table is the median
# over the rounds.  After each load of the module the script waits
# $MPI_PINGPONG_SETTLE seconds (default 1).
# Traffic is forced over TCP on loopback, never shared memory
# (bench/mpi_launch.sh, shared with the zero-cost scripts of
# Documentation/results/mpi-glue): in the design the ranks stand for
# processes on different nodes, so every message must cross a
# kernel-visible transport.  The script checks that it did: lo's tx_bytes
# must grow by at least the bytes the timed ping-pongs moved.
#
# Run as root inside a guest, from the repository root:
#   make modules && make -C bench
#   tests/vm/vmrun.sh --kernel 6.12 --smp 2 --timeout 900 -- \
#       bench/mpi_pingpong.sh [-r rounds] [-p none,dcs,...] [-s 8,64,...,1M] [-n iters] [-m "mpich openmpi"]
#
#   -r  rounds (default 3)
#   -p  comma-separated policies, one set of runs each.  "none" runs
#       without the module (unloading it if loaded); any other name loads
#       build/$(uname -r)/cosched.ko if needed and writes the name to
#       /sys/kernel/cosched/policy.  P+glue: policy P with the MPI glue
#       preloaded into the ranks (build/mpi-glue; the run fails unless
#       every rank reported an endpoint and none fell back to plain MPI;
#       under local the glue then uses MPI's own waits, Documentation/
#       mpi.rst "Where the glue cannot help").  P+glue-hooks: the same
#       with the module's built-in arrival hooks off (builtin_hooks=N),
#       to tell their cost from the glue's own (under local the glue
#       registers no socket: the same as P+glue).  P+ucxfix: plain MPI
#       as cosched-run -N runs it, MPICH's ranks with the UCX finalize
#       fix preloaded alone (libcosched-ucx-finalize.so; Open MPI: the
#       same as P).  Default: none.
#   -s  message sizes (default 8,64,512,4K,32K,256K,1M)
#   -n  round trips per size up to 4K, fewer above, at least 20 (default
#       2000: msgbench's rule, the same counts as bench/latency.sh's runs)
#   -m  which MPIs (default "mpich openmpi"); one whose binary was not
#       built (no MPI installed) is skipped with a message
#
# Output: the program's lines (msgbench's format, policy= filled in) as
# they come; then a '#' table whose first line is the command that
# reproduces it.
set -eu
BIN=build/bench/mpi_pingpong
KO=build/$(uname -r)/cosched.ko
SYS=/sys/kernel/cosched
HOOKS=/sys/module/cosched/parameters/builtin_hooks
POLICIES=none
SIZES=8,64,512,4K,32K,256K,1M
ITERS=2000
MPIS="mpich openmpi"
ROUNDS=3
ARGS=

die() { echo "mpi_pingpong.sh: $*" >&2; exit 1; }
# shellcheck source=bench/mpi_launch.sh
. "$(dirname "$0")/mpi_launch.sh"

# Quote an argument for the reproduce line, only where a shell needs it.
q() {
	case $1 in
	'' | *[!A-Za-z0-9,._/=:+-]*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
	*) printf '%s' "$1" ;;
	esac
}
for a in "$@"; do ARGS="$ARGS $(q "$a")"; done

while getopts r:p:s:n:m: o; do
	case $o in
	r) ROUNDS=$OPTARG ;;
	p) POLICIES=$OPTARG ;;
	s) SIZES=$OPTARG ;;
	n) ITERS=$OPTARG ;;
	m) MPIS=$OPTARG ;;
	*) sed -n '/^# Run as root/,/^# Output/{/^# Output/d;s/^# \{0,1\}//p;}' "$0" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" = 0 ] || die "run as root (it loads the module and sets policies)"
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (vmrun.sh --smp 2)"
[ -r /sys/class/net/lo/statistics/tx_bytes ] || die "no loopback interface"
ip link set lo up 2>/dev/null || true

OUT=$(mktemp)
LOG=$(mktemp)
LOADED=0
cleanup() {
	rm -f "$OUT" "$LOG" "$LOG.err"
	# Leave the module as we found it.
	[ "$LOADED" = 1 ] && "$(dirname "$0")/../scripts/rmmod-cosched" -q
	return 0
}
trap cleanup EXIT

# set_policy P: make P the active policy; POL is what the table calls it.
# (Not run in a subshell: LOADED must survive for the cleanup.)
set_policy() {
	GLUE=
	UCXFIX=
	case $1 in
	*+ucxfix)
		# Plain MPI as cosched-run -N runs it: MPICH's ranks get the
		# UCX finalize fix alone (Open MPI's nothing).
		set_policy "${1%+ucxfix}"
		UCXFIX=$(cd "$(dirname "$0")/.." && pwd)/build/mpi-glue/libcosched-ucx-finalize.so
		[ -f "$UCXFIX" ] || die "$UCXFIX missing: run 'make mpi-glue' on the host"
		POL=$POL+ucxfix
		return 0 ;;
	*+glue-hooks)
		# Where the glue's cost is: the same, with the module's own
		# arrival hooks off (no per-segment work; sockets registered
		# where the policy is not local: under local the glue parks
		# them, and this is the same as P+glue).
		set_policy "${1%-hooks}"
		echo N >"$HOOKS" || die "cannot turn $HOOKS off"
		POL=$POL-hooks
		return 0 ;;
	*+glue)
		set_policy "${1%+glue}"
		GLUE=$(cd "$(dirname "$0")/.." && pwd)/build/mpi-glue
		[ -f "$GLUE/libcosched-mpi-mpich.so" ] || [ -f "$GLUE/libcosched-mpi-openmpi.so" ] ||
			die "$GLUE has no glue: run 'make mpi-glue' on the host"
		POL=$POL+glue
		return 0 ;;
	esac
	if [ "$1" = none ]; then
		# The baseline of the baseline: no module at all, so not even
		# its sched_switch probe.  Rounds alternate, so unload it.
		if [ -d "$SYS" ]; then
			"$(dirname "$0")/../scripts/rmmod-cosched" || die "policy none: cosched is loaded and will not unload"
			LOADED=0
		fi
		POL=none
		return 0
	fi
	if [ ! -d "$SYS" ]; then
		[ -f "$KO" ] || die "$KO missing: run 'make modules' on the host"
		insmod "$KO" || die "insmod $KO failed"
		LOADED=1
		# Let the guest settle after loading code (a lead from
		# zero-cost Run 7, not a finding): $MPI_PINGPONG_SETTLE s.
		sleep "${MPI_PINGPONG_SETTLE:-1}"
	fi
	echo Y >"$HOOKS" || die "cannot turn $HOOKS on"
	echo "$1" >"$SYS/policy" || die "policy '$1' refused by $SYS/policy"
	POL=$(sed 's/.*\[\(.*\)\].*/\1/' "$SYS/policy")
	[ "$POL" = "$1" ] || die "asked for policy $1, $SYS/policy says $POL"
}

lo_tx() { cat /sys/class/net/lo/statistics/tx_bytes; }

# run_mpi MPI: the program under MPI, on stdout, forced onto TCP over lo
# (bench/mpi_launch.sh says how and why).  With the glue (P+glue): the
# ranks alone get it, as cosched-run does it, and COSCHED_MPI_VERBOSE=1 so
# that the check below sees every rank report its endpoint; P+ucxfix:
# MPICH's ranks get the UCX finalize fix alone.
run_mpi() {
	pre=
	MPI_LAUNCH_ENV=
	if [ -n "$GLUE" ]; then
		pre=$(glue_preload "$1" "$GLUE")
		MPI_LAUNCH_ENV=COSCHED_MPI_VERBOSE=1
	fi
	[ -n "$UCXFIX" ] && [ "$1" = mpich ] && pre=$UCXFIX
	mpi_launch "$1" "$pre" "$BIN.$1" -s "$SIZES" -n "$ITERS"
}

r=0
while [ "$r" -lt "$ROUNDS" ]; do
	# A new order each round, so that no configuration always runs first
	# (zero-cost Run 7: a fixed order biased the small differences).
	command -v shuf >/dev/null || die "shuf (coreutils) missing"
	order=$(echo "$POLICIES" | tr , '\n' | shuf | tr '\n' ' ')
	# shellcheck disable=SC2086 # one word per MPI
	mpis=$(printf '%s\n' $MPIS | shuf | tr '\n' ' ')
	echo "# round $r order: $order/ $mpis" >&2
	for p in $order; do
		set_policy "$p"
		pol=$POL
		for m in $mpis; do
			if [ ! -x "$BIN.$m" ]; then
				[ "$r" = 0 ] && echo "# $m: $BIN.$m not built (no MPI installed? scripts/setup.sh, make -C bench): skipped"
				echo "skip $m $pol" >>"$OUT"
				continue
			fi
			before=$(lo_tx)
			run_mpi "$m" >"$LOG" 2>"$LOG.err" || die "$m under policy $pol failed (output: $(cat "$LOG" "$LOG.err"))"
			if [ -n "$GLUE" ]; then
				# Both ranks reported, neither fell back.
				[ "$(grep -c '^cosched-mpi: rank' "$LOG.err")" = 2 ] &&
					! grep -q 'plain MPI way' "$LOG.err" ||
					die "$m under $pol: the glue did not wait the cosched way in both ranks ($(cat "$LOG.err"))"
			fi
			after=$(lo_tx)
			grep '^bench=' "$LOG" | sed "s/ policy=- / policy=$pol /; s/^/round=$r /" | tee -a "$OUT"
			# The timed ping-pongs alone moved 2 * iters * size bytes
			# through the MPI; a shared-memory path would leave lo with only
			# the launcher's few kilobytes.
			need=$(grep '^bench=' "$LOG" | awk '{
				for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
				s += 2 * f["iters"] * f["size"] } END { printf "%.0f", s }')
			if [ "$((after - before))" -lt "$need" ]; then
				die "$m: lo carried $((after - before)) bytes, the ping-pongs alone $need: not over TCP"
			fi
			echo "meta $m $pol $((after - before)) $need $(sed -n 's/^# rank \([01]\) cpus /\1:/p' "$LOG" | tr '\n' ' ')" >>"$OUT"
		done
	done
	r=$((r + 1))
done

kver=${COSCHED_KVER:-$(uname -r)}
if [ "${COSCHED_VM:-0}" = 1 ]; then
	echo "# make modules && make -C bench && tests/vm/vmrun.sh --kernel $kver --smp $(nproc) --timeout 900 -- bench/mpi_pingpong.sh$ARGS"
else
	echo "# bench/mpi_pingpong.sh$ARGS   (as root on $kver, $(nproc) CPUs)"
fi
echo "# MPI ping-pong, 2 ranks, over TCP on lo, one-way latency (RTT/2) and streaming bandwidth (MB/s = 10^6 B/s), on $kver"
# Rows in the order asked for (-p, then -m), whatever order the rounds ran
# them in: row_order prefixes each line whose fields $2 (MPI) and $3
# (policy) are given with its place.
row_order() { # awk-program-field-of-mpi awk-field-of-policy
	awk -v pols="$POLICIES" -v mpis="$MPIS" -v fm="$1" -v fp="$2" 'BEGIN {
		np = split(pols, P, ","); for (i = 1; i <= np; i++) pi[P[i]] = i
		nm = split(mpis, M, " "); for (i = 1; i <= nm; i++) mi[M[i]] = i }
		{ printf "%d %d %d %s\n", ($fp in pi) ? pi[$fp] : 99, ($fm in mi) ? mi[$fm] : 99, NR, $0 }' |
		sort -n -k1,1 -k2,2 -k3,3 | cut -d' ' -f4-
}
# Per MPI and policy: where the ranks ran, and the smallest ratio over the
# rounds of what lo carried to what the timed ping-pongs needed.
row_order 2 3 <"$OUT" | awk '$1 == "meta" {
	k = $2 " " $3; if (!(k in lo) || $4 / $5 < lo[k]) lo[k] = $4 / $5
	cpus[k] = $6 " " $7; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
     $1 == "skip" && !(($2 " " $3) in skipped) { skipped[$2 " " $3] = 1; printf "# %-8s policy %-7s skipped: not built\n", $2, $3 }
     END { for (i = 1; i <= n; i++) { k = order[i]; split(k, a, " ")
	printf "# %-8s policy %-7s rank:cpus %s  lo bytes >= %.1f x the timed ping-pong bytes\n", a[1], a[2], cpus[k], lo[k] } }'

# The median over the rounds of key for one MPI, policy and size.
med() { # mpi policy size key
	awk -v b="bench=$1" -v p="policy=$2" -v s="size=$3" -v k="$4" '
		{ hit = 0; for (i = 2; i <= NF; i++) if ($i == b || $i == p || $i == s) hit++ }
		hit == 3 { for (i = 2; i <= NF; i++) { split($i, f, "="); if (f[1] == k && f[2] != "n/a") print f[2] } }' "$OUT" |
		sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "n/a" }'
}

echo "# medians over $ROUNDS rounds"
printf '# %-8s %-7s %8s %10s %10s %10s %9s %11s %6s\n' mpi policy size p50_ns p99_ns mean_ns MB/s cpu_ns/msg iters
awk '$1 ~ /^round=/ {
	for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	k = f["bench"] " " f["policy"] " " f["size"] " " f["iters"]; if (!(k in seen)) { seen[k] = 1; print k } }' "$OUT" |
	awk '{ print "x", $0 }' | row_order 2 3 | cut -d' ' -f2- |
while read -r m p s n; do
	printf '# %-8s %-7s %8s %10s %10s %10s %9s %11s %6s\n' "$m" "$p" "$s" \
		"$(med "$m" "$p" "$s" lat_ns_p50)" "$(med "$m" "$p" "$s" lat_ns_p99)" \
		"$(med "$m" "$p" "$s" lat_ns_mean)" "$(med "$m" "$p" "$s" mbps)" \
		"$(med "$m" "$p" "$s" cpu_ns_per_msg)" "$n"
done
