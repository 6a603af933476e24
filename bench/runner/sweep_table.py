# SPDX-License-Identifier: GPL-2.0
"""bench/grain-sweep's table and plots: per configuration, the figure of
every column (bench/runner/grains.py) against the grain, and at each grain
the best policy against the best baseline."""
import os

from .columns import POLICIES
from .grains import CONFIGS, figure, fmt_fig, grain_name, mix_name, side_cells, unit
from .report_data import column_order
from .report_md import SUSPECT_TEXT
from .report_plots import HAVE_MPL
from .util import BenchError, fnum

if HAVE_MPL:
    from .report_plots import plt


def best(figs, names):
    """(name, median) of the lowest median among @names, or (None, None)."""
    have = [(figs[n][0], n) for n in names if figs.get(n)]
    if not have:
        return None, None
    v, n = min(have)
    return n, v


SPEED_TEXT = ("The jobs' speed: their computation's speed against their standalone "
              "run's (run-mix's job_speed), median [lowest-highest] over every job of "
              "every run.  Above 1 they computed faster.  In a guest it holds the "
              "emulator's speed, which can change within minutes, as well as what a "
              "column costs the computation: columns whose speeds differ are not "
              "compared by their figures alone "
              "(Documentation/results/grain-sweep/6.12-2j-1ms).")


def speed(cell):
    """(median, low, high) of the cell's jobs' speed (report_data.Cell),
    or None."""
    return (cell.speed, *cell.speed_range) if cell and cell.speed_range else None


def speed_table(cells, config, grains, columns):
    """Per grain and column, the jobs' speed; [] when no cell has one."""
    rows = []
    for g in grains:
        sp = [speed(cells.get((mix_name(config, g), c))) for c in columns]
        if any(sp):
            rows.append("| " + " | ".join([grain_name(g), *map(fmt_fig, sp)]) + " |")
    if not rows:
        return []
    head = ["grain", *columns]
    return ["", f"The jobs' speed, {CONFIGS[config][0]}:", "",
            "| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *rows, "", SPEED_TEXT]


def config_table(cells, config, grains, columns):
    what = CONFIGS[config][0]
    head = ["grain", *columns, "best policy / best baseline"]
    lines = [f"### {what} ({unit(config)})", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    series = {c: [] for c in columns}
    suspect = 0
    for g in grains:
        row = {c: cells.get((mix_name(config, g), c)) for c in columns}
        figs = {c: figure(row[c], config) for c in columns}
        marks = {c: " ~" if row[c] and row[c].suspect else "" for c in columns}
        suspect += sum(1 for m in marks.values() if m)
        for c in columns:
            if figs[c]:
                series[c].append((g, figs[c][0]))
        pn, pv = best(figs, [c for c in columns if c in POLICIES])
        bn, bv = best(figs, [c for c in columns if c not in POLICIES])
        versus = f"{fnum(pv / bv)} ({pn} / {bn})" if pv and bv else "-"
        lines.append("| " + " | ".join([grain_name(g),
                                         *(fmt_fig(figs[c]) + marks[c] for c in columns),
                                         versus]) + " |")
    if suspect:
        lines += ["", SUSPECT_TEXT]
    lines += speed_table(cells, config, grains, columns)
    return lines + [""], series


def plot(series, config, path):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for c, pts in series.items():
        if pts:
            xs, ys = zip(*pts)
            ax.plot(xs, ys, marker="o", label=c,
                    linestyle="-" if c in POLICIES else "--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("grain, native-equivalent us")
    ax.set_ylabel(f"slowdown ({unit(config)})")
    ax.set_title(CONFIGS[config][0])
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write(outdir, grains, configs):
    """DIR/table.md and, with matplotlib, DIR/grain-<config>.png; returns
    the table's lines."""
    cells = side_cells(os.path.join(outdir, "mix-results"))
    if not cells:
        raise BenchError(f"{outdir}/mix-results: no runs yet")
    columns = column_order({c for _, c in cells})
    lines = []
    for config in configs:
        part, series = config_table(cells, config, grains, columns)
        lines += part
        if HAVE_MPL:
            plot(series, config, os.path.join(outdir, f"grain-{config}.png"))
    if not HAVE_MPL:
        lines.append("(no matplotlib: no plots)")
    lines.append("Figures: median [lowest-highest] over the repeats.")
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return lines
