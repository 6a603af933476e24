#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# net_wake's refusals, on the host (no module needed): each malformed
# command line exits 2 before opening anything, and a peer that does not
# resolve is reported and exits 1.  The measurement itself runs on a
# cluster (bench/net_wake.sh; tests/vm/cluster/slurm-smoke.sh).  TAP.
# usage: bench/net_wake_test.sh   (after make -C bench)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/build/bench/net_wake
n=0
pass=0
t() { # expected-status description args...
	want=$1
	what=$2
	shift 2
	n=$((n + 1))
	err=$(timeout 60 "$BIN" "$@" 2>&1 >/dev/null)
	st=$?
	if [ "$st" = "$want" ]; then
		echo "ok $n - $what: exit $st"
		pass=$((pass + 1))
	else
		echo "not ok $n - $what: exit $st, want $want"
		echo "$err" | sed 's/^/# /'
	fi
}
echo "1..9"
t 2 "no role" -T tcp -p 3000 -a a,b
t 2 "unknown transport" ping -T udp -p 3000 -a a,b
t 2 "port with trailing junk" ping -T tcp -p 3000x -a a,b
t 2 "privileged port" ping -T tcp -p 80 -a a,b
t 2 "no samples" ping -T tcp -p 3000 -a a,b -n 0
t 2 "three hosts" ping -T tcp -p 3000 -a a,b,c
t 2 "empty first host" ping -T tcp -p 3000 -a ,b
t 2 "uring echo without hosts" echo -T uring -p 3000
# The trailing dot: no search domain is tried.
t 1 "a peer that does not resolve" ping -T tcp -p 3000 -a a,no-such-host.invalid. -n 1
echo "$pass passed, $((n - pass)) failed"
[ "$pass" = "$n" ]
