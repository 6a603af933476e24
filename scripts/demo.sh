#!/usr/bin/env bash
# The newcomer's first command (`make demo`): install what is needed,
# build the module and the tests, boot a Debian 6.12 guest with the
# module, and print how fast a receiver sharing its CPU with a CPU hog
# gets the CPU after a message arrives, under local, dcs and pb.
set -euo pipefail
cd "$(dirname "$0")/.."

kernel=${1:-6.12}
scripts/setup.sh
make -s modules tests
echo "demo: booting a $kernel guest; the measurement takes about two minutes" >&2
tests/vm/vmrun.sh --kernel "$kernel" --timeout 900 -- sh -c '
	insmod build/$(uname -r)/cosched.ko &&
	sh tests/guest/latency.sh 105 >/tmp/latency.out 2>&1
	status=$?
	sed -n "/^# arrival-to-on-CPU latency/,/^# per round/p" /tmp/latency.out
	grep -E "^(not )?ok .*(lower|under|within)" /tmp/latency.out
	exit $status'
