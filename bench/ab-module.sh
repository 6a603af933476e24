#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ab-module.sh: two builds of cosched.ko, A and B, compared on the hook
# latency test (tests/guest/hooks: a receiver beside a CPU hog, dcs
# against local) in one guest boot, alternating A B A B ..., so that both
# see the same emulator and host load.  Runs inside a guest, as root,
# from the repository root; both .ko paths relative to it (the guest's
# /tmp is its own).  To try a change against main:
#
#   git stash && make modules && mkdir -p build/ab &&
#     cp build/6.12.*/cosched.ko build/ab/a.ko && git stash pop &&
#     make modules && cp build/6.12.*/cosched.ko build/ab/b.ko
#   tests/vm/vmrun.sh --kernel 6.12 --smp 2 -- \
#     bench/ab-module.sh build/ab/a.ko build/ab/b.ko [pairs]
#
# Prints each run's hooks-wake and hooks-latency lines, tagged A or B,
# then the median over the pairs of each one's dcs median and p90.
set -u
A=${1:?usage: ab-module.sh A.ko B.ko [pairs]}
B=${2:?usage: ab-module.sh A.ko B.ko [pairs]}
PAIRS=${3:-3}
OUT=$(mktemp)

for ko in "$A" "$B"; do
	[ -r "$ko" ] || { echo "ab-module: cannot read $ko" >&2; exit 2; }
done
i=0
while [ $i -lt "$PAIRS" ]; do
	for v in A B; do
		[ $v = A ] && ko=$A || ko=$B
		"$(dirname "$0")/../scripts/rmmod-cosched" -q
		insmod "$ko" || exit 1
		COSCHED_KO=$ko build/tests/hooks -w 100 -n 210 -r 3 2>&1 |
			grep '^hooks-' | sed "s/^/$v /" | tee -a "$OUT"
	done
	i=$((i + 1))
done
"$(dirname "$0")/../scripts/rmmod-cosched" -q

med() { # tag key
	awk -v v="$1" -v k="$2" '$1 == v && $2 == "hooks-latency:" {
		for (i = 3; i <= NF; i++) { split($i, f, "="); if (f[1] == k) print f[2] } }' "$OUT" |
		sort -g | awk '{ x[NR] = $1 } END { print x[int((NR + 1) / 2)] }'
}
echo "# medians over $PAIRS pairs, us: A=$A B=$B"
for v in A B; do
	echo "# $v dcs median $(med $v dcs_med_us) p90 $(med $v dcs_p90_us), local p90 $(med $v local_p90_us)"
done
rm -f "$OUT"
