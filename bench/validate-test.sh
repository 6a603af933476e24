#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/validate's sides and table, and bench/grain-sweep's, on the host in seconds, with no
# program run (COSCHED_MIX_FAKE, bench/runner/fake.py):
#   - the native side writes one mix per configuration and grain and
#     sweeps them under busy-poll, mpi-yield and gang;
#   - "table" sets a guest side beside it: a guest 10% slower counts as
#     reproduced, 50% slower does not and is named, mpi-yield is never
#     counted (the host's sched_yield differs), a cell whose jobs
#     computed slower than alone or beside other load is marked, and
#     the ratios are counted again at the runs' own computing speed;
#   - --rerun-suspect runs again what was measured beside other load;
#   - bad options and --in-guest outside a calibrated guest are refused;
#   - bench/grain-sweep's guest part stretches the jobs and gang's slice
#     by the dilation, and its table has a row per grain and the best
#     policy against the best baseline.
# bench/mix-smoke.sh runs it.  Prints "ok"/"not ok" lines and "N passed,
# N failed".
set -u
cd "$(dirname "$0")/.."
. bench/tap.sh

t=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "# kept: $t" || trap 'rm -rf "$t"' EXIT
export COSCHED_MIX_FAKE="$t/runs.log" COSCHED_MIX_FAKE_S=0.01

# A dilation in the caller's environment must not reach the native side.
COSCHED_DILATION=3 bench/validate -o "$t" -r 2 -g 100,1000 native >"$t/out" 2>"$t/err"
st=$?
mixes=$(ls "$t/native/mixes" | tr '\n' ' ')
rows=$(grep -c '^| .* | [0-9.]* \[' "$t/out")
if [ "$st" = 0 ] && [ "$mixes" = "val-2j-100us.conf val-2j-1ms.conf val-4j-100us.conf val-4j-1ms.conf val-hog-100us.conf val-hog-1ms.conf " ] &&
   [ "$rows" = 18 ]; then
	ok "native side: 6 mixes, 18 rows with a native figure"
else
	nok "native side: 6 mixes, 18 rows (status $st, mixes: $mixes, rows $rows)"
	sed 's/^/#   /' "$t/err" | tail -n 5
fi
if grep -q '"dilation": ""' "$t/native/mix-results/meta.json" &&
   grep -q '"nodes": 2,' "$t/native/mix-results/meta.json"; then
	ok "native side: no COSCHED_DILATION from the caller, 2 nodes as in the guests"
else
	nok "native side: no COSCHED_DILATION from the caller, 2 nodes as in the guests"
	grep -E '"(dilation|nodes)"' "$t/native/mix-results/meta.json" | sed 's/^/#   /'
fi
# The fake runs take 1.0 s alone; 2 jobs take 1.0 and 1.1 s of an ideal
# 2.0, the second's timed part starting 0.3 s after the first's: the
# completion is the span of both timed parts, 1.4 s (not the slowest
# job's 1.1 s, which would leave out a job held before its timed part):
# 0.70, in every column.
if grep -q '^| 2 jobs (x ideal) | 1ms | busy-poll | 0.70 \[0.70-0.70\] |$' "$t/out" &&
   grep -q '^| 2 jobs (x ideal) | 1ms | gang | 0.70 \[0.70-0.70\] |$' "$t/out" &&
   grep -q '^| 1 job beside a hog on each CPU (x fair share) | 100us | busy-poll | 0.50 ' "$t/out"; then
	ok "native figures: slowdown against the ideal (the timed parts' span), the hog's against the fair share"
else
	nok "native figures: 0.70 x ideal for 2 jobs, 0.50 x fair share beside hogs"
	grep '^| ' "$t/out" | sed 's/^/#   /' | head -n 8
fi
# The standalone run's step (units=) sizes every concurrent run.
if [ "$(grep -c 'val-.*-n 100 -u 777' "$t/runs.log")" = 36 ]; then
	ok "concurrent runs get the standalone run's -n and -u"
else
	nok "concurrent runs get the standalone run's -n and -u"
	head -n 3 "$t/runs.log" | sed 's/^/#   /'
fi

# A guest side: busy-poll 10% slower, gang 50%, mpi-yield 3x; and one
# at a forced dilation, as it is.
mkdir -p "$t/6.12" "$t/6.1:1"
cp -r "$t/native/mix-results" "$t/6.12/"
cp -r "$t/native/mix-results" "$t/6.1:1/"
python3 - "$t/6.12/mix-results/runs.csv" <<'EOF'
import csv, sys
path = sys.argv[1]
rows = list(csv.DictReader(open(path, newline="")))
scale = {"busy-poll": 1.1, "gang": 1.5, "mpi-yield": 3.0}
for r in rows:
    r["completion_s"] = f"{float(r['completion_s']) * scale[r['column']]:.3f}"
    if (r["mix"], r["column"]) == ("val-2j-100us", "busy-poll"):
        r.update(status="timeout", completion_s="", makespan_wall_s="9.0")
    if (r["mix"], r["column"]) == ("val-4j-1ms", "gang"):
        r["job_speed"] = "1.0000;0.9000;1.0000;1.0000"  # a loaded host
    if (r["mix"], r["column"]) == ("val-2j-1ms", "gang"):
        r["job_speed"] = "0.6667;0.6667"  # 1.5 times slower: all of it speed
    if (r["mix"], r["column"]) == ("val-hog-100us", "gang"):
        r["host_others"] = "0.600"  # other processes beside it
with open(path, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=rows[0].keys())
    w.writeheader()
    w.writerows(rows)
EOF
# Autogroup on natively and in 6.1:1, off in 6.12: named.
python3 - "$t" <<'EOF'
import json, sys
for side, ag in (("native", "1"), ("6.1:1", "1"), ("6.12", "0")):
    path = f"{sys.argv[1]}/{side}/mix-results/meta.json"
    meta = json.load(open(path))
    for inv in meta["invocations"]:
        inv["config"]["testbed"].setdefault("sched", {})["sched_autogroup_enabled"] = ag
    json.dump(meta, open(path, "w"))
EOF
bench/validate -o "$t" -g 100,1000 table >"$t/out2" 2>&1
st=$?
if [ "$st" = 0 ] && grep -q '^17 of 24 guest figures within 20% of native' "$t/out2" &&
   grep -q '^| 2 jobs (x ideal) | 100us | busy-poll | .* | > 9 s (timeout) | t |$' "$t/out2" &&
   grep -q '6.12 val-2j-100us busy-poll: timed out' "$t/out2" &&
   grep -q '^| configuration | grain | column | native | 6.1:1 guest | ratio | 6.12 guest | ratio |$' "$t/out2" &&
   grep -q '^| 4 jobs (x ideal) | 100us | busy-poll | .* | 1.00 | .* | 1.10 |$' "$t/out2" &&
   grep -q '^| 4 jobs (x ideal) | 100us | gang | .* | 1.50 ! |$' "$t/out2" &&
   grep -q '^| 4 jobs (x ideal) | 100us | mpi-yield | .* | 3.00 (m) |$' "$t/out2" &&
   grep -q '^! outside.*: .*6.12 val-hog-1ms gang: 1.50' "$t/out2" &&
   grep -q '^Scheduler settings unlike native.*: 6.12 sched_autogroup_enabled 0 (native 1)\.$' "$t/out2" &&
   [ -s "$t/table.md" ]; then
	ok "table: 1.10 reproduced, 1.50 and a timed-out cell named outside, mpi-yield not counted, 6.12's autogroup unlike native's named; table.md written"
else
	nok "table: guest against native (status $st)"
	sed 's/^/#   /' "$t/out2" | tail -n 8
fi
# Each run records the host's other load (a cell beside 0.6 busy CPUs is
# marked ~ and named) and how fast its jobs computed against their
# standalone runs (alike natively; a job 10% slower is noted, not marked).
if [ "$(grep -c '~' "$t/out2")" = 2 ] &&
   grep -q '^| 1 job beside a hog on each CPU (x fair share) | 100us | gang | [0-9.]* \[[0-9.-]*\] | .* | [0-9.]* \[[0-9.-]*\] ~ | 1.50 ! |$' "$t/out2" &&
   grep -q '^~ other processes .*runs it again: 6.12 val-hog-100us gang: host busy 0.60 CPUs$' "$t/out2" &&
   grep -q '^Jobs computed more than 5% faster or slower than alone .*: 6.12 val-2j-1ms gang: 0.67-0.67; 6.12 val-4j-1ms gang: 0.90-1.00$' "$t/out2" &&
   ! grep -q 'no record of the host' "$t/out2" &&
   grep -q '"job_speed": "1.0000;1.0000"' "$t"/native/mix-results/cells/*; then
	ok "table: a run beside 0.6 busy CPUs is marked ~ and named, one that computed 10% slower is noted"
else
	nok "table: load and speed notes (status $st)"
	sed 's/^/#   /' "$t/out2" | tail -n 4
fi
# The diagnostic at the runs' own speed: a cell 1.5 times slower whose
# jobs computed 1.5 times slower than alone comes within; the others not.
if grep -q "^At the runs' own computing speed .*: 18 of 23 within 20%; outside: 6.12 val-2j-100us gang: 1.50; 6.12 val-4j-100us gang: 1.50; 6.12 val-4j-1ms gang: 1.50; 6.12 val-hog-100us gang: 1.50; 6.12 val-hog-1ms gang: 1.50\.$" "$t/out2"; then
	ok "table: at the runs' own speed, the cell whose jobs computed 1.5x slower comes within"
else
	nok "table: at the runs' own speed: $(grep "^At the runs'" "$t/out2")"
fi

# --rerun-suspect: a run beside other load is run again; so is every run
# of a grain whose standalone run was (its -n, -u and ideal came from it).
python3 - "$t/native/mix-results" <<'PY'
import glob, json, sys
d = sys.argv[1]
def mark(pattern, others):
    for p in glob.glob(f"{d}/{pattern}"):
        rec = json.load(open(p))
        rec["row"]["host_others"] = others
        json.dump(rec, open(p, "w"))
mark("cells/val-2j-1ms_busy-poll_1.*.json", "0.900")
mark("standalone/grain--c-100-*.json", "0.800")
PY
: >"$t/runs.log"
bench/validate -o "$t" -r 2 -g 100,1000 --rerun-suspect native >"$t/out3" 2>&1
st=$?
again=$(grep -c '^run-mix: again: ' "$t/out3")
if [ "$st" = 0 ] && [ "$again" = 20 ] &&
   grep -q 'again: val-2j-1ms_busy-poll_1\..*\.json\.suspect\.1 (host busy 0.90 CPUs)$' "$t/out3" &&
   [ "$(grep -c '^standalone_grain_-c_100_' "$t/runs.log")" = 3 ] &&
   [ "$(grep -c '^val-.*-100us_' "$t/runs.log")" = 18 ] &&
   [ "$(grep -c '^val-.*-1ms_' "$t/runs.log")" = 1 ] &&
   [ "$(ls "$t"/native/mix-results/cells/*.suspect.1 | wc -l)" = 19 ] &&
   [ "$(ls "$t"/native/mix-results/standalone/*.suspect.1 | wc -l)" = 1 ] &&
   [ "$(grep -c '^val-2j-1ms,busy-poll,1,' "$t/native/mix-results/runs.csv")" = 1 ]; then
	ok "--rerun-suspect: the run beside load and the suspect standalone run's grain run again (20 set aside)"
else
	nok "--rerun-suspect (status $st, $again set aside)"
	sed 's/^/#   /' "$t/runs.log" | head -n 5
	ls "$t"/native/mix-results/standalone | sed 's/^/#   /'
fi

# A suspect standalone run sets aside every run it sized, timed out or
# not, its mix in this sweep or not (grain-sweep -c hog sweeps the hog
# mixes alone): the 2- and 4-job runs of its grain wait for their next
# sweep rather than keep an ideal measured beside load.
python3 - "$t/native/mix-results" <<'PY'
import glob, json, sys
d = sys.argv[1]
for pattern, field, value in (("standalone/grain--c-100-*.json", "host_others", "0.800"),
                              ("cells/val-2j-100us_gang_2.*.json", "status", "timeout")):
    for p in glob.glob(f"{d}/{pattern}"):
        rec = json.load(open(p))
        rec["row"][field] = value
        json.dump(rec, open(p, "w"))
PY
set -- $(sed -n 's/^validate: native: //p' "$t/out3" | head -n 1)
cmd=
for a; do case $a in *.conf) ;; *) cmd="$cmd $a" ;; esac; done
: >"$t/runs.log"
$cmd "$t/native/mixes/val-hog-100us.conf" >"$t/out4" 2>&1
st=$?
if [ "$st" = 0 ] && [ "$(ls "$t"/native/mix-results/cells/val-*-100us_*.suspect.2 | wc -l)" = 18 ] &&
   [ "$(grep -c '^val-hog-100us_' "$t/runs.log")" = 6 ] &&
   [ "$(grep -c '^val-[24]j-100us_' "$t/runs.log")" = 0 ] &&
   ! grep -q '^val-[24]j-100us,' "$t/native/mix-results/runs.csv"; then
	ok "a suspect standalone run sets aside all 18 runs it sized (a timeout, mixes not swept); the hog mix's 6 run again"
else
	nok "suspect standalone run, hog mix alone (status $st): $(ls "$t"/native/mix-results/cells/ | grep -c 'suspect.2') set aside"
	sed 's/^/#   /' "$t/out4" | tail -n 4
fi

bench/validate -o "$t" -g 10,x native >/dev/null 2>&1
[ $? = 2 ] && ok "-g 10,x refused (status 2)" || nok "-g 10,x refused (status 2)"
bench/validate -o "$t" 6.12:0 >/dev/null 2>&1
[ $? = 2 ] && ok "6.12:0 refused (status 2)" || nok "6.12:0 refused (status 2)"
bench/validate -o "$t" table native >/dev/null 2>&1
[ $? = 2 ] && ok "table with another side refused (status 2)" ||
	nok "table with another side refused (status 2)"
out=$(env -u COSCHED_DILATION bench/validate --in-guest -o "$t" 2>&1)
st=$?
if [ "$st" = 1 ] && printf '%s' "$out" | grep -q 'not in a calibrated guest'; then
	ok "--in-guest without COSCHED_DILATION refused"
else
	nok "--in-guest without COSCHED_DILATION refused (status $st: $out)"
fi
# --slice-rule reaches vmrun.sh (default quantum); a rule that is none is refused.
if python3 - <<'PY'
import argparse, sys
sys.path.insert(0, "bench")
from runner import grains
for given, want in (([], "quantum"), (["--slice-rule", "scale"], "scale")):
    p = argparse.ArgumentParser(add_help=False)
    grains.add_options(p, "100", 60)
    o = p.parse_args(given)
    cmd = grains.guest_command(".", "6.12", o, "/tmp/x", "bench/validate", [])
    assert cmd[cmd.index("--slice-rule") + 1] == want, cmd
PY
then
	ok "--slice-rule passed to vmrun.sh (quantum by default)"
else
	nok "--slice-rule passed to vmrun.sh"
fi
bench/validate -o "$t" --slice-rule tick 6.12 >/dev/null 2>&1
[ $? = 2 ] && ok "--slice-rule tick refused (status 2)" || nok "--slice-rule tick refused (status 2)"
bench/validate -o "$t/empty" table >/dev/null 2>&1
[ $? = 1 ] && ok "table of an empty directory: status 1" ||
	nok "table of an empty directory: status 1"

# bench/grain-sweep: its guest part at dilation 2 (fake runs), its table.
g=$t/sweep
mkdir -p "$g"
COSCHED_DILATION=2 COSCHED_VMOUT=$g bench/grain-sweep --in-guest -g 10,100 \
	-p local,dcs,busy-poll,gang -r 2 >"$g/out" 2>&1
st=$?
if [ "$st" = 0 ] && grep -q '"dilate": 2.0' "$g/mix-results/meta.json" &&
   grep -q '"gang_slice": 200' "$g/mix-results/meta.json" &&
   grep -q '^standalone_grain_-c_10_t2 -t 2$' "$t/runs.log" &&
   [ "$(ls "$g/mixes" | wc -l)" = 6 ]; then
	ok "grain-sweep in a guest at dilation 2: 6 mixes, jobs of 2 s, gang slice 200 ms"
else
	nok "grain-sweep in a guest at dilation 2 (status $st)"
	tail -n 3 "$g/out" | sed 's/^/#   /'
fi
# One run of the 2-job 10 us dcs cell beside other load, its jobs
# computing at two thirds of their standalone speed.
python3 - "$g/mix-results/runs.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
for r in rows:
    if (r["mix"], r["column"], r["repeat"]) == ("val-2j-10us", "dcs", "1"):
        r["host_others"] = "0.700"
        r["job_speed"] = "0.6667;0.6667"
with open(sys.argv[1], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=rows[0].keys())
    w.writeheader()
    w.writerows(rows)
PY
bench/grain-sweep table -o "$g" -g 10,100 >"$g/table" 2>&1
st=$?
if [ "$st" = 0 ] && [ "$(grep -c '^| 10us | ' "$g/table")" = 6 ] &&
   grep -q '^| grain | local | dcs | busy-poll | gang | best policy / best baseline |$' "$g/table" &&
   grep -q '^| 100us | 0.50 .* | 1.00 (dcs / busy-poll) |$' "$g/table" &&
   [ "$(grep -c ' ~ |' "$g/table")" = 1 ] && grep -q '^~ during some run' "$g/table" &&
   [ "$(grep -c "^The jobs' speed, " "$g/table")" = 3 ] &&
   grep -q '^| 10us | 1.00 \[1.00-1.00\] | 0.83 \[0.67-1.00\] | 1.00 \[1.00-1.00\] | 1.00 \[1.00-1.00\] |$' "$g/table" &&
   [ -s "$g/table.md" ]; then
	ok "grain-sweep table: a row per grain for each configuration, best policy against best baseline, a cell beside other load marked ~, the jobs' speed per cell"
else
	nok "grain-sweep table (status $st)"
	sed 's/^/#   /' "$g/table" | head -n 8
fi
bench/grain-sweep table >/dev/null 2>&1
[ $? = 2 ] && ok "grain-sweep table without -o refused" || nok "grain-sweep table without -o refused"
bench/grain-sweep -c 3j 6.12 >/dev/null 2>&1
[ $? = 2 ] && ok "grain-sweep -c 3j refused" || nok "grain-sweep -c 3j refused"
bench/grain-sweep 5.10 >/dev/null 2>&1
[ $? = 2 ] && ok "grain-sweep 5.10 refused" || nok "grain-sweep 5.10 refused"

tap_end
