# SPDX-License-Identifier: GPL-2.0
"""The report's PNG plots, with matplotlib when it is installed
(scripts/setup.sh installs python3-matplotlib); without it the report
still writes its Markdown and CSV and says which plots it left out."""
import csv
import math
import os

from .columns import POLICIES

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    HAVE_MPL = True
except ImportError:
    HAVE_MPL = False


def slowdown_plot(res, path):
    """Slowdown against the ideal per mix and column (Tables 6.4-6.6 as
    bars), log scale: local-like columns are tens of times slower."""
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(res.mixes) * len(res.columns) / 4), 4))
    n = len(res.columns)
    width = 0.8 / n
    for i, c in enumerate(res.columns):
        xs, ys = [], []
        for j, m in enumerate(res.mixes):
            cell = res.cell(m, c)
            if cell and cell.slowdown:
                xs.append(j + (i - (n - 1) / 2) * width)
                ys.append(cell.slowdown)
        ax.bar(xs, ys, width, label=c)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(res.mixes)))
    ax.set_xticklabels(res.mixes)
    ax.set_ylabel("completion / ideal (log)")
    ax.set_title("slowdown against the ideal (sum of standalone times)")
    ax.legend(fontsize=7, ncol=min(n, 5))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def read_shares(csv_path, cpu):
    """{job: [(time, share)]} for one CPU of a monitor CSV."""
    out = {}
    with open(csv_path, newline="") as f:
        for r in csv.DictReader(f):
            if r.get("cpu") == cpu:
                try:
                    out.setdefault(r["job"], []).append((float(r["time"]),
                                                         float(r["cpu_share"])))
                except (KeyError, ValueError):
                    continue
    return out


def cpu_share_plot(res, mix, path, cpu="0"):
    """Figs 6.3/6.4's form: on one node (CPU 0), each job's share of the CPU
    per monitor interval, stacked, one panel per column (its median run)."""
    panels = []
    for c in res.columns:
        cell = res.cell(mix, c)
        run = cell.median_run() if cell else None
        if run and run["monitor_csv"]:
            p = os.path.join(res.dir, run["monitor_csv"])
            if os.path.exists(p):
                panels.append((c, run, read_shares(p, cpu)))
    panels = [p for p in panels if p[2]]
    if not panels:
        return False
    cols = min(3, len(panels))
    rows = math.ceil(len(panels) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 2.6 * rows),
                             squeeze=False, sharey=True)
    labels = panels[0][1]["job_labels"].split(";")
    for k, (c, run, shares) in enumerate(panels):
        ax = axes[k // cols][k % cols]
        jobs = sorted(shares, key=lambda j: int(j[1:]))
        times = sorted({t for j in jobs for t, _ in shares[j]})
        bottom = [0.0] * len(times)
        step = times[1] - times[0] if len(times) > 1 else 1.0
        for j in jobs:
            d = dict(shares[j])
            vals = [100 * d.get(t, 0.0) for t in times]
            idx = int(j[1:]) - 1
            name = labels[idx] if idx < len(labels) else j
            ax.bar(times, vals, step * 0.9, bottom=bottom, label=name)
            bottom = [b + v for b, v in zip(bottom, vals)]
        ax.set_title(f"{c} ({float(run['completion_s']):.1f} s)", fontsize=9)
        ax.set_ylim(0, 105)
        ax.set_xlabel("s", fontsize=8)
        if k % cols == 0:
            ax.set_ylabel(f"% of CPU {cpu}")
    for k in range(len(panels), rows * cols):
        axes[k // cols][k % cols].axis("off")
    axes[0][0].legend(fontsize=7, loc="lower left")
    fig.suptitle(f"{mix}: CPU share per job on node {cpu} (cosched-monitor)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def size_bytes(s):
    mult = {"K": 1024, "M": 1024 * 1024}
    return float(s[:-1]) * mult[s[-1]] if s[-1] in mult else float(s)


def latency_plot(sizes, table, path):
    """Fig 6.2's form: one-way latency per policy against message size."""
    fig, ax = plt.subplots(figsize=(6, 4))
    xs = [size_bytes(s) for s in sizes]
    for name, vals in table.items():
        if name not in POLICIES and not name.startswith("raw"):
            continue
        ys = [vals.get(s) for s in sizes]
        pts = [(x, y / 1000) for x, y in zip(xs, ys) if y]
        if pts:
            ax.plot(*zip(*pts), marker="o", ms=3, label=name,
                    lw=1.5 if name == "local" else 1)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message size, bytes")
    ax.set_ylabel("one-way latency p50, us")
    ax.set_title("one-way latency per policy (libcosched rings)")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
