#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rdma.sh: soft-RoCE for the rdma test.  Sets up an rxe device over a veth
# pair (rdma link add rxe0 type rxe netdev cs-rxe0, 10.231.0.1/24; nothing
# leaves the guest), unless an RDMA device exists already, runs
# build/tests/rdma on it, and removes what it added.  If soft-RoCE cannot
# be set up, prints the TAP plan "1..0 # SKIP <reason>" and exits 0.
#
# Modules are loaded explicitly: the kernel's own module requests (the
# veth link type, the "crc32" hash rxe asks the crypto API for on 6.1)
# run /sbin/modprobe from the guest init's root, which has none.
#
# usage: rdma.sh [rdma args...]

BIN=${BIN:-$(cd "$(dirname "$0")/../.." && pwd)/build/tests}
IF=cs-rxe0
added=

skip() {
	echo "1..0 # SKIP $*"
	exit 0
}

cleanup() {
	[ -n "$added" ] || return 0
	rdma link delete rxe0 2>/dev/null
	ip link delete "$IF" 2>/dev/null
}
trap cleanup EXIT

if [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	command -v rdma > /dev/null || skip "no rdma tool (iproute2)"
	for m in veth crc32_generic rdma_rxe ib_uverbs; do
		out=$(modprobe "$m" 2>&1) || skip "modprobe $m failed: $out"
	done
	# The accelerated crc32, where the CPU has it; optional.
	modprobe crc32_pclmul 2>/dev/null
	ip link set lo up
	out=$({ ip link add "$IF" type veth peer name cs-rxe1 &&
		ip addr add 10.231.0.1/24 dev "$IF" &&
		ip link set "$IF" up && ip link set cs-rxe1 up; } 2>&1) ||
		skip "cannot create the veth pair: $out"
	added=1
	out=$(rdma link add rxe0 type rxe netdev "$IF" 2>&1) ||
		skip "rdma link add rxe0 type rxe netdev $IF: $out ($(dmesg | tail -3 | tr '\n' ' '))"
	i=0
	while ! grep -qs ACTIVE /sys/class/infiniband/rxe0/ports/1/state && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -qs ACTIVE /sys/class/infiniband/rxe0/ports/1/state ||
		skip "rxe0 port 1 not ACTIVE: $(cat /sys/class/infiniband/rxe0/ports/1/state 2>&1)"
fi
echo "# $(rdma link show 2>&1 | head -3 | tr '\n' ' ')"
"$BIN/rdma" "$@"
