# SPDX-License-Identifier: GPL-2.0
"""bench/validate's table: each guest's figures beside the host's, for the
configurations that need no module (bench/runner/grains.py)."""
import glob
import json
import os

from .report_data import LOAD_TOLERANCE, SPEED_TOLERANCE, run_suspect
from .grains import CONFIGS, figure, fmt_fig, grain_name, mix_name, side_cells, unit
from .util import BenchError, fnum

DEFAULT_GRAINS_US = [100, 1000, 10000]
COLUMNS = ["busy-poll", "mpi-yield", "gang"]
# A guest ratio within this of the native one counts as reproduced.
TOLERANCE = 0.20
# Where the host's kernel and the guests' differ in the mechanism itself.
MECHANISM = {
    "mpi-yield": "sched_yield: the host's 6.18 gives up the rest of the "
                 "slice (a 6.17 change), 6.1 and 6.12 do not",
}


def table(outdir, sides, grains):
    """The comparison as markdown lines, and (reproduced, compared, misses)."""
    cells = {s: side_cells(os.path.join(outdir, s, "mix-results")) for s in sides}
    if not cells.get("native"):
        raise BenchError(f"{outdir}/native/mix-results: no native runs yet")
    guests = [s for s in sides if s != "native"]
    head = ["configuration", "grain", "column", "native"]
    for g in guests:
        head += [f"{g} guest", "ratio"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    good = total = 0
    misses, drifted = [], []
    for config, (what, _, _) in CONFIGS.items():
        for grain in grains:
            mix = mix_name(config, grain)
            for col in COLUMNS:
                nat_cell = cells["native"].get((mix, col))
                nat = figure(nat_cell, config)
                row = [f"{what} ({unit(config)})", grain_name(grain), col,
                       fmt_fig(nat) + suspect_mark(nat_cell, "native", drifted)]
                for g in guests:
                    cell = cells[g].get((mix, col))
                    gf = figure(cell, config)
                    ratio = gf[0] / nat[0] if gf and nat else None
                    mark = ""
                    if nat and cell and not gf and cell.timeouts:
                        # Every run killed: slower than it was given, a miss.
                        if col not in MECHANISM:
                            total += 1
                            misses.append(f"{g} {mix} {col}: timed out")
                        row += [f"> {cell.bound:.0f} s (timeout)", "t"]
                        continue
                    if ratio is not None:
                        inside = abs(ratio - 1) <= TOLERANCE
                        if col in MECHANISM:
                            mark = " (m)"
                        else:
                            total += 1
                            good += inside
                            mark = "" if inside else " !"
                            if not inside:
                                misses.append(f"{g} {mix} {col}: {ratio:.2f}")
                    row += [fmt_fig(gf) + suspect_mark(cell, g, drifted), fnum(ratio) + mark]
                lines.append("| " + " | ".join(row) + " |")
    return lines, (good, total, misses, drifted)


def suspect_mark(cell, side, suspects):
    """" ~" where a run of @cell is suspect (noted in @suspects), else ""."""
    if not cell or not cell.suspect:
        return ""
    suspects.append(f"{side} {cell.mix} {cell.column}: {cell.suspect}")
    return " ~"


def summary(outdir, sides, grains):
    lines, (good, total, misses, drifted) = table(outdir, sides, grains)
    out = lines + [""]
    out.append(f"{good} of {total} guest figures within {TOLERANCE:.0%} of native "
               "(ratio = guest / native; [low-high] = the repeats' range).")
    for col, why in MECHANISM.items():
        out.append(f"(m) {col}: not counted, the mechanism differs: {why}.")
    if misses:
        out.append("! outside (t: every run timed out): " + "; ".join(misses))
    if drifted:
        out.append(f"~ a run computed more than {SPEED_TOLERANCE:.0%} faster or slower "
                   "than its standalone run (grain's unit_ns: the host was loaded, "
                   "or its CPU changed speed), or other processes kept more than "
                   f"{LOAD_TOLERANCE} host CPUs busy meanwhile (run-mix's host_others): "
                   "its figure is suspect; rerun it: " + "; ".join(drifted))
    return out



def set_aside_suspects(results_dir, grains):
    """Rename the suspect runs of one side's run-mix directory out of the
    way (*.json -> *.json.suspect: run-mix then runs them again), with
    every run of a grain whose standalone run was suspect (their -n, -u
    and ideal came from it).  Returns [(file, why)]."""
    def rows(kind):
        for path in sorted(glob.glob(os.path.join(results_dir, kind, "*.json"))):
            try:
                with open(path) as f:
                    yield path, json.load(f)["row"]
            except (OSError, ValueError, KeyError):
                continue

    moved = []
    bad_grains = set()
    for path, row in rows("standalone"):
        why = run_suspect(row)
        for grain in grains:
            if why and f"|-c {grain}|" in row.get("key", ""):
                bad_grains.add(grain_name(grain))
                moved.append((path, f"standalone: {why}"))
    for path, row in rows("cells"):
        why = run_suspect(row)
        if not why and row.get("mix", "").rsplit("-", 1)[-1] in bad_grains:
            why = "its standalone run was suspect"
        if why:
            moved.append((path, why))
    for path, _ in moved:
        os.replace(path, path + ".suspect")
    return moved
