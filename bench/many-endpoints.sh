#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Issue 11's measurements with N endpoints (default 10,000) made by an
# unprivileged user (uid 65534, the device's group 4242), each ring
# ring_kb=4: their memory charged to the user's memory cgroup, the
# EUSERS refusal of endpoint N+1, the context switch cost of tracked and
# untracked threads while they exist, the cost of one periodic
# examination (pb) walking them, the irqsoff tracer's maximum if the
# kernel has it, and that closing them returns the counters and the
# memory.  Run inside a guest, from the repository root, as root:
#   make modules bench
#   tests/vm/vmrun.sh --kernel 6.12 --timeout 900 -- bench/many-endpoints.sh [N]
# The irqsoff maximum needs a kernel with the tracer (make check-debug's)
# started at boot:
#   tests/vm/vmrun.sh --kernel 6.12.117-debug-0904a3e3 --smp 2 --mem 2048 \
#     --timeout 1800 --append 'ftrace=irqsoff trace_options=nofunction-trace' \
#     -- bench/many-endpoints.sh 10000
set -eu
N=${1:-10000}
KO=${COSCHED_KO:-build/$(uname -r)/cosched.ko}
SYS=/sys/kernel/cosched
CG=/sys/fs/cgroup
TR=/sys/kernel/tracing
GID=4242
DIR=$(mktemp -d)

say() { echo "many-endpoints: $*"; }
sc() { build/bench/switch_cost -r 3 "$@" | sed 's/.*ns_per_switch=\([0-9]*\) min=\([0-9]*\) max=\([0-9]*\)/\1 (\2-\3)/'; }
# Three alternating runs of untracked and tracked switching threads.
switches() {
	for i in 1 2 3; do
		say "$1 untracked ns/switch $(sc)"
		say "$1 tracked   ns/switch $(sc -e)"
	done
}
# The pb worker's CPU time over 10 s, from its schedstat (ns, runs).
examine() {
	pid=$(pgrep -x cosched | head -n 1)
	echo pb >"$SYS/policy"
	echo 10000 >"$SYS/pb_period_us"
	read -r t0 _ c0 <"/proc/$pid/schedstat"
	sleep 10
	read -r t1 _ c1 <"/proc/$pid/schedstat"
	echo local >"$SYS/policy"
	runs=$((c1 - c0))
	[ "$runs" -gt 0 ] || runs=1
	say "$1 pb worker: $(( (t1 - t0) / 1000 )) us on CPU in 10 s," \
	    "$((c1 - c0)) runs, $(( (t1 - t0) / runs )) ns per run"
}
# The worker's runs from sched_switch events: count, median, max (us).
trace_runs() {
	[ -d "$TR/events/sched" ] || { say "no tracefs"; return 0; }
	# irqsoff keeps its trace in the buffer this reads, and swaps it out
	# at each new maximum; switching tracers would patch kernel text.
	[ "$IRQSOFF" = 0 ] || { say "$1 pb worker runs: not traced under the irqsoff tracer"; return 0; }
	# Put the event back as found: switching it off live-patches
	# __schedule, which vmrun.sh's guests avoid (tests/vm/vmrun.sh).
	was=$(cat "$TR/events/sched/sched_switch/enable")
	echo 0 >"$TR/tracing_on"
	echo nop >"$TR/current_tracer"
	echo >"$TR/trace"
	echo 'prev_comm == "cosched" || next_comm == "cosched"' >"$TR/events/sched/sched_switch/filter"
	echo 1 >"$TR/events/sched/sched_switch/enable"
	echo pb >"$SYS/policy"
	echo 1 >"$TR/tracing_on"
	sleep 5
	echo 0 >"$TR/tracing_on"
	echo local >"$SYS/policy"
	echo "$was" >"$TR/events/sched/sched_switch/enable"
	echo 0 >"$TR/events/sched/sched_switch/filter"
	# A run starts when next_comm is cosched and ends when prev_comm is.
	grep sched_switch "$TR/trace" | awk '
		{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) t = substr($i, 1, length($i) - 1) }
		/next_comm=cosched / { s = t }
		/prev_comm=cosched / && s != "" { printf "%.0f\n", (t - s) * 1e6; s = "" }' |
		sort -n | awk '{ d[++n] = $1 }
		END { if (!n) { print "no runs"; exit }
		      printf "%d runs, median %d us, max %d us\n", n, d[int((n + 1) / 2)], d[n] }' |
		sed "s/^/many-endpoints: $1 pb worker runs (sched_switch): /"
}
# The irqsoff tracer is started at boot, never switched here: switching
# tracers patches kernel text live (ftrace sites, tracepoints' static
# calls), which under TCG with two vCPUs crashed the debug guest (int3
# oops in tsc_verify_tsc_adjust, 2026-11-24).  Only the maximum is reset.
irqsoff_start() {
	[ "$IRQSOFF" = 1 ] || return 0
	echo 0 >"$TR/tracing_max_latency"
	echo 1 >"$TR/tracing_on"
}
irqsoff_read() {
	[ "$IRQSOFF" = 1 ] || return 0
	say "irqsoff max over $1: $(cat "$TR/tracing_max_latency") us," \
	    "$(sed -n 's/^# *=> \(started\|ended\) at: *\(.*\)/\1 at \2/p' "$TR/trace" | tr '\n' ' ')"
}

[ -d "$TR/events" ] || mount -t tracefs nodev "$TR" 2>/dev/null || true
IRQSOFF=0
if [ "$(cat "$TR/current_tracer" 2>/dev/null)" = irqsoff ]; then
	IRQSOFF=1
	say "irqsoff tracer: on since boot, options: $(grep -o '[no]*function-trace' "$TR/trace_options")"
elif grep -qw irqsoff "$TR/available_tracers" 2>/dev/null; then
	say "irqsoff tracer: not started; to measure, boot with" \
	    "--append 'ftrace=irqsoff trace_options=nofunction-trace'"
else
	say "irqsoff tracer: not available on $(uname -r) (needs CONFIG_IRQSOFF_TRACER)"
fi

"$(dirname "$0")/../scripts/rmmod-cosched" -q
insmod "$KO"
echo 4 >"$SYS/ring_kb"
echo "$N" >"$SYS/user_max_endpoints"
chgrp "$GID" /dev/cosched
chmod 0660 /dev/cosched

grep -q "^cgroup2 $CG " /proc/mounts || mount -t cgroup2 none "$CG"
echo +memory >"$CG/cgroup.subtree_control"
mkdir -p "$CG/cosched-many"

say "kernel $(uname -r), N=$N, ring_kb=$(cat "$SYS/ring_kb"), user_max_endpoints=$(cat "$SYS/user_max_endpoints")"
# The same work with no endpoints first: under TCG the tracer also counts
# time the host did not run a vCPU that had interrupts off, so only the
# difference between the two says anything about the module.
irqsoff_start
switches "0 endpoints:"
irqsoff_read "switching with 0 endpoints"
irqsoff_start
examine "0 endpoints:"
irqsoff_read "pb examining 0 endpoints"
trace_runs "0 endpoints:"

irqsoff_start
mkfifo "$DIR/hold"
sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$CG/cosched-many" \
	build/bench/many_endpoints -n "$N" -u 65534 -g "$GID" -j 1000 \
	-m "$CG/cosched-many/memory.current" <"$DIR/hold" >"$DIR/out" 2>&1 &
holder=$!
exec 3>"$DIR/hold"
until grep -q '^ready' "$DIR/out" || ! kill -0 "$holder" 2>/dev/null; do
	sleep 0.2
done
grep -v '^ready' "$DIR/out" | sed 's/^/many-endpoints: /'
grep -q '^ready' "$DIR/out" || { say "holder failed"; exit 1; }
say "stats/endpoints=$(cat "$SYS/stats/endpoints") memory.current=$(cat "$CG/cosched-many/memory.current")"
grep -E '^(slab|vmalloc|kernel|percpu|file|anon|sock) ' "$CG/cosched-many/memory.stat" | tr '\n' ' ' | sed 's/^/many-endpoints: memory.stat: /; s/$/\n/'
switches "$N endpoints:"
irqsoff_read "creating $N endpoints and switching"
irqsoff_start
examine "$N endpoints:"
irqsoff_read "pb examining $N endpoints"
trace_runs "$N endpoints:"

irqsoff_start
exec 3>&-
wait "$holder" || say "holder exit $?"
grep closed "$DIR/out" | sed 's/^/many-endpoints: /'
irqsoff_read "closing $N endpoints"
sleep 2
say "after close: stats/endpoints=$(cat "$SYS/stats/endpoints") memory.current=$(cat "$CG/cosched-many/memory.current")"
rmdir "$CG/cosched-many"
"$(dirname "$0")/../scripts/rmmod-cosched"
rm -rf "$DIR"
