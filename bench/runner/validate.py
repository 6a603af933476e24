# SPDX-License-Identifier: GPL-2.0
"""The testbed against native runs (issue 15): the configurations that need
no module, as mix files for run-mix, and the table that sets each guest's
slowdowns beside the host's.

A configuration is a number of jobs of the `grain` workload sharing the
nodes (2 or 4), or one such job beside a compute hog on every node; each
at a native-equivalent grain.  Its figure is the slowdown against the
ideal (the jobs' standalone times added up) for 2 and 4 jobs, and against
the fair share (twice the standalone time: each CPU is shared with a hog)
for the job beside hogs."""
import os

from .report_data import Cell, read_csv
from .util import BenchError, fnum

CONFIGS = {
    "2j": ("2 jobs", ["grain"] * 2, 1.0),
    "4j": ("4 jobs", ["grain"] * 4, 1.0),
    "hog": ("1 job beside a hog on each CPU", ["grain", "hog"], 2.0),
}
DEFAULT_GRAINS_US = [100, 1000, 10000]
COLUMNS = ["busy-poll", "mpi-yield", "gang"]
# A guest ratio within this of the native one counts as reproduced.
TOLERANCE = 0.20
# Where the host's kernel and the guests' differ in the mechanism itself.
MECHANISM = {
    "mpi-yield": "sched_yield: the host's 6.18 gives up the rest of the "
                 "slice (a 6.17 change), 6.1 and 6.12 do not",
}


def grain_name(us):
    if us % 1000 == 0:
        return f"{us // 1000}ms"
    return f"{us}us"


def mix_name(config, grain_us):
    return f"val-{config}-{grain_name(grain_us)}"


def write_mixes(directory, grains):
    """One mix file per configuration and grain; returns their paths."""
    os.makedirs(directory, exist_ok=True)
    paths = []
    for grain in grains:
        for config, (what, progs, _) in CONFIGS.items():
            name = mix_name(config, grain)
            path = os.path.join(directory, name + ".conf")
            lines = [f"# bench/validate: {what}, grain {grain} us native-equivalent",
                     f"name = {name}"]
            lines += [p if p == "hog" else f"grain -c {grain}" for p in progs]
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
            paths.append(path)
    return paths


def side_cells(results_dir):
    """{(mix, column): Cell} of one side's run-mix directory."""
    runs = os.path.join(results_dir, "runs.csv")
    if not os.path.exists(runs):
        return {}
    rows = read_csv(runs)
    keys = sorted({(r["mix"], r["column"]) for r in rows})
    return {k: Cell(k[0], k[1], [r for r in rows if (r["mix"], r["column"]) == k])
            for k in keys}


def figure(cell, config):
    """(median, low, high) of the configuration's figure, or None."""
    if not cell or cell.slowdown is None:
        return None
    norm = CONFIGS[config][2]
    lo, hi = (s / cell.ideal / norm for s in cell.spread)
    return cell.slowdown / norm, lo, hi


def fmt_fig(f):
    if not f:
        return "-"
    return f"{f[0]:.2f} [{f[1]:.2f}-{f[2]:.2f}]"


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
    for config, (what, _, norm) in CONFIGS.items():
        unit = "x fair share" if norm != 1.0 else "x ideal"
        for grain in grains:
            mix = mix_name(config, grain)
            for col in COLUMNS:
                nat = figure(cells["native"].get((mix, col)), config)
                row = [f"{what} ({unit})", grain_name(grain), col, fmt_fig(nat)]
                for g in guests:
                    gf = figure(cells[g].get((mix, col)), config)
                    ratio = gf[0] / nat[0] if gf and nat else None
                    mark = ""
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
                    row += [fmt_fig(gf), fnum(ratio) + mark]
                lines.append("| " + " | ".join(row) + " |")
    return lines, (good, total, misses)


def summary(outdir, sides, grains):
    lines, (good, total, misses) = table(outdir, sides, grains)
    out = lines + [""]
    out.append(f"{good} of {total} guest figures within {TOLERANCE:.0%} of native "
               "(ratio = guest / native; [low-high] = the repeats' range).")
    for col, why in MECHANISM.items():
        out.append(f"(m) {col}: not counted, the mechanism differs: {why}.")
    if misses:
        out.append("! outside: " + "; ".join(misses))
    return out

