#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Arrival-to-on-CPU latency across two cluster nodes (issue 13): node 1's
# receiver shares its one vCPU with a CPU hog and echoes each message of
# node 0's pinger (bench/net_wake), through the virtual NIC; node 0 times
# the round trips.  Cells, per transport (plain TCP registered with the
# module; libcosched's io_uring TCP transport):
#   floor  no hog, policy local: the network's and the emulator's own time;
#   local  the hog beside the receiver, policy local on both nodes;
#   dcs    the same under dcs, whose arrival hook boosts the receiver.
# The six cells take turns, in an order rotated each round; a cell's
# figure is the median over the rounds, with the rounds' range.  Run on
# node 0 of a cluster, from the repository root:
#   make modules && make -C bench
#   tests/vm/cluster.sh --nodes 2 --insmod --timeout 1800 -- \
#       bench/net_wake.sh [rounds [samples [gap_ms]]]
# rounds 1 with few samples is the smoke test.
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
PORT=$((26000 + $$ % 10000))
CELLS="tcp-floor tcp-local tcp-dcs uring-floor uring-local uring-dcs"

policy() { # policy: on both nodes
	echo "$1" >"$SYS/policy"
	cosched-rexec -n "$H1" "echo $1 >$SYS/policy"
}

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
	"$BIN" ping -T "$t" -p "$PORT" -a "$H0,$H1" -j "$job" -n "$N" -g "$GAP" \
		-t "$LIMIT" >"$OUT.ping" 2>&1 || st=$?
	wait "$echo_pid" || st=$((st ? st : $?))
	if [ "$st" != 0 ]; then
		echo "net_wake.sh: $1 failed in round $2 (status $st):" >&2
		sed 's/^/  ping: /' "$OUT.ping" >&2
		sed 's/^/  echo: /' "$OUT.echo" >&2
		policy local
		exit 1
	fi
	echo "cell=$1 round=$2 $(grep '^samples=' "$OUT.ping") $(sed -n 's/^echo: //p' "$OUT.echo")" |
		tee -a "$OUT"
}

echo "# reproduce: tests/vm/cluster.sh --nodes $(echo "$COSCHED_HOSTS" | tr , '\n' | wc -l) --kernel $(uname -r) --insmod -- bench/net_wake.sh $ROUNDS $N $GAP"
echo "# $H0 pings $H1 ($(nproc) CPU each); $(date -u '+%Y-%m-%d %H:%M UTC')"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	# Rotate the order so that no cell always runs first or last.
	set -- $CELLS
	i=1
	while [ "$i" -lt "$r" ]; do
		first=$1
		shift
		set -- "$@" "$first"
		i=$((i + 1))
	done
	for c in "$@"; do
		cell "$c" "$r"
	done
	r=$((r + 1))
done
policy local

stat() { # cell key: "median min-max" over the rounds
	awk -v c="cell=$1" -v k="$2" '$1 == c { for (i = 2; i <= NF; i++) { split($i, f, "="); if (f[1] == k) print f[2] } }' "$OUT" |
		sort -g | awk '{ v[NR] = $1 } END { printf "%s %s-%s", v[int((NR + 1) / 2)], v[1], v[NR] }'
}
med() { stat "$1" "$2" | cut -d' ' -f1; }
wait_us() { # cell: its median p50 less its transport's floor
	awk -v a="$(med "$1" p50_us)" -v f="$(med "${1%-*}-floor" p50_us)" 'BEGIN { printf "%.0f", a - f }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }

echo "# round trip $H0 -> $H1 -> $H0, us: median over $ROUNDS rounds of $N (rounds' range)"
printf '# %-12s %-22s %-22s %-7s %s\n' cell p50 p90 boosts "wait (p50 - floor p50)"
for c in $CELLS; do
	printf '# %-12s %-22s %-22s %-7s %s\n' "$c" "$(stat "$c" p50_us)" "$(stat "$c" p90_us)" \
		"$(med "$c" boosts)" "$(wait_us "$c")"
done
for t in tcp uring; do
	echo "# $t: p90 local / dcs $(ratio "$(med "$t-local" p90_us)" "$(med "$t-dcs" p90_us)"), wait local / dcs $(ratio "$(wait_us "$t-local")" "$(wait_us "$t-dcs")")"
done
echo "net-wake: rounds=$ROUNDS samples=$N tcp_local_p90_us=$(med tcp-local p90_us) tcp_dcs_p90_us=$(med tcp-dcs p90_us) uring_local_p90_us=$(med uring-local p90_us) uring_dcs_p90_us=$(med uring-dcs p90_us) tcp_floor_p90_us=$(med tcp-floor p90_us) uring_floor_p90_us=$(med uring-floor p90_us)"
rm -f "$OUT" "$OUT.echo" "$OUT.ping"
