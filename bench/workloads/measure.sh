#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Standalone run time and communication share of each workload, at each
# rank count, under each MPI, over TCP on loopback (never shared memory):
# the table of Documentation/results/workloads/, and the calibration aid for a
# new machine (-x "-s SIZE" tries another grain).
#
# usage: bench/workloads/measure.sh [-t seconds] [-r "2 4"] [-m "mpich openmpi"]
#            [-w "life-lo life-hi mg lu ep"] [-x "extra args"] [-R rounds] [-q]
#   -t  target standalone seconds per run (default 10)
#   -r  rank counts (default "2 4")
#   -m  MPIs (default "mpich openmpi")
#   -w  workloads; life-lo and life-hi are life -v lo / -v hi
#   -x  extra arguments for every run (e.g. "-s 800")
#   -R  rounds; the table gives the median of each cell (default 1)
#   -q  do not wait for a quiet host before each run
#
# A 2-core machine runs 4 ranks two to a core: their numbers include the
# time a rank waits for a peer that is not on a CPU.  Before each run the
# script waits (up to 2 minutes) until the host is at least 90% idle, and
# marks a run that started on a busy host with '*'.  The whole sweep holds
# the lock QEMU guests take (/tmp/cosched-guest.lock), so no guest of this
# repository runs at the same time.
set -uo pipefail

LOCK=/tmp/cosched-guest.lock
if [ "${COSCHED_MEASURE_LOCKED:-0}" != 1 ]; then
	echo "# waiting for $LOCK" >&2
	COSCHED_MEASURE_LOCKED=1 exec flock "$LOCK" "$0" "$@"
fi

root=$(cd "$(dirname "$0")/../.." && pwd)
B=$root/build/bench/workloads
T=10 RANKS="2 4" MPIS="mpich openmpi" WLS="life-lo life-hi mg lu ep"
X="" ROUNDS=1 WAIT=1
ARGS="$*"
while getopts t:r:m:w:x:R:q o; do
	case $o in
	t) T=$OPTARG ;;
	r) RANKS=$OPTARG ;;
	m) MPIS=$OPTARG ;;
	w) WLS=$OPTARG ;;
	x) X=$OPTARG ;;
	R) ROUNDS=$OPTARG ;;
	q) WAIT=0 ;;
	*) sed -n '8,15s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done

# Idle fraction of all CPUs over one second, in percent.
idle() {
	local a b
	a=($(sed -n 's/^cpu  //p' /proc/stat))
	sleep 1
	b=($(sed -n 's/^cpu  //p' /proc/stat))
	awk -v a="${a[*]}" -v b="${b[*]}" 'BEGIN { n = split(a, x, " "); split(b, y, " ")
		for (i = 1; i <= n; i++) { d = y[i] - x[i]; t += d; if (i == 4 || i == 5) id += d }
		printf "%d", t ? 100 * id / t : 100 }'
}

quiet() {
	local i
	[ "$WAIT" = 1 ] || return 0
	for i in $(seq 120); do
		[ "$(idle)" -ge 90 ] && return 0
	done
	return 1
}

run() { # mpi ranks program args...
	local mpi=$1 n=$2
	shift 2
	case $mpi in
	mpich)
		env MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp UCX_NET_DEVICES=lo \
			mpiexec.mpich -n "$n" "$B/mpich/$@" ;;
	openmpi)
		env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
			mpiexec.openmpi -n "$n" --oversubscribe --mca pml ob1 \
			--mca btl tcp,self --mca btl_tcp_if_include lo \
			--mca oob_tcp_if_include lo "$B/openmpi/$@" ;;
	esac
}

kv() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n1; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
for r in $(seq "$ROUNDS"); do
	for mpi in $MPIS; do
		[ -x "$B/$mpi/life" ] || { echo "# $mpi not built: skipped" >&2; continue; }
		for n in $RANKS; do
			for w in $WLS; do
				case $w in
				life-*) prog="life -v ${w#life-}" ;;
				*) prog=$w ;;
				esac
				mark=" "
				quiet || mark="*"
				# MPICH 4.0.2 over UCX's tcp transport sometimes hangs in
				# MPI_Finalize at 4 ranks after all ranks have finished
				# (a bare Init/Barrier/Finalize does too): the result line
				# is out by then, so a timeout is not a failure here.
				line=$(timeout $((3 * ${T%.*} + 60)) \
					bash -c "$(declare -f run); B=$B; run $mpi $n $prog -t $T -q $X" 2>/dev/null |
					grep '^workload=' | tail -n1)
				if [ -z "$line" ]; then
					echo "# $mpi $n ranks $w: no result line" >&2
					continue
				fi
				echo "$line" >&2
				echo "$w $mpi $n $(kv "$line" iters) $(kv "$line" time_s) $(kv "$line" comm_pct) $(kv "$line" comm_pct_min) $(kv "$line" comm_pct_max) $mark" >>"$out"
			done
		done
	done
done

echo "# bench/workloads/measure.sh $ARGS"
echo "# $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%d), MPI over TCP on lo; median of $ROUNDS round(s); * = host was busy"
printf '%-8s %-8s %5s %8s %8s %7s %7s %7s\n' workload mpi ranks iters time_s comm% min% max%
awk '{ k = $1 " " $2 " " $3; if (!(k in n)) order[++m] = k; n[k]++
	it[k, n[k]] = $4; t[k, n[k]] = $5; c[k, n[k]] = $6; lo[k, n[k]] = $7; hi[k, n[k]] = $8
	if ($9 == "*") busy[k] = "*" }
     function med(a, k, cnt,   i, j, v, x) { for (i = 1; i <= cnt; i++) v[i] = a[k, i]
	for (i = 1; i <= cnt; i++) for (j = i + 1; j <= cnt; j++) if (v[j] < v[i]) { x = v[i]; v[i] = v[j]; v[j] = x }
	return v[int((cnt + 1) / 2)] }
     END { for (i = 1; i <= m; i++) { k = order[i]; split(k, f, " ")
	printf "%-8s %-8s %5s %8s %8.2f %7.2f %7.2f %7.2f%s\n", f[1], f[2], f[3], med(it, k, n[k]),
		med(t, k, n[k]), med(c, k, n[k]), med(lo, k, n[k]), med(hi, k, n[k]), busy[k] } }' "$out"
