#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The module's own share of a context switch, measured with the
# function_graph tracer so that the TCG guest's noise between runs does
# not decide: in the same traced run of build/bench/switch_cost (two
# threads ping-ponging on CPU 0), the duration of each call of the
# module's switch hook and the time from the blocking thread's entry to
# schedule() to the other thread's return from it (the whole switch).
# Debian's kernels have neither the function profiler nor the irqsoff
# tracer; function_graph they have.  __schedule is notrace; schedule()
# is the nearest traced function around it.
#
# New module: the preempt notifiers cosched_task_sched_in/_out (they run
# only for tasks that own an endpoint).  Old module (7074990): the
# sched_switch probe cosched_probe_switch (runs at every switch of every
# task, and walks the owner hash when any endpoint exists).
#
# Each round takes turns between: no module; new module untracked;
# new module tracked (-e); old module untracked; old module tracked.
# Each configuration is run twice: untraced (switch_cost's own ns/switch)
# and traced.  Run in a guest, from the repository root:
#   tests/vm/vmrun.sh --kernel 6.12 -- \
#     Documentation/results/kernel-trust/switch-trace.sh [rounds] [round_trips]
set -eu
ROUNDS=${1:-3}
RT=${2:-5000}
NEW=build/$(uname -r)/cosched.ko
OLD=build/old-module/$(uname -r)/cosched.ko
TR=/sys/kernel/tracing
BIN=build/bench/switch_cost
SAMPLES=$(mktemp)
RM="$(dirname "$0")/../../../scripts/rmmod-cosched"

[ -e "$TR/available_tracers" ] || mount -t tracefs nodev "$TR"
grep -qw function_graph "$TR/available_tracers" || {
	echo "switch-trace: no function_graph tracer"; exit 1; }

setup() {
	echo 0 >"$TR/tracing_on"
	echo nop >"$TR/current_tracer"
	echo 1 >"$TR/tracing_cpumask"
	echo 8192 >"$TR/buffer_size_kb"
	for o in funcgraph-abstime funcgraph-proc funcgraph-tail; do
		echo 1 >"$TR/options/$o"
	done
	echo 0 >"$TR/options/funcgraph-irqs"
}

# trace NAME FUNCS ARGS...: one traced switch_cost run, summarised.
trace() {
	name=$1 funcs=$2
	shift 2
	echo 0 >"$TR/tracing_on"
	echo nop >"$TR/current_tracer"
	echo >"$TR/trace"
	echo >"$TR/set_ftrace_filter"
	for f in $funcs; do
		echo "$f" >>"$TR/set_ftrace_filter" 2>/dev/null ||
			echo "switch-trace: $f cannot be traced"
	done
	echo function_graph >"$TR/current_tracer"
	echo 1 >"$TR/tracing_on"
	ns=$("$BIN" -r 1 -n "$RT" "$@" | sed 's/.*ns_per_switch=\([0-9]*\).*/\1/')
	echo 0 >"$TR/tracing_on"
	lost=$(awk '/^overrun:/ {print $2}' "$TR/per_cpu/cpu0/stats")
	# One line per sample: "span NS" or "FUNCTION NS".
	awk -F'|' '
	function num(s) { gsub(/[^0-9.]/, "", s); return s + 0 }
	/=>/ { next }
	NF >= 4 {
		t = num($1) * 1e9; who = $2; sub(/^ *[0-9]+\) */, "", who)
		sub(/ *$/, "", who); f = $4
		if (f ~ /schedule\(\) \{/) { t0 = t; p0 = who; next }
		if (f ~ /\} \/\* schedule \*\//) {
			if (t0 && who != p0 && who ~ /^switch_-/ && p0 ~ /^switch_-/)
				printf "span %.0f\n", t - t0
			t0 = 0; next
		}
		# A leaf: "name [cosched]();" (%ps names the module).
		if (f ~ /\(\);/ && match(f, /cosched_[a-z_]+/))
			printf "%s %.0f\n", substr(f, RSTART, RLENGTH), num($3) * 1000
	}' "$TR/trace" >"$SAMPLES"
	line="$name: switch_cost $ns ns/switch traced, lost events $lost"
	for k in $(cut -d' ' -f1 "$SAMPLES" | sort -u); do
		line="$line; $k $(stats "$k")"
	done
	echo "$line"
}

# stats KEY: count, median, 90th percentile and the mean of the samples
# up to it (the span's times are whole microseconds: the mean of many
# resolves less; the tail is host noise).
stats() {
	awk -v k="$1" '$1 == k {print $2}' "$SAMPLES" | sort -n | awk '
	{ v[NR] = $1 }
	END { p = int(NR * 0.9); if (p < 1) p = 1
	      for (i = 1; i <= p; i++) s += v[i]
	      printf "n=%d median=%.0f p90=%.0f mean90=%.0f", NR,
		v[int((NR + 1) / 2)], v[p], s / p }'
}

plain() {
	echo "$1: switch_cost $("$BIN" -r 1 -n "$RT" ${2:-} | sed 's/.*ns_per_switch=\([0-9]*\).*/\1/') ns/switch untraced"
}

setup
"$RM" -q
echo "# switch-trace on $(uname -r): $ROUNDS rounds, $RT round trips per run"
r=0
while [ $r -lt "$ROUNDS" ]; do
	echo "# round $r"
	plain "r$r none"
	trace "r$r none" "schedule"
	insmod "$NEW"
	plain "r$r new-untracked"
	trace "r$r new-untracked" "schedule"
	plain "r$r new-tracked" -e
	trace "r$r new-tracked" "schedule" -e
	trace "r$r new-tracked+hooks" "schedule cosched_task_sched_in cosched_task_sched_out" -e
	echo nop >"$TR/current_tracer"
	"$RM"
	insmod "$OLD"
	plain "r$r old-untracked"
	trace "r$r old-untracked" "schedule"
	trace "r$r old-untracked+hook" "schedule cosched_probe_switch"
	plain "r$r old-tracked" -e
	trace "r$r old-tracked" "schedule" -e
	trace "r$r old-tracked+hook" "schedule cosched_probe_switch" -e
	echo nop >"$TR/current_tracer"
	"$RM"
	r=$((r + 1))
done
echo >"$TR/set_ftrace_filter"
