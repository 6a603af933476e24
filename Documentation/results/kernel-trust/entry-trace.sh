#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Does any of the module's entry points do work that grows with the
# number of endpoints?  Issue 11 asks that no hot path (context switch,
# arrival, yield, periodic tick, exit) walk all endpoints; the irqsoff
# tracer's maximum (debug kernel only) cannot say whose section it saw
# on a TCG host.  This times every call into the module instead.
#
# The function_graph tracer, filtered to the module's functions with a
# graph depth of 1, records each outermost call into cosched.ko (a
# preempt notifier, an hrtimer callback, a kthread work, an ioctl, a
# socket wake-up, a release) with its duration, sleep excluded.  The same
# work runs twice: with a handful of endpoints, then while N more exist
# (N made by nobody, and N owned by the switching thread itself).  An
# entry point that walked them would take about N times longer per
# call; an O(1) one takes the same.  Medians and 99th percentiles per
# phase; maxima are printed but are the host's (a vCPU descheduled
# mid-call counts in full).
#
# Run in a guest, from the repository root, as root:
#   make modules bench
#   tests/vm/vmrun.sh --kernel 6.12 --smp 2 --mem 2048 --timeout 1800 -- \
#     Documentation/results/kernel-trust/entry-trace.sh [N] [round_trips]
set -eu
N=${1:-10000}
RT=${2:-5000}
KO=${COSCHED_KO:-build/$(uname -r)/cosched.ko}
SYS=/sys/kernel/cosched
TR=/sys/kernel/tracing
GID=4242
DIR=$(mktemp -d)
BIN=build/bench

say() { echo "entry-trace: $*"; }
# End the current phase: its calls come from the buffer (a trace_pipe
# reader would wake at every event and perturb what it measures), then
# the next phase starts on an empty one.
PHASE=start
phase() {
	echo 0 >"$TR/tracing_on"
	sed "s/^/$PHASE /" "$TR/trace" >>"$DIR/trace"
	echo >"$TR/trace"
	PHASE=$1
	echo 1 >"$TR/tracing_on"
}

[ -e "$TR/available_tracers" ] || mount -t tracefs nodev "$TR"
grep -qw function_graph "$TR/available_tracers" || {
	say "no function_graph tracer"; exit 1; }

"$(dirname "$0")/../../../scripts/rmmod-cosched" -q
insmod "$KO"
echo 4 >"$SYS/ring_kb"
echo $((N + 16)) >"$SYS/user_max_endpoints"
chgrp "$GID" /dev/cosched
chmod 0660 /dev/cosched

echo 0 >"$TR/tracing_on"
echo nop >"$TR/current_tracer"
echo >"$TR/trace"
echo 32768 >"$TR/buffer_size_kb"
echo ':mod:cosched' >"$TR/set_ftrace_filter"
echo 1 >"$TR/max_graph_depth"
# funcgraph-tail names the function at a closing brace (a call that
# slept or was interrupted is printed open, then closed).
for o in funcgraph-proc funcgraph-cpu funcgraph-tail; do
	echo 1 >"$TR/options/$o"
done
for o in funcgraph-irqs sleep-time; do
	[ ! -e "$TR/options/$o" ] || echo 0 >"$TR/options/$o"
done
# vmrun.sh's guests keep sched_switch enabled (switching it off would
# patch __schedule live); a filter no switch passes keeps it out.
sw=$TR/events/sched/sched_switch
[ ! -e "$sw/filter" ] || echo 'prev_pid == 0 && next_pid == 0' >"$sw/filter"
echo function_graph >"$TR/current_tracer"
echo 1 >"$TR/tracing_on"

# The work of one phase set: switching, the examiner, arrivals.
work() {
	phase "$1-switch"
	say "$1 switch: $($BIN/switch_cost -r 1 -n "$RT" -e ${2:-})"
	phase "$1-pb"
	echo 10000 >"$SYS/pb_period_us"
	echo pb >"$SYS/policy"
	sleep 5
	echo local >"$SYS/policy"
	phase "$1-dcs"
	echo dcs >"$SYS/policy"
	say "$1 dcs: $($BIN/cosched_pingpong -s 64 -n 2000 -w 100 -m block -t lat -q 2>&1 | tail -n 1)"
	echo local >"$SYS/policy"
}

say "kernel $(uname -r), N=$N, round trips $RT, ring_kb $(cat "$SYS/ring_kb")"
work few

phase create
mkfifo "$DIR/hold"
$BIN/many_endpoints -n "$N" -u 65534 -g "$GID" -j 1000 <"$DIR/hold" \
	>"$DIR/out" 2>&1 &
holder=$!
exec 3>"$DIR/hold"
until grep -q '^ready' "$DIR/out" || ! kill -0 "$holder" 2>/dev/null; do
	sleep 0.5
done
grep -q '^ready' "$DIR/out" || { say "holder failed: $(cat "$DIR/out")"; exit 1; }
say "stats/endpoints=$(cat "$SYS/stats/endpoints")"
work many "-O $N"

phase close
exec 3>&-
wait "$holder" || say "holder exit $?"
sleep 2
phase end
echo 0 >"$TR/tracing_on"
echo nop >"$TR/current_tracer"
[ ! -e "$sw/filter" ] || echo 0 >"$sw/filter"
lost=0
for f in "$TR"/per_cpu/cpu*/stats; do
	lost=$((lost + $(awk '/^overrun:/ {print $2}' "$f")))
done
say "trace lines $(wc -l <"$DIR/trace"), overrun events $lost"
[ -z "${COSCHED_VMOUT:-}" ] || gzip -c "$DIR/trace" >"$COSCHED_VMOUT/entry-trace.txt.gz"

# Lines: "PHASE  1)  task-pid  |   1.234 us    |  cosched_x [cosched]();"
# or, for a call printed open, "... |  } /* cosched_x [cosched] */".
awk -F'|' '
	function num(s) { gsub(/[^0-9.]/, "", s); return s + 0 }
	NF >= 3 && match($NF, /cosched_[a-z0-9_]+/) && $(NF - 1) ~ /us/ {
		split($1, w, " ")
		print w[1], substr($NF, RSTART, RLENGTH), num($(NF - 1)) * 1000
	}' "$DIR/trace" | sort -k1,1 -k2,2 -k3,3n | awk '
	function flush() {
		if (!n) return
		printf "entry-trace: %-12s %-28s n=%-6d median=%-7.0f p99=%-8.0f max=%.0f\n",
		       p, f, n, v[int((n + 1) / 2)], v[int(n * 0.99) ? int(n * 0.99) : 1], v[n]
	}
	$1 != p || $2 != f { flush(); p = $1; f = $2; n = 0 }
	{ v[++n] = $3 }
	END { flush() }'
"$(dirname "$0")/../../../scripts/rmmod-cosched"
rm -rf "$DIR"
