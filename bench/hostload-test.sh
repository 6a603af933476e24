#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What bench/run-mix records of the host's other load during a run
# (bench/runner/hostload.py), on the host in a few seconds:
#   - natively, a process that is not run-mix's child spinning for a
#     second shows as at least 0.6 CPUs of other load (more on a busy
#     host: the check cannot fail for that), a child of its as its own;
#   - in a guest, the mean of the samples vmrun.sh appended to
#     host-load.csv during the run, the others left out;
#   - run on other hosts (--hosts, --slurm): nothing recorded;
#   - tests/vm/host-load.sh samples a process's host: a spinning
#     stranger counts, the watched process's own spinning does not;
#     its aux column counts the watched process's threads other than
#     those named as vCPUs, and is left out where none is.
# bench/mix-smoke.sh runs it.  Prints "ok"/"not ok" lines and "N passed,
# N failed".
set -u
cd "$(dirname "$0")/.."
. bench/tap.sh
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

# A child of run-mix's, waited for, is the run's own: spinning 1 s of
# 1.2 it must read at least 0.5 CPUs below the stranger's figure taken
# just before (whatever else loads the host loads both alike).
# Bursty load beside the test can make the second window busier than
# the first: three tries.
for try in 1 2 3; do
	own=$(env -u COSCHED_VM -u COSCHED_VMOUT python3 - <<'PY'
import subprocess, sys, time
sys.path.insert(0, "bench")
from runner.hostload import LoadMeter
m = LoadMeter()
tok = m.start()
p = subprocess.Popen(["timeout", "1", "sh", "-c", "while :; do :; done"])
time.sleep(1.2)
p.wait()
print(m.stop(tok).get("host_others", ""))
PY
)
	awk -v g="$got" -v o="$own" 'BEGIN { exit !(o != "" && g - o >= 0.5) }' && break
done
if awk -v g="$got" -v o="$own" 'BEGIN { exit !(o != "" && g - o >= 0.5) }'; then
	ok "natively: a child spinning as long is the run's own ($own CPUs against $got)"
else
	nok "natively: a waited-for child spinning 1 s: '$own' CPUs against the stranger's '$got'"
fi

# samples_during FILE TEXT: run-mix's record, in a guest, of a run
# during which TEXT was appended to FILE (the sample after it waited for
# half a second at most).
samples_during() {
	COSCHED_VM=1 COSCHED_VMOUT=$t python3 - "$1" "$2" <<'PY'
import sys
sys.path.insert(0, "bench")
from runner.hostload import LoadMeter
m = LoadMeter(next_sample_s=0.5)
m.samples = sys.argv[1]
tok = m.start()
with open(sys.argv[1], "a") as f:
    f.write(sys.argv[2])
print(m.stop(tok))
PY
}

# In a guest: the lines vmrun.sh appended while the run ran, by the
# file's size before and after (no clock shared), a line cut short left
# out; none for a run on remote hosts.
printf '1 0.500 0.000\n' >"$t/host-load.csv"
got=$(samples_during "$t/host-load.csv" "2 0.100 0.050
3 0.300 0.150
4 9.0")
remote=$(python3 -c 'import sys
sys.path.insert(0, "bench")
from runner.hostload import LoadMeter
r = LoadMeter(remote=True)
print(r.stop(r.start()))')
if [ "$got" = "{'host_others': '0.200', 'host_steal': '0.100'}" ] && [ "$remote" = "{}" ]; then
	ok "in a guest: the host-load.csv lines appended during the run, a partial one left out; none for remote hosts"
else
	nok "in a guest: host-load.csv's samples: $got; remote: $remote"
fi
# The aux column (QEMU's threads but its vCPUs): the mean, where there.
printf '1 0.500 0.000 0.900\n' >"$t/aux.csv"
got=$(samples_during "$t/aux.csv" "2 0.100 0.050 0.300
3 0.300 0.150 0.500
")
if [ "$got" = "{'host_others': '0.200', 'host_steal': '0.100', 'host_qemu_aux': '0.400'}" ]; then
	ok "in a guest: QEMU's aux threads recorded as the samples' mean (0.400)"
else
	nok "in a guest: host_qemu_aux: got '$got', want 0.400"
fi

# A sample tells of the seconds before it: the one appended after the
# run (beside a quiet one during it) is the run's too, the one after
# that is not.  The file's size as stop() polls it is made up.
printf '2 0.000 0.000\n3 0.900 0.000\n4 0.700 0.000\n' >"$t/next.csv"
got=$(COSCHED_VM=1 COSCHED_VMOUT=$t python3 - "$t/next.csv" <<'PY'
import sys
sys.path.insert(0, "bench")
from runner.hostload import LoadMeter
m = LoadMeter()
m.samples = sys.argv[1]
line = len("2 0.000 0.000\n")
sizes = iter([0, line, line, 2 * line])   # start, stop, polls
m._size = lambda: next(sizes, 2 * line)  # nothing appended later
print(m.stop(m.start())["host_others"])
PY
)
if [ "$got" = 0.450 ]; then
	ok "in a guest: the sample after the run counts, the next one not (0.450)"
else
	nok "in a guest: the sample after the run: got '$got', want 0.450"
fi

# host-load.sh: a spinning stranger counts; the watched process's own
# spinning does not (QEMU's time is not "other").  Whatever else loads the
# host loads both measurements alike, so the stranger's must come out at
# least 0.4 CPUs above the watched one's.
sh -c 'while :; do :; done' & own=$!
tests/vm/host-load.sh "$own" "$t/own.csv" 1 & hl=$!
sleep 2.5
kill "$hl" "$own" 2>/dev/null
wait "$own" 2>/dev/null
sleep 3 & idle=$!
sh -c 'while :; do :; done' & spin=$!
tests/vm/host-load.sh "$idle" "$t/other.csv" 1 & hl=$!
sleep 2.5
kill "$hl" "$spin" "$idle" 2>/dev/null
wait "$spin" 2>/dev/null
watched=$(awk 'NR == 1 { print $2 }' "$t/own.csv" 2>/dev/null)
stranger=$(awk 'NR == 1 { print $2 }' "$t/other.csv" 2>/dev/null)
if [ -n "$watched" ] && [ -n "$stranger" ] &&
   awk -v w="$watched" -v s="$stranger" 'BEGIN { exit !(s >= 0.6 && s - w >= 0.4) }'; then
	ok "host-load.sh: a spinning stranger counts ($stranger CPUs), the watched spinner not ($watched)"
else
	nok "host-load.sh: stranger '$stranger' CPUs, watched spinner '$watched'"
fi

# aux: the watched process's threads other than its vCPUs ("CPU n/TCG"):
# a spinning thread named as a vCPU is not aux, a spinning helper beside
# it is; a process with no thread named so (the plain spinner above)
# gets no aux column at all.
python3 -c '
import threading, time
def spin(name):
    if name:
        with open(f"/proc/self/task/{threading.get_native_id()}/comm", "w") as f:
            f.write(name)
    while True:
        pass
threading.Thread(target=spin, args=("CPU 0/TCG",), daemon=True).start()
threading.Thread(target=spin, args=("",), daemon=True).start()
time.sleep(4)' & vcpu=$!
sleep 0.3
tests/vm/host-load.sh "$vcpu" "$t/vcpu.csv" 1 & hl=$!
sleep 2.5
kill "$hl" "$vcpu" 2>/dev/null
wait "$vcpu" 2>/dev/null
fields=$(awk 'NR == 1 { print NF }' "$t/own.csv" 2>/dev/null)
aux=$(awk 'NR == 1 { print $4 }' "$t/vcpu.csv" 2>/dev/null)
if [ "$fields" = 3 ] && [ -n "$aux" ] &&
   awk -v a="$aux" 'BEGIN { exit !(a >= 0.3 && a <= 1.2) }'; then
	ok "host-load.sh: aux is the helper thread's CPU ($aux), not the vCPU's; none without named vCPUs"
else
	nok "host-load.sh: aux of a vCPU and a helper spinning: '$aux'; fields without named vCPUs: '$fields'"
fi

tap_end
