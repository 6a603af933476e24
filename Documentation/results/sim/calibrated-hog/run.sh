#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cosched-sim --validate against a bench/grain-sweep result (one job
# beside a hog on each CPU, a calibrated 6.12 guest): the model of that
# guest (--dilate and its slice, from the result's meta.json), with the
# testbed's autogroup on and off and the background load at a few
# values (not measured for calibrated guests); the emulator's stalls
# off (the calibrated standalone runs leave no room for them).
#
# usage: run.sh RESULT OUT     RESULT: a folder with runs.csv,
#                              standalone.csv and meta.json
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
res=$1 out=$2
sim=$root/build/bench/cosched-sim
[ -x "$sim" ] || make -s -C "$root" sim
mkdir -p "$out/mixes"
# The dilation, the slice and the module's time tunables as the guest
# had them, in native-equivalent time (a tunable the guest left unscaled
# is then shorter than its default: repay_max_debt_us, which
# bench/calibrate scaled only from 2af8ad8 on).
read -r dilate slice_us tunables < <(python3 - "$res/meta.json" <<'PY'
import json, sys
inv = json.load(open(sys.argv[1]))["invocations"][0]["config"]
f = float(inv["options"]["dilate"])
tun = inv["testbed"]["tunables"]
sets = [f"--set {k}={int(tun[k]) / f:g}" for k in
        ("spin_us", "boost_us", "pb_period_us", "budget_window_ms",
         "repay_max_debt_us") if k in tun]
print(f, round(int(inv["testbed"]["sched"]["base_slice_ns"]) / 1000 / f),
      " ".join(sets))
PY
)
python3 - "$root" "$out/mixes" "$res/runs.csv" <<'PY'
import csv, sys
sys.path.insert(0, sys.argv[1] + "/bench")
from runner import grains
mixes = {r["mix"] for r in csv.DictReader(open(sys.argv[3]))}
us = sorted({int(m.split("-")[-1].replace("ms", "000").replace("us", ""))
             for m in mixes})
grains.write_mixes(sys.argv[2], us, ["hog"])
PY
echo "# dilation $dilate, slice $slice_us us native-equivalent, $tunables; $res"
for ag in 0 1; do
	for bg in 2 5 10; do
		f=$out/autogroup$ag-bg$bg.md
		"$sim" --validate --measured "$res/runs.csv" --mixes-dir "$out/mixes" \
			--seconds 1 --dilate "$dilate" --seeds 5 \
			--set eevdf_base_slice_us="$slice_us" --set stall_per_s=0 \
			--set autogroup=$ag --set background_pct=$bg $tunables > "$f" || true
		echo "autogroup $ag, background $bg%: $(grep 'cells compared' "$f")"
	done
done
