#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# smoke.sh: the cluster harness's smoke test, run as CMD on node 0 of
# tests/vm/cluster.sh (make cluster-smoke):
#   1. every node of $COSCHED_HOSTS answers through cosched-rexec, under
#      its own name, with the cosched module loaded;
#   2. an Open MPI job with one rank per node (TCP BTL on eth0, the
#      cluster network) runs mpi-glue's test suite plainly, then under
#      cosched-run with policy dcs on every node: same checked output,
#      every rank registered sockets and saw module arrivals;
#   3. each node's module counted arrivals during the job, and its NIC
#      carried the traffic (the counters are printed).
# Output is TAP; the last line is "N passed, N failed"; exit 1 on a failure.
cd "$(dirname "$0")/../../.." || exit 2
. mpi-glue/test/tap.sh
R=${COSCHED_REXEC:?run me through tests/vm/cluster.sh}
SYS=/sys/kernel/cosched
SUITE=build/mpi-glue/test/suite.openmpi
LIMIT=${SMOKE_LIMIT:-300}
IFS=, read -ra HOSTS <<<"${COSCHED_HOSTS:?}"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
on() { "$R" -n "$@"; }
# The glue's per-rank counter lines: "cosched-mpi: rank R ... NAME VALUE ...".
field_of_rank() { # file rank field
	awk -v r="$2" -v f="$3" '$1 == "cosched-mpi:" && $2 == "rank" && $3 == r {
		for (i = 4; i < NF; i++) if ($i == f) print $(i + 1) }' "$1"
}

((${#HOSTS[@]} >= 2))
check $? "at least two nodes: ${HOSTS[*]}" || { tap_summary; exit 1; }
for h in "${HOSTS[@]}"; do
	out=$(on "$h" "hostname; if [ -d $SYS ]; then grep -o '\[[a-z-]*\]' $SYS/policy;
		modinfo -n cosched 2>/dev/null || echo '(insmod)'; else echo none none; fi")
	read -r name pol src <<<"$(printf '%s' "$out" | tr '\n' ' ')"
	[ "$name" = "$h" ] && [ "$pol" != none ] && [ -n "$pol" ]
	check $? "$h answers as ${name:-?}, module loaded (policy ${pol:-?}; ${src:-?})"
done

for h in "${HOSTS[@]}"; do
	[ "$(on "$h" "echo dcs >$SYS/policy && grep -o '\[[a-z-]*\]' $SYS/policy")" = "[dcs]" ]
	check $? "$h: policy dcs"
done
counters() { # host -> "arrivals rx_bytes tx_bytes", x for a missing one
	on "$1" "for f in $SYS/stats/arrivals /sys/class/net/eth0/statistics/rx_bytes \
		/sys/class/net/eth0/statistics/tx_bytes; do cat \$f 2>/dev/null || echo x; done" |
		tr '\n' ' '
}
declare -A before
for h in "${HOSTS[@]}"; do before[$h]=$(counters "$h"); done

N=${#HOSTS[@]}
all=$COSCHED_HOSTS
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
where=$(timeout "$LIMIT" mpiexec.openmpi -n "$N" --host "$all" hostname 2>&1 | sort | tr '\n' ' ')
[ "$where" = "$(printf '%s\n' "${HOSTS[@]}" | sort | tr '\n' ' ')" ]
check $? "mpiexec -n $N --host $all puts one rank on each: $where"

run=$(command -v cosched-run || echo mpi-glue/cosched-run)
X=(-m openmpi -n "$N" -x "--host $all" -x "--mca btl_tcp_if_include eth0"
	-x "--mca oob_tcp_if_include eth0")
timeout "$LIMIT" "$run" -N "${X[@]}" "$SUITE" >"$W/ref.out" 2>"$W/ref.err"
check $? "plain suite across the nodes ($(tail -n1 "$W/ref.out"))" ||
	tail -n 5 "$W/ref.err" | sed 's/^/# /'
timeout "$LIMIT" "$run" -v "${X[@]}" "$SUITE" >"$W/glue.out" 2>"$W/glue.err"
check $? "suite under $run, dcs on every node ($(tail -n1 "$W/glue.out"))" ||
	grep -v '^cosched-mpi: rank' "$W/glue.err" | tail -n 5 | sed 's/^/# /'
! grep -q FAIL "$W/glue.out" "$W/ref.out" && cmp -s "$W/ref.out" "$W/glue.out" && [ -s "$W/ref.out" ]
check $? "the suite's checked output is the same with the glue" ||
	diff "$W/ref.out" "$W/glue.out" | head -n 10 | sed 's/^/# /'
! grep -q 'waits the plain MPI way' "$W/glue.err"
check $? "no rank fell back to plain MPI waiting"
for ((r = 0; r < N; r++)); do
	s=$(field_of_rank "$W/glue.err" "$r" sockets)
	a=$(field_of_rank "$W/glue.err" "$r" module_arrivals)
	[ "${s:-0}" -gt 0 ] && [ "${a:-0}" -gt 0 ]
	check $? "rank $r (${HOSTS[$r]}): ${s:-no} sockets registered, ${a:-no} arrivals from its node's module"
done

for h in "${HOSTS[@]}"; do
	read -r a0 rx0 tx0 <<<"${before[$h]}"
	read -r a1 rx1 tx1 <<<"$(counters "$h")"
	if [[ "$a0 $rx0 $tx0 $a1 $rx1 $tx1" =~ ^[0-9]+( [0-9]+){5}$ ]]; then
		echo "# $h: module arrivals $a0 -> $a1 (+$((a1 - a0))); eth0 rx +$((rx1 - rx0)) B, tx +$((tx1 - tx0)) B"
		((a1 > a0 && rx1 - rx0 > 10000 && tx1 - tx0 > 10000))
		check $? "$h: its module counted $((a1 - a0)) arrivals, its NIC carried the job"
	else
		nok "$h: counters missing (arrivals rx tx before: $a0 $rx0 $tx0, after: $a1 $rx1 $tx1)"
	fi
done
tap_summary
# shellcheck disable=SC2154 # fail: tap.sh's
((fail == 0))
