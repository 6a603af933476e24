# SPDX-License-Identifier: GPL-2.0
"""bench/validate's table: each guest's figures beside the host's, for the
configurations that need no module (bench/runner/grains.py)."""
import json
import os

from .report_data import LOAD_TOLERANCE, SPEED_TOLERANCE
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
    misses = []
    notes = {"suspect": [], "speed": [], "unknown": 0, "at_speed": [0, 0, []]}
    for config, (what, _, _) in CONFIGS.items():
        for grain in grains:
            mix = mix_name(config, grain)
            for col in COLUMNS:
                nat_cell = cells["native"].get((mix, col))
                nat = figure(nat_cell, config)
                row = [f"{what} ({unit(config)})", grain_name(grain), col,
                       fmt_fig(nat) + suspect_mark(nat_cell, "native", notes)]
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
                            at_speed(notes["at_speed"], f"{g} {mix} {col}",
                                     gf[0], cell.speed, nat[0], nat_cell.speed)
                    row += [fmt_fig(gf) + suspect_mark(cell, g, notes), fnum(ratio) + mark]
                lines.append("| " + " | ".join(row) + " |")
    return lines, (good, total, misses, notes)


def at_speed(tally, what, guest, guest_speed, native, native_speed):
    """Counts into @tally ([within, compared, misses]) the ratio of the
    two figures each taken at its runs' own computing speed (figure x
    median job_speed: what the figure would be had the jobs computed as
    fast as alone), where both speeds are known."""
    if not guest_speed or not native_speed:
        return
    ratio = guest * guest_speed / (native * native_speed)
    tally[1] += 1
    if abs(ratio - 1) <= TOLERANCE:
        tally[0] += 1
    else:
        tally[2].append(f"{what}: {ratio:.2f}")


def suspect_mark(cell, side, notes):
    """" ~" where a run of @cell had other load beside it, else ""; notes
    that, a speed off its standalone run's, and runs with no load record
    in @notes."""
    if not cell:
        return ""
    what = f"{side} {cell.mix} {cell.column}"
    notes["unknown"] += cell.load_unknown
    if cell.speed_off:
        notes["speed"].append(f"{what}: {cell.speed_off[0]:.2f}-{cell.speed_off[1]:.2f}")
    if not cell.suspect:
        return ""
    notes["suspect"].append(f"{what}: {cell.suspect}")
    return " ~"


def sched_settings(outdir, side):
    """{knob: set of values} of /proc/sys/kernel/sched_* over every
    invocation that wrote @side's results (run-mix's meta.json)."""
    try:
        with open(os.path.join(outdir, side, "mix-results", "meta.json")) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return {}
    out = {}
    for inv in meta.get("invocations", []):
        sched = inv.get("config", {}).get("testbed", {}).get("sched", {})
        for k, v in sched.items():
            out.setdefault(k, set()).add(v)
    return out


def unlike_native(outdir, sides):
    """The scheduler settings a guest side ran with unlike the native
    side's, of those both kernels have (autogroup, say: it decides how a
    job in a session of its own shares a CPU with a hog in another)."""
    native = sched_settings(outdir, "native")
    found = []
    for g in sides:
        if g == "native":
            continue
        for k, v in sorted(sched_settings(outdir, g).items()):
            if k in native and v != native[k]:
                found.append(f"{g} {k} {'/'.join(sorted(v))} "
                             f"(native {'/'.join(sorted(native[k]))})")
    return found


def summary(outdir, sides, grains):
    lines, (good, total, misses, notes) = table(outdir, sides, grains)
    out = lines + [""]
    out.append(f"{good} of {total} guest figures within {TOLERANCE:.0%} of native "
               "(ratio = guest / native; [low-high] = the repeats' range).")
    for col, why in MECHANISM.items():
        out.append(f"(m) {col}: not counted, the mechanism differs: {why}.")
    if misses:
        out.append("! outside (t: every run timed out): " + "; ".join(misses))
    if notes["suspect"]:
        out.append(f"~ other processes kept more than {LOAD_TOLERANCE} host CPUs busy "
                   "during a run or its jobs' standalone runs (run-mix's host_others): "
                   "suspect; bench/validate --rerun-suspect runs it again: "
                   + "; ".join(notes["suspect"]))
    if notes["speed"]:
        out.append(f"Jobs computed more than {SPEED_TOLERANCE:.0%} faster or slower than "
                   "alone (grain's unit_ns: a loaded host, or what the column's "
                   "switching costs the jobs): " + "; ".join(notes["speed"]))
    good_s, total_s, misses_s = notes["at_speed"]
    if total_s:
        out.append(f"At the runs' own computing speed (each figure times its runs' "
                   f"median job_speed; a diagnostic, not the criterion: that speed is "
                   f"measured under the contention itself): {good_s} of {total_s} within "
                   f"{TOLERANCE:.0%}" + ("; outside: " + "; ".join(misses_s) if misses_s
                                         else "") + ".")
    if notes["unknown"]:
        out.append(f"{notes['unknown']} runs have no record of the host's load.")
    unlike = unlike_native(outdir, sides)
    if unlike:
        out.append("Scheduler settings unlike native's (they change what a "
                   "configuration measures; vmrun.sh --calibrated copies the host's "
                   "autogroup): " + "; ".join(unlike) + ".")
    return out
