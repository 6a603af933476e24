#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# uring-wake.sh: libcosched's TCP transport (io_uring, sockets registered
# by the library) with the receiver beside a CPU hog, dcs against local
# in the same guest run (bench/tcp_wake.sh: ROUNDS rounds taking turns).
# Asserts that dcs's p90 from send to receipt is clearly lower than
# local's (at least 1.5x; the issue's target of 5x is printed, not
# asserted: Documentation/results/hooks/README.md says where the time
# goes under TCG).  The stall watch (build/tests/steal -w, lib/stall.h)
# runs meanwhile: when the host kept a guest CPU standing still more than
# STALL_MAX percent of the time, the comparison is reported as
# "# SKIP host too busy" with the stall: it measured the host.  So is a
# run that a host that busy kept from finishing in LIMIT_S seconds.
# TAP.  Run by tests/guest/run.sh, which loads the module.
#
# usage: uring-wake.sh [rounds [samples]]
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
ROUNDS=${1:-3}
N=${2:-60}
BIN=${BIN:-build/tests}
STALL_MAX=${STALL_MAX:-${COSCHED_STALL_MAX_PCT:-10}}	# STALL_MAX_PCT in lib/stall.h
STALL=$(mktemp)
LIMIT_S=${LIMIT_S:-200}		# run.sh allows 240 s

echo "1..2"
# CPU 0: the receiver's and the hog's (bench/tcp_wake.c).
out=$("$BIN/steal" -w -c 0 -T "$LIMIT_S" -o "$STALL" bench/tcp_wake.sh "$ROUNDS" "$N")
rc=$?
stall=$(cat "$STALL")
rm -f "$STALL"
echo "$out" | grep '^#'
echo "# while it ran: $stall"
pct=$(echo "$stall" | sed -n 's/^stall_pct=\([^ ]*\).*/\1/p')
busy=$(awk -v p="${pct:-100}" -v m="$STALL_MAX" 'BEGIN { print (p > m) ? 1 : 0 }')
if [ $rc = 124 ] && [ "$busy" = 1 ]; then
	echo "ok 1 - bench/tcp_wake.sh ran # SKIP host too busy: not done in $LIMIT_S s ($stall; limit $STALL_MAX%)"
	echo "ok 2 - dcs p90 below local's # SKIP host too busy: no result"
	exit 0
fi
line=$(echo "$out" | grep '^tcp-wake:')
if [ $rc -ne 0 ] || [ -z "$line" ]; then
	echo "not ok 1 - bench/tcp_wake.sh ran # exit $rc"
	echo "not ok 2 - dcs p90 below local's # no result"
	exit 1
fi
echo "ok 1 - bench/tcp_wake.sh ran"
echo "$line"
val() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
local_p90=$(val local_p90_us)
dcs_p90=$(val dcs_p90_us)
ratio=$(awk -v a="$local_p90" -v b="$dcs_p90" 'BEGIN { printf "%.1f", (b > 0) ? a / b : 0 }')
met=$(awk -v r="$ratio" 'BEGIN { print (r >= 5) ? "met" : "NOT met" }')
if [ "$busy" = 1 ]; then
	echo "ok 2 - dcs p90 below local's # SKIP host too busy ($stall; limit $STALL_MAX%): dcs $dcs_p90 us, local $local_p90 us"
elif awk -v r="$ratio" 'BEGIN { exit !(r >= 1.5) }'; then
	echo "ok 2 - dcs p90 $dcs_p90 us, local $local_p90 us: ${ratio}x lower (target 5x: $met)"
else
	echo "not ok 2 - dcs p90 $dcs_p90 us, local $local_p90 us: only ${ratio}x lower (asserted 1.5x)"
	exit 1
fi
