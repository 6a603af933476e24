#!/bin/sh
# Runs tests/guest/fair N times (default 3) in one guest per kernel and
# keeps its lines: the shares of part 1 and 2 under local, dcs, dcs-fair.
#   Documentation/results/dcs-fair/run.sh [N] [OUTDIR]
# Needs `make modules tests` first; OUTDIR defaults to this directory.
set -eu
n=${1:-3}
out=${2:-$(dirname "$0")}
for k in 6.12 6.1; do
	flock /tmp/cosched-guest.lock tests/vm/vmrun.sh --kernel "$k" --smp 2 \
		--timeout 900 -- sh -c "
		insmod build/\$(uname -r)/cosched.ko || exit 1
		for i in \$(seq $n); do echo \"# run \$i\"; build/tests/fair; done" \
		> "$out/fair-$k.txt" 2>&1
done
grep -h "against local" "$out"/fair-*.txt
