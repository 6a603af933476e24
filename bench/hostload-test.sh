#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What bench/run-mix records of the host's other load during a run
# (bench/runner/hostload.py), on the host in a few seconds:
#   - natively, a process that is not run-mix's child spinning for a
#     second shows as at least 0.6 CPUs of other load (more on a busy
#     host: the check cannot fail for that);
#   - in a guest, the mean of the samples vmrun.sh wrote into
#     host-load.csv during the run, the others left out;
#   - run on other hosts (--hosts, --slurm): nothing recorded;
#   - tests/vm/host-load.sh samples a process's host: a spinning
#     stranger counts (that the watched process's own CPU does not is
#     printed, not asserted: a busy host would hide it).
# bench/mix-smoke.sh runs it.  Prints "ok"/"not ok" lines and "N passed,
# N failed".
set -u
cd "$(dirname "$0")/.."
passed=0 failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
nok() { echo "not ok - $*"; failed=$((failed + 1)); }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

got=$(env -u COSCHED_VM -u COSCHED_VMOUT python3 - <<'PY'
import subprocess, sys, time
sys.path.insert(0, "bench")
from runner.hostload import LoadMeter
m = LoadMeter()
tok = m.start()
# A stranger: sh forks the spinner and exits at once, so the spinner is
# reparented and never waited for by this process.
subprocess.run(["sh", "-c", "timeout 1 sh -c 'while :; do :; done' >/dev/null 2>&1 &"])
time.sleep(1.2)
print(m.stop(tok).get("host_others", ""))
PY
)
if awk -v g="$got" 'BEGIN { exit !(g != "" && g + 0 >= 0.6) }'; then
	ok "natively: a stranger spinning for 1 s of 1.2 counts ($got CPUs)"
else
	nok "natively: a stranger spinning for 1 s of 1.2: got '$got' CPUs"
fi

now=$(date +%s)
printf '%s 0.500 0.000\n%s 0.100 0.050\n%s 9.000 0.000\n' \
	$((now - 100)) $((now)) $((now + 100)) >"$t/host-load.csv"
got=$(COSCHED_VM=1 COSCHED_VMOUT=$t python3 - <<'PY'
import sys, time
sys.path.insert(0, "bench")
from runner.hostload import LoadMeter
m = LoadMeter()
print(m._from_samples(time.time() - 10, time.time() + 10))
r = LoadMeter(remote=True)
print(r.stop(r.start()))
PY
)
if [ "$got" = "{'host_others': '0.100', 'host_steal': '0.050'}
{}" ]; then
	ok "in a guest: the host-load.csv samples inside the run, the others left out; none for remote hosts"
else
	nok "in a guest: host-load.csv's samples: $got"
fi

# host-load.sh: the watched process's own CPU is not "other".
sh -c 'timeout 3 sh -c "while :; do :; done"' & own=$!
tests/vm/host-load.sh "$own" "$t/own.csv" 1 & hl=$!
wait "$own"
sleep 1.5
kill "$hl" 2>/dev/null
first=$(head -n 1 "$t/own.csv" 2>/dev/null)
sh -c 'sleep 3' & idle=$!
timeout 2 sh -c 'while :; do :; done' & spin=$!
tests/vm/host-load.sh "$idle" "$t/other.csv" 1 & hl=$!
wait "$spin"
sleep 0.5
kill "$hl" "$idle" 2>/dev/null
stranger=$(head -n 1 "$t/other.csv" 2>/dev/null)
if [ -n "$first" ] && [ -n "$stranger" ] &&
   awk -v s="$stranger" 'BEGIN { split(s, v, " "); exit !(v[2] >= 0.6) }'; then
	ok "host-load.sh: a spinning stranger counts ($stranger); the watched spinner's line: $first"
else
	nok "host-load.sh: stranger '$stranger', watched '$first'"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
