#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench/run-mix's resuming, on the host in a few seconds, with no program
# run: COSCHED_MIX_FAKE makes every run a short sleep with made-up times
# (bench/runner/fake.py).  One mix, three columns, two repeats (6 cells):
#   - each job runs alone three times, the later runs doing the first's
#     work;
#   - a sweep killed (SIGKILL) in its second cell, restarted with the same
#     command, does not run the first cell again and finishes the rest;
#   - the progress line counts cells and gives an ETA;
#   - a cell file cut short is removed and that cell alone is run again;
#   - the same directory under another -t is refused, nothing run;
#   - bench/report reads the result;
#   - the ETA's arithmetic (this run's cells only), on a made-up clock;
#   - --dilate stretches -t and gang's slice by $COSCHED_DILATION;
#   - the host's load as recorded per run, and --rerun-suspect's
#     setting aside of a loaded standalone run and the run it made.
# bench/mix-smoke.sh runs it (make check's "mix bench smoke").  Prints
# "ok"/"not ok" lines and "N passed, N failed".  KEEP=1 keeps (and names)
# its directory.
set -u
cd "$(dirname "$0")/.."
. bench/tap.sh

t=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$t"' EXIT
if [ -n "${KEEP:-}" ]; then
	trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null' EXIT
	echo "# kept: $t"
fi
export COSCHED_MIX_FAKE="$t/runs.log" COSCHED_MIX_FAKE_S=0.05
r=$t/mix-results
sweep() { bench/run-mix -o "$r" -p local,dcs,busy-poll -r 2 "$@" 12; }
runs() { if [ -f "$t/runs.log" ]; then wc -l <"$t/runs.log"; else echo 0; fi; }

# 1. Killed in its second cell: the fake's fifth run (the first three
# are the standalone runs) hangs until killed.
# Not through sweep(): $! must be run-mix itself, not a subshell.
COSCHED_MIX_FAKE_HANG=5 bench/run-mix -o "$r" -p local,dcs,busy-poll -r 2 -t 1 12 \
	>"$t/out1" 2>"$t/err1" &
pid=$!
i=0
while [ "$(runs)" -lt 5 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
pid=
first=$(ls "$r"/cells/mix12_local_1.*.json 2>/dev/null)
if [ "$(runs)" -eq 5 ] && [ -n "$first" ] && [ "$(ls "$r/cells" | wc -l)" -eq 1 ]; then
	ok "killed in its second cell: the first cell is on disk, nothing else"
else
	nok "killed sweep: $(runs) runs, cells: $(ls "$r/cells" 2>/dev/null | tr '\n' ' ')"
	cat "$t/err1"
fi
# The job ran alone three times (--standalone-repeats' default): sized by
# -t first, then doing that run's work (its -n); the time is their median.
alone=$(head -n 3 "$t/runs.log" | tr '\n' '|')
if [ "$alone" = "standalone_life_-v_hi_t1 -t 1|standalone_life_-v_hi_t1_s2 -n 100|standalone_life_-v_hi_t1_s3 -n 100|" ] &&
   grep -q '"time_runs_s": "1.300;0.900;1.000"' "$r"/standalone/*.json &&
   grep -q '"time_s": "1.000"' "$r"/standalone/*.json &&
   grep -q '"comm_pct": "10"' "$r"/standalone/*.json; then
	ok "standalone: three runs, the second and third doing the first's iterations; the median's time and communication"
else
	nok "standalone: three runs ($alone)"
fi
[ -n "$first" ] && cp "$first" "$t/first.json"

# 2. The same command again: runs the 5 other cells and nothing else.
: >"$t/runs.log"
if sweep -t 1 >"$t/out2" 2>"$t/err2"; then st=0; else st=$?; fi
if [ $st -eq 0 ] && [ "$(runs)" -eq 5 ] && ! grep -q 'mix12_local_r1\|standalone' "$t/runs.log" &&
   [ "$(ls "$r/cells" | wc -l)" -eq 6 ] && cmp -s "$t/first.json" "$first"; then
	ok "restarted: 5 cells run, the first one kept as it was"
else
	nok "restarted: exit $st, runs: $(tr '\n' ' ' <"$t/runs.log"), cells $(ls "$r/cells" | wc -l)"
	cat "$t/err2"
fi
if grep -q '^mix-results [^:]*: 1/6 cells, ' "$t/out2" &&
   grep -Eq '^mix-results [^:]*: 2/6 cells, [0-9hms]+ elapsed, ETA [0-9hms]+ \(mean [0-9hms]+ per cell, this run\)$' "$t/out2" &&
   grep -q '^mix-results [^:]*: 6/6 cells, .*done' "$t/out2"; then
	ok "progress lines: 1/6 on restart, then an ETA, then 6/6 done"
else
	nok "progress lines:"
	cat "$t/out2"
fi
if [ "$(sed 1d "$r/runs.csv" | wc -l)" -eq 6 ]; then
	ok "runs.csv has the 6 runs"
else
	nok "runs.csv: $(sed 1d "$r/runs.csv" | wc -l) rows"
fi

# 3. A cell cut short (a copy, a full disk) and a write never finished.
cut=$(ls "$r"/cells/mix12_dcs_2.*.json)
head -c $(($(wc -c <"$cut") / 2)) "$cut" >"$t/half" && cp "$t/half" "$cut"
echo '{"format": 1' >"$r/cells/mix12_busy-poll_2.x.json.tmp123"
: >"$t/runs.log"
if sweep -t 1 >"$t/out3" 2>"$t/err3" && [ "$(runs)" -eq 1 ] &&
   grep -q 'mix12_dcs_r2' "$t/runs.log" && python3 -m json.tool "$cut" >/dev/null &&
   ! ls "$r/cells" | grep -q tmp && grep -q 'not whole' "$t/err3" &&
   cmp -s "$t/half" "$cut.torn"; then
	ok "a cell cut short is run again, alone, and kept as .torn; the unfinished write is removed"
else
	nok "cut cell: runs: $(tr '\n' ' ' <"$t/runs.log")"
	cat "$t/err3"
fi

# 4. Another configuration in the same directory: refused, nothing run.
: >"$t/runs.log"
if sweep -t 2 >"$t/out4" 2>"$t/err4"; then st=0; else st=$?; fi
if [ $st -eq 1 ] && [ "$(runs)" -eq 0 ] && grep -q 'another configuration' "$t/err4" &&
   grep -q 'options.seconds: 1.0 -> 2.0' "$t/err4"; then
	ok "another -t in the same directory is refused, saying what differs"
else
	nok "changed configuration: exit $st, $(runs) runs"
	cat "$t/err4"
fi

# 5. The report reads what the sweep wrote.
if bench/report -o "$t/report" "$r" 2>&1 | grep -Eq '^\| mix12 \|.*x[0-9.]+.*\|.*x[0-9.]+'; then
	ok "bench/report prints mix12's row"
else
	nok "bench/report on the resumed directory"
fi
# 6. The ETA's arithmetic, on a made-up clock: 4 of 10 cells on disk, this
# run does two of 60 s each: 4 left at 60 s, and a later sweep of 10.
got=$(python3 - <<'PY'
import io, sys
sys.path.insert(0, "bench")
from runner.progress import Progress
now = [0.0]
out = io.StringIO()
p = Progress("mix-results 6.12", 10, 4, sweeps_after=1, clock=lambda: now[0], out=out)
for t in (90.0, 150.0):
    now[0] = t
    p.cell_done(60.0)
print(out.getvalue().splitlines()[-1])
PY
)
want='mix-results 6.12: 6/10 cells, 2m30s elapsed, ETA 4m00s (mean 1m00s per cell, this run), then 1 more sweep(s): up to 10m00s'
if [ "$got" = "$want" ]; then
	ok "the ETA counts this run's cells only"
else
	nok "progress line: got '$got'"
fi
# 7. --dilate: -t and gang's slices are native-equivalent, times
# $COSCHED_DILATION (a calibrated guest's); a bad factor is refused.
d=$t/dilated
: >"$t/runs.log"
if COSCHED_DILATION=2.5 bench/run-mix --dilate -o "$d" -p gang,gang:40 -r 1 \
	--standalone-repeats 1 -t 2 12 >"$t/outd" 2>&1 &&
   grep -q '^standalone_life_-v_hi_t5 -t 5$' "$t/runs.log" &&
   grep -q '^mix12_gang_r1 .* gang=250$' "$t/runs.log" &&
   grep -q '^mix12_gang40_r1 .* gang=100$' "$t/runs.log" &&
   grep -q '"gang_slice": 250,' "$d/meta.json" && grep -q '"dilate": 2.5' "$d/meta.json"; then
	ok "--dilate at 2.5: jobs of 5 s for -t 2, gang's slice 250 ms, gang:40's 100 ms"
else
	nok "--dilate at 2.5: $(head -n 2 "$t/runs.log" | tr '\n' '|') $(tail -n 2 "$t/outd")"
fi
out=$(env -u COSCHED_DILATION COSCHED_VM=1 bench/run-mix --dilate -o "$t/bad0" -p gang 12 2>&1)
if [ $? = 1 ] && printf '%s' "$out" | grep -q 'guest booted without vmrun.sh --calibrated'; then
	ok "--dilate refused in a guest that is not calibrated"
else
	nok "--dilate in an uncalibrated guest: $out"
fi
out=$(COSCHED_DILATION=fast bench/run-mix --dilate -o "$t/bad" -p gang 12 2>&1)
if [ $? = 1 ] && printf '%s' "$out" | grep -q 'COSCHED_DILATION=fast is not a factor'; then
	ok "--dilate refuses COSCHED_DILATION=fast"
else
	nok "--dilate with COSCHED_DILATION=fast: $out"
fi
# 8. The host's load: the most of the standalone runs' that are known
# (one unknown hides none), steal too; every run carries its standalone
# runs'.  --rerun-suspect sets the loaded standalone run aside with the
# run it made, keeping their logs, and runs both again.
l=$t/load
: >"$t/runs.log"
COSCHED_MIX_FAKE_LOAD="0.8,,0:0.5" bench/run-mix -o "$l" -p busy-poll -r 1 -t 1 12 \
	>"$t/outl" 2>&1
if grep -q '"host_others": "0.800"' "$l"/standalone/*.json &&
   grep -q '"host_steal": "0.500"' "$l"/standalone/*.json &&
   grep -q '"standalone_others": "0.800"' "$l"/cells/*.json &&
   grep -q '"standalone_keys": "life|-v hi|' "$l"/cells/*.json; then
	ok "load: the standalone runs' most (0.8 beside an unknown), their steal; the run carries it"
else
	nok "load: $(grep -h '"host_\|standalone_others' "$l"/standalone/*.json "$l"/cells/*.json | tr -d ' \n')"
fi
: >"$t/runs.log"
bench/run-mix -o "$l" -p busy-poll -r 1 -t 1 --rerun-suspect 12 >"$t/outl2" 2>&1
if [ "$(grep -c '^run-mix: again: ' "$t/outl2")" = 2 ] &&
   [ "$(grep -c '_again2' "$t/runs.log")" = 4 ] &&
   [ "$(cat "$l/logs/standalone_life_-v_hi_t1_j1.out")" = "fake run 1" ] &&
   [ "$(cat "$l/logs/mix12_busy-poll_r1_j1.out")" = "fake run 4" ] &&
   [ -f "$l/logs/mix12_busy-poll_r1_again2_j1.out" ]; then
	ok "--rerun-suspect: the loaded standalone run and its run again, under new log names; the old logs kept"
else
	nok "--rerun-suspect with a loaded standalone run: $(tr '\n' '|' <"$t/runs.log")"
	sed 's/^/#   /' "$t/outl2" | tail -n 4
fi
# A standalone run lost (a torn file, a sweep stopped between setting it
# aside and its runs): measured again, and the run it sized with it.
rm -f "$l"/standalone/*.json
: >"$t/runs.log"
bench/run-mix -o "$l" -p busy-poll -r 1 -t 1 12 >"$t/outl3" 2>&1
if grep -q '^run-mix: again: mix12_busy-poll_1\..*(its standalone run is measured again)$' "$t/outl3" &&
   [ "$(grep -c '^mix12_busy-poll_r1' "$t/runs.log")" = 1 ]; then
	ok "a standalone run measured again takes the run it sized with it"
else
	nok "lost standalone run: $(tr '\n' '|' <"$t/runs.log")"
	sed 's/^/#   /' "$t/outl3" | tail -n 3
fi
# A calibrated guest's slice rule and host quantum: in each cell's
# provenance, not in its compared config (another quantum still resumes).
COSCHED_SLICE_RULE=quantum COSCHED_HOST_QUANTUM_MS=3.98 \
	bench/run-mix -o "$t/rule" -p busy-poll -r 1 -t 1 12 >/dev/null 2>&1
COSCHED_SLICE_RULE=quantum COSCHED_HOST_QUANTUM_MS=3.97 \
	bench/run-mix -o "$t/rule" -p busy-poll -r 2 -t 1 12 >"$t/rule.out" 2>&1
st=$?
if [ $st = 0 ] && python3 - "$t/rule/cells" <<'PY'
import glob, json, sys
p = [json.load(open(f))["provenance"] for f in sorted(glob.glob(sys.argv[1] + "/mix12_*.json"))]
assert [(x["slice_rule"], x["host_quantum_ms"]) for x in p] == [("quantum", "3.98"), ("quantum", "3.97")], p
PY
then
	ok "slice rule and host quantum recorded per cell, a new quantum resumes"
else
	nok "slice rule in provenance (status $st)"
	tail -n 3 "$t/rule.out" | sed 's/^/#   /'
fi
bench/run-mix --gang-slice 0 -p gang -o "$t/bad2" 12 >/dev/null 2>&1
[ $? = 2 ] && ok "--gang-slice 0 refused (status 2)" || nok "--gang-slice 0 refused (status 2)"
tap_end
