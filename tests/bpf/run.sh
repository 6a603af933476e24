#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/bpf/run.sh: the BPF tests, as root, on the host kernel or in a
# guest (tests/vm/vmrun.sh ... -- tests/bpf/run.sh).  Needs 2 CPUs.
#   - every build/bpf/*.bpf.o loads (the verifier accepts it) and attaches;
#   - the sampler's per-thread arithmetic (tests/bpf/task_test.c);
#   - cosched-monitor over synthetic jobs (busy loops pinned with taskset,
#     a sleeper, a cgroup v2 job) writes CSV that makes sense
#     (tests/bpf/csvcheck.py);
#   - it stops cleanly on SIGINT and SIGTERM (--live too);
#   - afterwards no program, link or map of ours is left.
# TAP; the last line is "N passed, N failed".  About 15 s.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
B=build/bpf
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bpftest.XXXXXX")
passed=0 failed=0
pids=()
cg=""

cleanup() {
	[ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null
	wait 2>/dev/null
	[ -n "$cg" ] && rmdir "$cg" 2>/dev/null
	[ -n "${cgmnt:-}" ] && umount "$cgmnt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ok() { echo "ok - $1"; passed=$((passed + 1)); }
notok() { echo "not ok - $1${2:+ # $2}"; failed=$((failed + 1)); }
verdict() { if [ "$1" -eq 0 ]; then ok "$2"; else notok "$2" "${3:-}"; fi; }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit; }

# A busy loop pinned to one CPU; its pid goes to $busy_pid.
busy() {
	taskset -c "$1" sh -c 'while :; do :; done' >/dev/null 2>&1 &
	busy_pid=$!
	pids+=("$busy_pid")
}

# wait_for FILE PATTERN PID: until monitor PID has started counting (slow
# under TCG: load, attach and the CPU sync take seconds there), at most
# 30 s, or until it died.
wait_for() {
	local end=$((SECONDS + 30))
	while [ $SECONDS -lt $end ] && kill -0 "$3" 2>/dev/null; do
		grep -qs "$2" "$1" && return 0
		sleep 0.1
	done
	return 1
}

# The running monitor's program and map ids, to look for after it exits.
our_ids() {
	bpftool -j prog show name mon_sched_switch 2>/dev/null | python3 -c '
import json, sys
try:
    p = json.load(sys.stdin)
except ValueError:
    p = []
p = p if isinstance(p, list) else [p]
print(" ".join("prog:%d" % x["id"] for x in p) + " " +
      " ".join("map:%d" % m for x in p for m in x.get("map_ids", [])))'
}

if [ "$(id -u)" -ne 0 ]; then
	echo "# needs root (BPF)"; notok "run as root"; finish
fi
if [ -z "${COSCHED_VM:-}" ]; then
	make -s -C bpf >"$tmp/build.log" 2>&1
	verdict $? "build bpf/" "$(tail -n 5 "$tmp/build.log")"
fi
if [ ! -x $B/cosched-monitor ] || [ "$(nproc)" -lt 2 ]; then
	echo "# needs $B/cosched-monitor (make -C bpf) and 2 CPUs"
	notok "prerequisites"; finish
fi

# 1. The verifier accepts every object; every program attaches.
for obj in $B/*.bpf.o; do
	out=$($B/bpf-load-check "$obj" 2>&1)
	verdict $? "load and attach $(basename "$obj")" "$(echo "$out" | tail -n 3 | tr '\n' ' ')"
done

# 1b. The sampler's arithmetic alone (bpf/mon_task.c), against this
# thread's runtime: a switch in the tracepoint missed must not move time
# between intervals.
while IFS= read -r line; do
	case $line in
	"ok - "*) ok "mon_task: ${line#ok - }" ;;
	"not ok - "*) notok "mon_task: ${line#not ok - }" ;;
	"#"*) echo "$line" ;;
	esac
done < <($B/mon-task-test)

# 2. Jobs: "solo" = two busy ranks on CPUs 0 and 1; "sleeper" = a sleep.
busy 0; a0=$busy_pid
busy 1; a1=$busy_pid
sleep 60 & sl=$!; pids+=("$sl")
sleep 0.5	# past exec: a rank still starting up does block
$B/cosched-monitor -d 2 --job solo=$a0,$a1 --job sleeper=$sl \
	--csv "$tmp/solo.csv" 2>"$tmp/solo.err"
verdict $? "monitor: solo run exits 0" "$(head -c 300 "$tmp/solo.err")"

# 3. Competition: job B (two more busy ranks on the same CPUs) is a cgroup.
busy 0; b0=$busy_pid
busy 1; b1=$busy_pid
cgroot=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$cgroot" ]; then
	cgmnt=$tmp/cgroup2
	mkdir -p "$cgmnt" && mount -t cgroup2 none "$cgmnt" && cgroot=$cgmnt
fi
cg=$cgroot/cosched-bpftest.$$
if mkdir "$cg" && echo "$b0" >"$cg/cgroup.procs" && echo "$b1" >"$cg/cgroup.procs"; then
	jobB="--cgroup B=$cg"
else
	echo "# no cgroup v2: job B given by pids"
	jobB="--job B=$b0,$b1"
fi
$B/cosched-monitor -d 2 --job A=$a0,$a1 $jobB --csv "$tmp/comp.csv" 2>"$tmp/comp.err" &
mon=$!
wait_for "$tmp/comp.csv" '^time,' $mon
ids=$(our_ids)
wait $mon
verdict $? "monitor: compete run exits 0" "$(head -c 300 "$tmp/comp.err")"

# 4. What the CSV says.
# Switches the host's kernel did not trace make the degree undercount.
MON_MISSED=$(sed -n 's/^note: \([0-9]*\) switches of tracked threads were not traced.*/\1/p' "$tmp/solo.err")
MON_MISSED=${MON_MISSED:-0} python3 tests/bpf/csvcheck.py "$tmp/solo.csv" "$tmp/comp.csv" >"$tmp/check.out"
while IFS= read -r line; do
	case $line in
	"ok - "*) ok "${line#ok - }" ;;
	"not ok - "*) notok "${line#not ok - }" ;;
	*) echo "$line" ;;
	esac
done <"$tmp/check.out"
[ -s "$tmp/check.out" ] || notok "csvcheck.py ran"

# 5. Signals end it cleanly, the live view included.
$B/cosched-monitor --job A=$a0,$a1 --csv "$tmp/int.csv" 2>"$tmp/int.err" &
mon=$!
wait_for "$tmp/int.csv" '^time,' $mon
sleep 1.5
kill -INT $mon
wait $mon
st=$?
rows=$(grep -c '^[0-9]' "$tmp/int.csv")
[ $st -eq 0 ] && [ "$rows" -ge 3 ]
verdict $? "SIGINT: exit 0 with the intervals so far ($rows rows)" "status $st"

$B/cosched-monitor --live --job A=$a0,$a1 >"$tmp/live.out" 2>"$tmp/live.err" &
mon=$!
wait_for "$tmp/live.out" DEGREE $mon
sleep 1.5
kill -TERM $mon
wait $mon
st=$?
[ $st -eq 0 ] && grep -q DEGREE "$tmp/live.out" && grep -q '^A ' "$tmp/live.out"
verdict $? "SIGTERM: --live redraws a per-job view and exits 0" "status $st"

# 6. Nothing of ours is left: no program, no link to it, no map.
if [ -z "${ids// /}" ]; then
	notok "saw the monitor's program while it ran"
else
	left=""
	progs=$(bpftool -j prog show 2>/dev/null)
	links=$(bpftool -j link show 2>/dev/null)
	maps=$(bpftool -j map show 2>/dev/null)
	for id in $ids; do
		n=${id#*:}
		case $id in
		prog:*)
			echo "$progs" | grep -q "\"id\":$n," && left="$left $id"
			echo "$links" | grep -q "\"prog_id\":$n," && left="$left link-to-$id"
			;;
		map:*)
			echo "$maps" | grep -q "\"id\":$n," && left="$left $id"
			;;
		esac
	done
	[ -z "$left" ] && ! bpftool prog show name mon_sched_switch 2>/dev/null | grep -q .
	verdict $? "after exit: no program, link or map left ($ids)" "left:$left"
fi
finish
