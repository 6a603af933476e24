#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# hang-loop.sh LABEL RUNS LIMIT command...: the loop behind README.md's
# counts.  Runs the command RUNS times; a run not done within LIMIT s
# is a hang: the stacks of it and its descendants (mpiexec,
# hydra_pmi_proxy, the ranks; gdb 'thread apply all bt') go to
# res/LABEL.stacks/runI.txt (the first $KEEP hangs, default 3), then
# they are killed.  Last line: "LABEL: runs R ok O fail F hang H".
# (Hydra puts the proxy and each rank in sessions of their own, hence
# the walk down the process tree.)
desc() { echo "$1"; for c in $(ps -o pid= --ppid "$1"); do desc "$c"; done; }
label=$1; runs=$2; lim=$3; shift 3
out=${OUT:-res}; mkdir -p "$out/$label.stacks"
hang=0; ok=0; fail=0
for i in $(seq 1 "$runs"); do
	setsid "$@" >"$out/$label.out" 2>&1 &
	pid=$!
	t=0
	while kill -0 $pid 2>/dev/null && [ $t -lt $((lim * 10)) ]; do sleep 0.1; t=$((t + 1)); done
	if kill -0 $pid 2>/dev/null; then
		hang=$((hang + 1))
		if [ $hang -le "${KEEP:-3}" ]; then
			f=$out/$label.stacks/run$i.txt
			ps -o pid,ppid,stat,wchan:20,args -p "$(desc $pid | tr '\n' ',' | sed 's/,$//')" >"$f"
			for p in $(desc $pid); do
				echo "===== $p $(tr '\0' ' ' <"/proc/$p/cmdline")" >>"$f"
				gdb -p "$p" -batch -ex 'thread apply all bt' 2>/dev/null | grep -E '^(#|Thread)' >>"$f"
			done
			cp "$out/$label.out" "$out/$label.stacks/run$i.out"
		fi
		# shellcheck disable=SC2046 # one pid a word
		kill -KILL $(desc $pid) 2>/dev/null
		wait $pid 2>/dev/null
	else
		if wait $pid; then ok=$((ok + 1)); else fail=$((fail + 1)); fi
	fi
done
echo "$label: runs $runs ok $ok fail $fail hang $hang ($(date -u +%H:%M), load $(cut -d' ' -f1-3 /proc/loadavg))"
