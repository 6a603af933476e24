#!/bin/bash
# The tight loop, the interpreter loop and the L3-sized chase in turn on
# one host CPU, 0.4 s each, ROUNDS times: is the tight loop slow while
# the others are?  Prints per round the three medians (ns per step).
#   interleaved.sh [ROUNDS] [CPU]   (after run.sh, which builds the chase)
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../../.." && pwd)
rounds=${1:-40} cpu=${2:-1}
med() { LC_ALL=C sort -g -k2,2 | awk '{ v[NR] = $2 } END { printf "%.2f", v[int((NR + 1) / 2)] }'; }
echo "# round loop python chase-4MiB (ns per step, medians over 0.4 s), host CPU $cpu"
for ((r = 1; r <= rounds; r++)); do
	l=$(taskset -c "$cpu" "$root/build/bench/calibrate" -s 40 -w 0.4 | med)
	p=$(taskset -c "$cpu" python3 -c '
import time
t0 = time.perf_counter()
while time.perf_counter() - t0 < 0.4:
    t = time.perf_counter(); s = 0
    for i in range(100000):
        s += (i * 7) % 13
    print("0 %.2f" % ((time.perf_counter() - t) / 100000 * 1e9))' | med)
	c=$(taskset -c "$cpu" "$root/build/host-speed/chase" 0.4 $((4 << 20)) | med)
	echo "$r $l $p $c"
done
