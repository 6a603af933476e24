#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Arrival-to-receipt latency through libcosched's TCP transport (io_uring)
# for a receiver that shares its CPU with a CPU hog, under local and dcs
# (bench/tcp_wake): under dcs the module's hook on the registered socket
# boosts the receiver.  The two policies take turns in ROUNDS rounds; the
# table gives the median over the rounds and the p90 ratio, beside the
# floor that the emulator sets (bench/vcpu_stall: a stalled vCPU delays
# any receiver, whatever the policy).
# Runs inside a guest, from the repository root:
#   make modules && make -C bench
#   tests/vm/vmrun.sh --kernel 6.12 --smp 2 -- bench/tcp_wake.sh [rounds [samples]]
set -eu
ROUNDS=${1:-5}
N=${2:-100}
BIN=build/bench/tcp_wake
KO=${COSCHED_KO:-build/$(uname -r)/cosched.ko}
SYS=/sys/kernel/cosched
OUT=$(mktemp)
PORT=$((24000 + $$ % 20000))
LIMIT_S=${TCP_WAKE_LIMIT_S:-60}	# one run; it normally takes seconds

echo "# reproduce: tests/vm/vmrun.sh --kernel $(uname -r) --smp $(nproc) -- bench/tcp_wake.sh $ROUNDS $N"
# Loaded already (tests/guest/run.sh loads it): use it and leave it.
loaded=0
[ -d /sys/module/cosched ] && loaded=1
[ $loaded = 1 ] || insmod "$KO"
r=0
while [ $r -lt "$ROUNDS" ]; do
	# The emulator's own floor, in the same rounds (bench/vcpu_stall.c).
	echo "policy=floor $(build/bench/vcpu_stall -n "$N")" >>"$OUT"
	for p in local dcs; do
		echo "$p" >"$SYS/policy"
		PORT=$((PORT + 2))
		# A hang is reported by tcp_wake's watchdog (-t): pass it on.
		if ! res=$("$BIN" -n "$N" -p "$PORT" -t "$LIMIT_S" 2>&1); then
			echo "$res" | sed 's/^/# /'
			echo "# tcp_wake under $p failed in round $((r + 1))"
			echo local >"$SYS/policy"
			exit 1
		fi
		echo "policy=$p $(echo "$res" | grep '^samples=')" >>"$OUT"
	done
	r=$((r + 1))
done
echo local >"$SYS/policy"
[ $loaded = 1 ] || "$(dirname "$0")/../scripts/rmmod-cosched"

med() { # policy key
	awk -v p="policy=$1" -v k="$2" '$1 == p { for (i = 2; i <= NF; i++) { split($i, f, "="); if (f[1] == k) print f[2] } }' "$OUT" |
		sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
echo "# TCP arrival to receipt, receiver next to a CPU hog, us; medians over $ROUNDS rounds of $N"
printf '# %-8s %10s %10s %10s\n' policy p50 p90 max
for p in floor local dcs; do
	printf '# %-8s %10s %10s %10s\n' "$p" "$(med "$p" p50_us)" "$(med "$p" p90_us)" "$(med "$p" max_us)"
done
echo "# floor: a store on CPU 1 seen by a spinning CPU 0, no scheduler involved; longest vCPU stall $(med floor stall_us) us"
echo "# p90 local / dcs: $(awk -v a="$(med local p90_us)" -v b="$(med dcs p90_us)" 'BEGIN { printf "%.1f", a / b }')"
echo "tcp-wake: rounds=$ROUNDS samples=$N local_p90_us=$(med local p90_us) dcs_p90_us=$(med dcs p90_us) floor_stall_us=$(med floor stall_us)"
rm -f "$OUT"
