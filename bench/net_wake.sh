#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Arrival-to-on-CPU latency across two cluster nodes (issue 13): node 1's
# receiver shares its one vCPU with a CPU hog and echoes each message of
# node 0's pinger (bench/net_wake), through the virtual NIC; node 0 times
# the round trips.  Cells, per transport (plain TCP registered with the
# module; libcosched's io_uring TCP transport):
#   floor  no hog, policy local: the network's and the emulator's own time;
#   local  the hog beside the receiver, policy local;
#   dcs    the same under dcs, whose arrival hook boosts the receiver.
# The policy is node 1's; node 0 stays local, so that only the receiver's
# node differs between cells.  The six cells take turns in a new random
# order each round.  Per cell: the median over the rounds of each round's
# p50 and p90, with their range, and the wait (the round's p50 less the
# same round's floor p50 of that transport).  Run on node 0 of a cluster,
# from the repository root:
#   make modules && make -C bench
#   tests/vm/cluster.sh --nodes 2 --insmod --timeout 1800 -- \
#       bench/net_wake.sh [rounds [samples [gap_ms]]]
# rounds 1 with few samples is the smoke test (tests/vm/cluster/slurm-smoke.sh).
set -eu
ROUNDS=${1:-5}
N=${2:-200}
GAP=${3:-5}
BIN=build/bench/net_wake
SYS=/sys/kernel/cosched
LIMIT=$((60 + N * GAP * 3 / 1000))
: "${COSCHED_HOSTS:?run it on node 0 of tests/vm/cluster.sh}"
H0=$(echo "$COSCHED_HOSTS" | cut -d, -f1)
H1=$(echo "$COSCHED_HOSTS" | cut -d, -f2)
[ "$H0" != "$H1" ] || { echo "net_wake.sh: needs two nodes" >&2; exit 2; }
OUT=$(mktemp)
# Below the ephemeral ports (32768 on): node 0 listens too (uring).
PORT=$((20000 + $$ % 10000))
CELLS="tcp-floor tcp-local tcp-dcs uring-floor uring-local uring-dcs"
echo_pid=

policy() { # policy: node 1's
	cosched-rexec -n "$H1" "echo $1 >$SYS/policy"
}

cleanup() {
	[ -z "$echo_pid" ] || kill "$echo_pid" 2>/dev/null || true
	policy local || true
	rm -f "$OUT" "$OUT.echo" "$OUT.ping" "$OUT.floor"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cell() { # transport-kind round
	t=${1%-*}
	kind=${1#*-}
	hog=-h
	case $kind in
	floor) policy local; hog= ;;
	*) policy "$kind" ;;
	esac
	PORT=$((PORT + 2))
	job=$((0x7c9b00000000 + PORT))
	cosched-rexec -n "$H1" "$BIN echo -T $t -p $PORT -a $H0,$H1 -j $job $hog -t $LIMIT" \
		>"$OUT.echo" 2>&1 &
	echo_pid=$!
	st=0
	# A failed ping ends the echo too (the agent kills its process group).
	"$BIN" ping -T "$t" -p "$PORT" -a "$H0,$H1" -j "$job" -n "$N" -g "$GAP" \
		-t "$LIMIT" >"$OUT.ping" 2>&1 || { st=$?; kill "$echo_pid" 2>/dev/null || true; }
	wait "$echo_pid" || st=$((st ? st : $?))
	echo_pid=
	if [ "$st" != 0 ]; then
		echo "net_wake.sh: $1 failed in round $2 (status $st):" >&2
		sed 's/^/  ping: /' "$OUT.ping" >&2
		sed 's/^/  echo: /' "$OUT.echo" >&2
		exit 1
	fi
	echo "cell=$1 round=$2 $(grep '^samples=' "$OUT.ping") $(sed -n 's/^echo: //p' "$OUT.echo")" |
		tee -a "$OUT"
}

echo "# reproduce: tests/vm/cluster.sh --nodes $(echo "$COSCHED_HOSTS" | tr , '\n' | wc -l) --kernel $(uname -r) --insmod -- bench/net_wake.sh $ROUNDS $N $GAP"
echo "# $H0 pings $H1 ($(nproc) CPU each); $(date -u '+%Y-%m-%d %H:%M UTC')"
echo local >"$SYS/policy"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	# shellcheck disable=SC2086 # one word per cell
	order=$(shuf -e $CELLS | tr '\n' ' ')
	echo "# round $r: $order"
	for c in $order; do
		cell "$c" "$r"
	done
	r=$((r + 1))
done

# values cell key: one per round, "round value" lines.
values() {
	awk -v c="cell=$1" -v k="$2" '$1 == c { split($2, rd, "="); for (i = 3; i <= NF; i++) {
		split($i, f, "="); if (f[1] == k) print rd[2], f[2] } }' "$OUT"
}
# summary: "median min-max" of the numbers on stdin (the middle two's mean
# for an even count).
summary() {
	sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "?"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.1f %s-%s\n", m, v[1], v[NR] }'
}
cell_stat() { values "$1" "$2" | cut -d' ' -f2 | summary; }
med() { cell_stat "$1" "$2" | cut -d' ' -f1; }
# waits cell: each round's p50 less that round's floor p50, one per line.
waits() {
	values "${1%-*}-floor" p50_us >"$OUT.floor"
	values "$1" p50_us | awk 'NR == FNR { f[$1] = $2; next } ($1 in f) { print $2 - f[$1] }' "$OUT.floor" -
}
wait_med() { waits "$1" | summary | cut -d' ' -f1; }
# shares cell: the hog's share of the CPU in each round, in percent
# (hog_ms / wall_ms; none in the floor cells).
shares() {
	awk -v c="cell=$1" '$1 == c { for (i = 2; i <= NF; i++) { split($i, f, "="); v[f[1]] = f[2] }
		if (v["wall_ms"] > 0) printf "%.1f\n", 100 * v["hog_ms"] / v["wall_ms"] }' "$OUT"
}
# ratio a b: a / b, or n/a when b is within 10 us of nothing.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 10) printf "%.1f", a / b; else printf "n/a" }'; }

echo "# round trip $H0 -> $H1 -> $H0, us: median over $ROUNDS rounds of $N (rounds' range)"
printf '# %-12s %-22s %-22s %-22s %s\n' cell p50 p90 "wait (p50 - floor)" "boosts nivcsw hog_cpu_%"
for c in $CELLS; do
	printf '# %-12s %-22s %-22s %-22s %s %s %s\n' "$c" "$(cell_stat "$c" p50_us)" "$(cell_stat "$c" p90_us)" \
		"$(waits "$c" | summary)" "$(med "$c" boosts)" "$(med "$c" nivcsw)" "$(shares "$c" | summary)"
done
for t in tcp uring; do
	echo "# $t: p90 local / dcs $(ratio "$(med "$t-local" p90_us)" "$(med "$t-dcs" p90_us)"), wait local / dcs $(ratio "$(wait_med "$t-local")" "$(wait_med "$t-dcs")")"
done
echo "net-wake: rounds=$ROUNDS samples=$N tcp_local_wait_us=$(wait_med tcp-local) tcp_dcs_wait_us=$(wait_med tcp-dcs) uring_local_wait_us=$(wait_med uring-local) uring_dcs_wait_us=$(wait_med uring-dcs) tcp_floor_p50_us=$(med tcp-floor p50_us) uring_floor_p50_us=$(med uring-floor p50_us)"
