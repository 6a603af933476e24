#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Co-scheduled jobs under several policies (make demo): JOBS jobs of two
# ranks each (bench/jobmix), rank r of every job on CPU r, alternating
# COMPUTE_US of work with a message exchange.  Prints each job's
# completion time, the makespan, and the slowdown against the ideal:
# JOBS times the standalone time of one job (perfect gang scheduling).
# Runs inside a guest, from the repository root:
#   make modules && make -C bench
#   tests/vm/vmrun.sh --kernel 6.12 --smp 2 -- bench/jobmix.sh [policies [jobs [iters [compute_us]]]]
set -eu
POLICIES=${1:-local sb sy dcs dcs-sb pb}
JOBS=${2:-2}
ITERS=${3:-200}
COMPUTE=${4:-1000}
BIN=build/bench/jobmix
KO=build/$(uname -r)/cosched.ko
SYS=/sys/kernel/cosched

echo "# reproduce: tests/vm/vmrun.sh --kernel $(uname -r) --smp $(nproc) -- bench/jobmix.sh '$POLICIES' $JOBS $ITERS $COMPUTE"
"$(dirname "$0")/../scripts/rmmod-cosched" -q
insmod "$KO"
echo local >"$SYS/policy"
alone=$("$BIN" -j 1 -i "$ITERS" -c "$COMPUTE" | sed -n 's/.*makespan_ms=\([0-9.]*\).*/\1/p')
ideal=$(awk -v a="$alone" -v n="$JOBS" 'BEGIN { printf "%.1f", a * n }')
echo "# $JOBS jobs x 2 ranks on $(nproc) CPUs, $ITERS iterations of ${COMPUTE} us compute + exchange"
echo "# one job alone: $alone ms; ideal for $JOBS (gang scheduled): $ideal ms"
printf '# %-8s %-24s %12s %9s\n' policy "each job, ms" makespan_ms slowdown
for p in $POLICIES; do
	echo "$p" >"$SYS/policy"
	out=$("$BIN" -j "$JOBS" -i "$ITERS" -c "$COMPUTE")
	case $out in *failed=1*) echo "jobmix: $p failed" >&2; exit 1 ;; esac
	ms=$(echo "$out" | sed -n 's/.*makespan_ms=\([0-9.]*\).*/\1/p')
	printf '# %-8s %-24s %12s %9s\n' "$p" \
		"$(echo "$out" | sed -n 's/^job=[0-9]* time_ms=//p' | paste -sd, -)" "$ms" \
		"$(awk -v m="$ms" -v i="$ideal" 'BEGIN { printf "%.2f", m / i }')"
done
echo local >"$SYS/policy"
"$(dirname "$0")/../scripts/rmmod-cosched"
