#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# slurm-smoke.sh: Slurm and srun --cosched in the cluster, run as CMD on
# node 0 of tests/vm/cluster.sh --slurm (make cluster-slurm-smoke):
#   1. every node idle in sinfo; srun -N N -n N hostname runs on each;
#   2. srun --cosched=yield: each task's LD_PRELOAD is the user's, then
#      the glue; COSCHED_RECV_MODE=yield; COSCHED_JOB = job << 32 | step;
#   3. mpi-glue's checking suite (Open MPI, srun --mpi=pmix, one rank per
#      node, policy dcs set on every node by the "admin"): with --cosched
#      every rank registers sockets and sees module arrivals, and each
#      node's module counts arrivals; with --cosched=off the same output
#      and no glue; --cosched=bogus makes srun fail;
#   4. the same suite built with MPICH, srun --mpi=pmi2: --cosched=off
#      preloads only libcosched-ucx-finalize.so, --cosched the user's,
#      that fix, then the MPICH glue (COSCHED_UCX_FINALIZE=0: no fix);
#      same output, glue active in every rank;
#   5. without the plugin in plugstack.conf, the glue check above fails;
#   6. two jobs on the same nodes run at once (no gang scheduling);
#   7. bench/net_wake.sh, one short round: node 1's module boosts a
#      receiver beside a hog on messages from node 0 under dcs, for plain
#      TCP and libcosched's io_uring transport, and never under local
#      (counts of boosts, no timing asserted).
# Output is TAP; the last line is "N passed, N failed"; exit 1 on a failure.
cd "$(dirname "$0")/../../.." || exit 2
. mpi-glue/test/tap.sh
R=${COSCHED_REXEC:?run me through tests/vm/cluster.sh --slurm}
SYS=/sys/kernel/cosched
SUITE=build/mpi-glue/test/suite.openmpi
SUITE_MPICH=build/mpi-glue/test/suite.mpich
LIMIT=${SMOKE_LIMIT:-300}
MLIMIT=${SMOKE_MPICH_LIMIT:-150}
IFS=, read -ra HOSTS <<<"${COSCHED_HOSTS:?}"
N=${#HOSTS[@]}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
on() { "$R" -n "$@"; }
sorted() { printf '%s\n' "$@" | sort | tr '\n' ' '; }
# The glue's per-rank counter lines: "cosched-mpi: rank R ... NAME VALUE ...".
field_of_rank() { # file rank field
	awk -v r="$2" -v f="$3" '$1 == "cosched-mpi:" && $2 == "rank" && $3 == r {
		for (i = 4; i < NF; i++) if ($i == f) print $(i + 1) }' "$1"
}
# Was the glue active in every rank of a run whose stderr is $1?
glue_active() {
	local r s a
	grep -q 'waits the plain MPI way' "$1" && return 1
	for ((r = 0; r < N; r++)); do
		s=$(field_of_rank "$1" "$r" sockets)
		a=$(field_of_rank "$1" "$r" module_arrivals)
		[ "${s:-0}" -gt 0 ] && [ "${a:-0}" -gt 0 ] || return 1
		echo "# rank $r: $s sockets registered, $a arrivals from its node's module"
	done
}
counters() { # host -> "arrivals rx_bytes tx_bytes"
	on "$1" "cat $SYS/stats/arrivals /sys/class/net/eth0/statistics/rx_bytes \
		/sys/class/net/eth0/statistics/tx_bytes 2>/dev/null" | tr '\n' ' '
}
suite() { # out err srun-options...
	local out=$1 err=$2
	shift 2
	COSCHED_MPI_VERBOSE=1 timeout "$LIMIT" srun -N "$N" -n "$N" --mpi=pmix "$@" \
		"$SUITE" >"$out" 2>"$err"
}

# same_output REF GLUE PREFIX: no FAIL line, and the glue's checked
# output is the plain run's, byte for byte.
same_output() {
	! grep -q FAIL "$2" "$1" && cmp -s "$1" "$2" && [ -s "$1" ]
	check $? "${3}the suite's checked output is the same with the glue" ||
		diff "$1" "$2" | head -n 10 | sed 's/^/# /'
}

idle=$(sinfo -h -N -o '%N %t' | awk '$2 == "idle" { print $1 }' | sort -u | tr '\n' ' ')
[ "$idle" = "$(sorted "${HOSTS[@]}")" ]
check $? "sinfo: every node idle ($idle)" || sinfo -N -l | sed 's/^/# /'
where=$(timeout "$LIMIT" srun -N "$N" -n "$N" hostname 2>&1 | sort | tr '\n' ' ')
[ "$where" = "$(sorted "${HOSTS[@]}")" ]
check $? "srun -N $N -n $N hostname: $where"
echo "# srun --mpi=list: $(srun --mpi=list 2>&1 | tr -s ' \n' ' ')"

# 2. The task's environment.
user=/lib/x86_64-linux-gnu/libm.so.6
env=$(LD_PRELOAD=$user timeout "$LIMIT" srun -N "$N" -n "$N" --cosched=yield sh -c \
	'echo "$SLURMD_NODENAME $LD_PRELOAD $COSCHED_RECV_MODE $COSCHED_JOB $((SLURM_JOB_ID << 32 | SLURM_STEP_ID))"' 2>&1)
echo "$env" | sed 's/^/# /'
bad=$(echo "$env" | awk -v u="$user" '$2 !~ "^" u ":/.*/libcosched-mpi-openmpi\\.so$" ||
	$3 != "yield" || $4 != $5 || $4 == "" { print }')
[ -z "$bad" ] && [ "$(echo "$env" | wc -l)" = "$N" ]
check $? "--cosched=yield: LD_PRELOAD user's:glue, COSCHED_RECV_MODE=yield, COSCHED_JOB=job<<32|step on $N tasks"

# 3. The suite, plain and under the glue, policy dcs everywhere.
for h in "${HOSTS[@]}"; do
	[ "$(on "$h" "echo dcs >$SYS/policy && grep -o '\[[a-z-]*\]' $SYS/policy")" = "[dcs]" ]
	check $? "$h: policy dcs (set by the admin, not the plugin)"
done
suite "$W/ref.out" "$W/ref.err" --cosched=off
check $? "srun --cosched=off: plain suite ($(tail -n1 "$W/ref.out"))" ||
	tail -n 5 "$W/ref.err" | sed 's/^/# /'
! grep -q '^cosched-mpi:' "$W/ref.err"
check $? "--cosched=off: no glue in the ranks"

declare -A before
for h in "${HOSTS[@]}"; do before[$h]=$(counters "$h"); done
suite "$W/glue.out" "$W/glue.err" --cosched
check $? "srun --cosched: suite under the glue ($(tail -n1 "$W/glue.out"))" ||
	grep -v '^cosched-mpi: rank' "$W/glue.err" | tail -n 5 | sed 's/^/# /'
same_output "$W/ref.out" "$W/glue.out" ""
glue_active "$W/glue.err"
check $? "--cosched: the glue active in all $N ranks (sockets and module arrivals)" ||
	tail -n 5 "$W/glue.err" | sed 's/^/# /'
for h in "${HOSTS[@]}"; do
	read -r a0 rx0 tx0 <<<"${before[$h]}"
	read -r a1 rx1 tx1 <<<"$(counters "$h")"
	[[ "$a0 $rx0 $tx0 $a1 $rx1 $tx1" =~ ^[0-9]+( [0-9]+){5}$ ]] && ((a1 > a0))
	check $? "$h: its module counted $((${a1:-0} - ${a0:-0})) arrivals (eth0 rx +$((${rx1:-0} - ${rx0:-0})) B, tx +$((${tx1:-0} - ${tx0:-0})) B)"
done

timeout "$LIMIT" srun -N "$N" -n "$N" --cosched=bogus hostname >"$W/bogus.out" 2>&1
st=$?
sed 's/^/# /' "$W/bogus.out"
[ "$st" != 0 ] && grep -q 'cosched=bogus' "$W/bogus.out" && ! grep -qx 'node[0-9]*' "$W/bogus.out"
check $? "srun --cosched=bogus fails (status $st) with a message, runs nothing"

# 4. MPICH (4.0.2, its simple PMI-1 client) under Slurm's pmi2 plugin,
# UCX on TCP over eth0; each rank prints its LD_PRELOAD, then execs the
# suite with it.  The user's preload is $user, as in 2.
fix_re='/[^:]*/libcosched-ucx-finalize\.so' mglue_re='/[^:]*/libcosched-mpi-mpich\.so'
mpich() { # name srun-options... (the job's environment: the caller's)
	local name=$1
	shift
	COSCHED_MPI_IMPL=mpich UCX_TLS=tcp UCX_NET_DEVICES=eth0 COSCHED_MPI_VERBOSE=1 \
		LD_PRELOAD=$user timeout "$MLIMIT" srun -N "$N" -n "$N" --mpi=pmi2 "$@" \
		sh -c 'echo "preload $SLURMD_NODENAME ${LD_PRELOAD:-none} PMI_FD=${PMI_FD-} PMI_RANK=${PMI_RANK-}" >&2; exec "$0"' \
		"$SUITE_MPICH" >"$W/$name.out" 2>"$W/$name.err"
}
preloads() { # err regex: one line per rank, every LD_PRELOAD matching
	local lines
	lines=$(grep '^preload ' "$1")
	echo "$lines" | sed 's/^/# /'
	[ "$(echo "$lines" | grep -c .)" = "$N" ] &&
		! echo "$lines" | re="^$2\$" awk '$3 !~ ENVIRON["re"]' | grep -q .
}
mpich mref --cosched=off
st=$?
check $((st != 0)) "MPICH, srun --mpi=pmi2 --cosched=off: plain suite, status $st ($(tail -n1 "$W/mref.out"))" ||
	grep -v '^preload ' "$W/mref.err" | tail -n 8 | sed 's/^/# /'
preloads "$W/mref.err" "$user:$fix_re" && ! grep -q '^cosched-mpi:' "$W/mref.err"
check $? "MPICH --cosched=off: LD_PRELOAD user's:finalize fix, no glue (cosched-run -N)"
mpich mglue --cosched
st=$?
check $((st != 0)) "MPICH, srun --mpi=pmi2 --cosched: suite under the glue, status $st ($(tail -n1 "$W/mglue.out"))" ||
	grep -v '^preload \|^cosched-mpi: rank' "$W/mglue.err" | tail -n 8 | sed 's/^/# /'
preloads "$W/mglue.err" "$user:$fix_re:$mglue_re"
check $? "MPICH --cosched: LD_PRELOAD user's:finalize fix:MPICH glue in all $N ranks"
same_output "$W/mref.out" "$W/mglue.out" "MPICH: "
glue_active "$W/mglue.err"
check $? "MPICH --cosched: the glue active in all $N ranks (sockets and module arrivals)" ||
	tail -n 5 "$W/mglue.err" | sed 's/^/# /'
env=$(COSCHED_UCX_FINALIZE=0 COSCHED_MPI_IMPL=mpich LD_PRELOAD=$user timeout "$LIMIT" \
	srun -N "$N" -n "$N" --cosched sh -c 'echo "preload $SLURMD_NODENAME $LD_PRELOAD"' 2>&1)
echo "$env" >"$W/nofix.err"
preloads "$W/nofix.err" "$user:$mglue_re"
check $? "MPICH --cosched with COSCHED_UCX_FINALIZE=0: user's:glue, no fix"

# 5. The glue check can fail: the same run with the plugin out of every
# node's plugstack.conf (srun and slurmstepd read it at each step).
for h in "${HOSTS[@]}"; do on "$h" "cp /etc/slurm/plugstack.conf /etc/slurm/plugstack.conf.on && : >/etc/slurm/plugstack.conf"; done
COSCHED_MPI_VERBOSE=1 timeout "$LIMIT" srun -N "$N" -n "$N" --mpi=pmix "$SUITE" >"$W/none.out" 2>"$W/none.err"
! glue_active "$W/none.err"
check $? "without the plugin: the glue check fails, as it should ($(tail -n1 "$W/none.out"))"
for h in "${HOSTS[@]}"; do on "$h" "mv /etc/slurm/plugstack.conf.on /etc/slurm/plugstack.conf"; done

# 6. Jobs share the nodes (run-mix --slurm runs a mix's jobs at once):
# two jobs on the same CPUs both RUNNING at once, none PENDING for
# resources, none suspended (no gang scheduling here; cluster.sh
# --slurm-gang turns it on: states() then shows one RUNNING at a time).
states() { # "R<most jobs RUNNING at once> <every state seen>"
	local a b
	timeout "$LIMIT" srun -N "$N" -n "$N" -J smoke-a sleep 12 >/dev/null 2>&1 &
	a=$!
	sleep 1
	timeout "$LIMIT" srun -N "$N" -n "$N" -J smoke-b sleep 12 >/dev/null 2>&1 &
	b=$!
	while kill -0 "$a" 2>/dev/null || kill -0 "$b" 2>/dev/null; do
		squeue -h -n smoke-a,smoke-b -o '%T' | sort | uniq -c | tr '\n' ' '
		echo
		sleep 0.5
	done | awk '{ for (i = 1; i < NF; i += 2) { seen[$(i + 1)] = 1
			if ($(i + 1) == "RUNNING" && $i > most) most = $i } }
		END { printf "R%d", most; for (s in seen) printf " %s", s; print "" }'
	wait "$a" "$b"
}
st=$(states)
[[ "$st" == R2* && "$st " != *" SUSPENDED "* ]]
check $? "two jobs on the same nodes run at once, none suspended (most RUNNING at once, states: $st)"

# 7. Arrivals from another node boost the receiver under dcs only.
field() { # cell key -> the value in net_wake.sh's line of that cell
	awk -v c="cell=$1" -v k="$2" '$1 == c { for (i = 2; i <= NF; i++) {
		split($i, f, "="); if (f[1] == k) print f[2] } }' "$W/nw.out"
}
timeout "$LIMIT" bench/net_wake.sh 1 20 2 >"$W/nw.out" 2>&1
check $? "bench/net_wake.sh across ${HOSTS[0]} and ${HOSTS[1]}: every cell ran" ||
	sed 's/^/# /' "$W/nw.out"
for c in tcp-floor tcp-local tcp-dcs uring-floor uring-local uring-dcs; do
	a=$(field "$c" answered)
	n=$(field "$c" arrivals)
	[ "${a:-0}" = 25 ] && [ "${n:-0}" -ge 25 ]
	check $? "net_wake $c: ${HOSTS[1]}'s echo answered ${a:-?} of 25, its module counted ${n:-?} arrivals"
done
for t in tcp uring; do
	d=$(field "$t-dcs" boosts)
	l=$(field "$t-local" boosts)
	f=$(field "$t-floor" boosts)
	p=$(field "$t-local" hog_ms)
	[ "${d:-0}" -gt 0 ] && [ "$l" = 0 ] && [ "$f" = 0 ] && [ "${p:-0}" -gt 0 ]
	check $? "net_wake $t: the receiver beside the hog (${p:-?} ms of CPU under local) boosted ${d:-?} times under dcs, ${l:-?} under local, ${f:-?} without the hog"
done
grep '^# \(tcp\|uring\)' "$W/nw.out"
tap_summary
# shellcheck disable=SC2154 # fail: tap.sh's
((fail == 0))
