#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The fair-dcs sweep (README.md): every mix x node count x policy x seed,
# one cosched-sim run each, quiet nodes; writes fair.csv (one row per job)
# and prints table.md (per run: the worst compute job's share of its fair
# share, the worst communicating job's completion over its fair-share one;
# then mean and min-max over the seeds).  MIXES, NODES, POLICIES, SEEDS
# and EXTRA (more cosched-sim options) change the sweep.
#   Documentation/results/sim/fair-dcs/run.sh [OUTDIR]
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
out=${1:-$here}
sim="$root/build/bench/cosched-sim"
mixes=${MIXES:-"$here/life-ep.conf pakin-hog 8 7"}
pols=${POLICIES:-"busy-poll local dcs dcs-fair"}
nodes=${NODES:-"2 64"}
seeds=${SEEDS:-5}
csv="$out/fair.csv"
echo "mix,nodes,policy,seed,job,label,kind,share_of_fair,vs_fair" > "$csv"
for m in $mixes; do for n in $nodes; do for p in $pols; do
	for s in $(seq 1 "$seeds"); do
		"$sim" --mix "$m" --nodes "$n" --policy "$p" --seed "$s" $EXTRA \
			--seconds 1 --set stall_per_s=0 --set background_pct=0 |
		awk -v m="$(basename "$m" .conf)" -v n="$n" -v p="$p" -v s="$s" '
			/^mix=/ { split($1, a, "="); name = a[2] }
			/^fair / { kind = ($3 == "ep" || $3 == "hog") ? "compute" : "comm"
				   print name "," n "," p "," s "," $2 "," $3 "," kind "," $4 "," $5 }'
	done
done; done; done >> "$csv"
python3 - "$csv" <<'PY' | tee "$out/table.md"
import csv, sys, statistics as st
runs = {}
for r in csv.DictReader(open(sys.argv[1])):
    k = (r["mix"], int(r["nodes"]), r["policy"])
    run = runs.setdefault(k, {}).setdefault(r["seed"], {"compute": [], "comm": []})
    v = float(r["share_of_fair"] if r["kind"] == "compute" else r["vs_fair"])
    run[r["kind"]].append(v)
def cell(xs, fmt="%.2f"):
    return (fmt + " (" + fmt + "-" + fmt + ")") % (st.mean(xs), min(xs), max(xs))
print("| mix | nodes | policy | compute: share of fair (worst job) | comm: completion / fair-share (worst job) | targets met (seeds) |")
print("|---|---|---|---|---|---|")
for (m, n, p), seeds in runs.items():
    comp = [min(r["compute"]) for r in seeds.values()]
    comm = [max(r["comm"]) for r in seeds.values()]
    met = sum(1 for c, k in zip(comp, comm) if c >= 0.9 and k <= 1.5)
    print("| %s | %d | %s | %s | %s | %d/%d |" % (m, n, p, cell(comp), cell(comm), met, len(comp)))
PY
