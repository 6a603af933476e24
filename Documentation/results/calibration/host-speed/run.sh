#!/bin/bash
# Does this machine run a fixed piece of work at one speed from second to
# second?  Natively (bench/calibrate's compute loop, an interpreter loop,
# a pointer chase over an L3-sized buffer) and under QEMU's TCG, in user
# mode (qemu-x86_64, no guest) and in a guest (tests/vm/vmrun.sh).
#
#   run.sh [SECONDS] [CPU]   native and qemu-user probes on host CPU
#                            (default 20 s each, CPU 1); needs
#                            build/bench/calibrate (make bench)
#   run.sh guest             inside a guest: the loop on guest CPU 0
#
# Each probe prints one summary line: rows, the fastest row, the median,
# the 90th percentile and the slowest (ns per step), p90/fastest,
# slowest/fastest, and the share of rows over 1.25 x the fastest; the
# rows themselves go to build/host-speed/*.rows.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
calibrate=$root/build/bench/calibrate
[[ -x $calibrate ]] || { echo "run.sh: no $calibrate (make bench)" >&2; exit 2; }
# Rows ("<t> <ns>") in, one line out; the rows kept in $bin/NAME.rows
# when there is a $bin (not in a guest: its root is read-only).
summary() {
	local what=$1 rows
	rows=$(cat)
	[[ -n ${bin:-} ]] && printf '%s\n' "$rows" >"$bin/${what// /-}.rows"
	[[ -n $rows ]] || { printf '%-28s no rows\n' "$what"; return 1; }
	LC_ALL=C sort -g -k2,2 <<<"$rows" | awk -v what="$what" '{ v[NR] = $2 } END {
		slow = 0; for (i = 1; i <= NR; i++) if (v[i] > 1.25 * v[1]) slow++
		printf "%-28s rows %4d  min %7.2f  median %7.2f  p90 %7.2f  max %7.2f  p90/min %.2f  max/min %.2f  slow rows %.2f\n",
			what, NR, v[1], v[int((NR + 1) / 2)], v[int(NR * 0.9 + 0.5)], v[NR],
			v[int(NR * 0.9 + 0.5)] / v[1], v[NR] / v[1], slow / NR }'
}
# The hypervisor's steal over a probe, from /proc/stat (USER_HZ ticks).
steal() { awk '/^cpu / { print $9 }' /proc/stat; }
if [[ ${1:-} == guest ]]; then
	taskset -c 0 "$calibrate" -s 4 -w 20 | summary "guest loop (TCG)"
	exit 0
fi
secs=${1:-20} cpu=${2:-1}
for tool in gcc python3 taskset; do
	command -v $tool >/dev/null || { echo "run.sh: needs $tool" >&2; exit 2; }
done
bin=$root/build/host-speed
mkdir -p "$bin"
gcc -O2 -Wall -o "$bin/chase" "$here/chase.c"
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), L3 shared by CPUs" \
	"$(cat /sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list 2>/dev/null || echo '?')," \
	"steal ticks before: $(steal)"
# -s 4: 2M iterations a row, 5 ms natively, 40 ms under TCG.
taskset -c "$cpu" "$calibrate" -s 4 -w "$secs" | summary "native loop"
taskset -c "$cpu" python3 - "$secs" <<'PY' | summary "native python loop"
import sys, time
def work(n):
    s = 0
    for i in range(n):
        s += (i * 7) % 13
        if s > 1000000:
            s -= 999999
    return s
t0 = time.perf_counter()
while time.perf_counter() - t0 < float(sys.argv[1]):
    t = time.perf_counter(); work(1000000)
    print("%.3f %.2f" % (t - t0, (time.perf_counter() - t) / 1000000 * 1e9), flush=True)
PY
taskset -c "$cpu" "$bin/chase" "$secs" $((4 << 20)) | summary "native chase 4 MiB"
if command -v qemu-x86_64 >/dev/null; then
	taskset -c "$cpu" qemu-x86_64 -cpu max "$calibrate" -s 4 -w "$secs" | summary "qemu-x86_64 loop (TCG)"
else
	echo "qemu-x86_64 loop (TCG)       skipped: no qemu-x86_64 (apt-get install qemu-user)"
fi
echo "# steal ticks after: $(steal)"
