# SPDX-License-Identifier: GPL-2.0
"""The report's Markdown tables and CSV files, and the issue's targets as
computed lines (met / missed / not measured)."""
import csv

from .columns import POLICIES
from .report_data import LOAD_TOLERANCE, mix_number
from .util import fnum

# A cell is marked when its jobs' timed parts began further apart than
# this fraction of the completion time (see SKEW_TEXT).
SKEW_NOTE = 0.1
SKEW_TEXT = ("† in some run the jobs' timed parts began more than "
             f"{SKEW_NOTE:.0%} of the completion time apart (MPI start-up "
             "under TCG takes seconds and varies): the jobs overlapped less "
             "than the table suggests.")


SUSPECT_TEXT = ("~ during some run of the cell, or a standalone run of its "
                f"jobs, other processes kept more than {LOAD_TOLERANCE} host CPUs "
                "busy (host_others): run-mix --rerun-suspect measures it again.")


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    return "\n".join(out)


def cell_text(cell):
    if cell is None:
        return ""
    if cell.completion is None:
        if cell.bound:
            return f">{cell.bound:.0f} s (timeout)"
        return "n/a"
    lo, hi = cell.spread
    spread = f" ({lo:.1f}-{hi:.1f})" if len(cell.ok) > 1 else ""
    extra = f", {len(cell.timeouts)} timeout" if cell.timeouts else ""
    skew = " †" if cell.skew > SKEW_NOTE * cell.completion else ""
    suspect = " ~" if cell.suspect else ""
    return (f"**x{cell.slowdown:.2f}** {cell.completion:.1f} s{spread}{extra}"
            f"{skew}{suspect}")


def completion_table(res):
    """Table 6.4's form: rows mixes, columns policies and baselines; each
    cell the median completion time, its slowdown against the ideal (sum of
    standalone times) and the spread over repeats; below each mix the
    thesis's slowdown where it ran the same workload."""
    header = ["mix", "ideal"] + res.columns
    rows = []
    for m in res.mixes:
        ideal = next((c.ideal for (mm, _), c in res.cells.items() if mm == m), None)
        rows.append([m, fnum(ideal, "{:.1f} s")] +
                    [cell_text(res.cell(m, c)) for c in res.columns])
        th = [res.thesis_completion(m, c) for c in res.columns]
        if any(th):
            tab = next(t[1] for t in th if t)
            ideal_t = res.thesis_ideal(m)
            rows.append([f"thesis, Table {tab}", f"{ideal_t:.0f} s"] +
                        [f"x{t[0] / ideal_t:.2f} {t[0]:.0f} s" if t else ""
                         for t in th])
    return md_table(header, rows)


def completion_csv(res, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mix", "column", "runs_ok", "runs_timeout", "runs_failed",
                    "completion_median_s", "completion_min_s", "completion_max_s",
                    "ideal_s", "slowdown", "cov_median", "boosts_median",
                    "thesis_table", "thesis_s", "thesis_slowdown"])
        for (m, c), cell in sorted(res.cells.items()):
            th = res.thesis_completion(m, c)
            ideal_t = res.thesis_ideal(m)
            w.writerow([m, c, len(cell.ok), len(cell.timeouts), len(cell.errors),
                        fnum(cell.completion, "{:.3f}"),
                        fnum(cell.spread[0] if cell.spread else None, "{:.3f}"),
                        fnum(cell.spread[1] if cell.spread else None, "{:.3f}"),
                        fnum(cell.ideal, "{:.3f}"), fnum(cell.slowdown, "{:.3f}"),
                        fnum(cell.cov, "{:.4f}"), fnum(cell.boosts, "{:.0f}"),
                        th[1] if th else "", th[0] if th else "",
                        fnum(th[0] / ideal_t if th and ideal_t else None, "{:.3f}")])


def jobs_table(res, mix):
    """Table 6.7's form for one mix: each job's median time, their mean and
    coefficient of variation; each job's CPU share (of the machine, while
    all jobs ran) and coscheduling degree from the monitor."""
    labels = None
    rows = []
    for c in res.columns:
        cell = res.cell(mix, c)
        if cell is None or not cell.ok:
            continue
        labels = labels or cell.mpi_labels
        share = "/".join(fnum(s * 100 if s is not None else None, "{:.0f}")
                         for s in cell.job_share) or "-"
        deg = "/".join(fnum(d, "{:.2f}") for d in cell.job_degree) or "-"
        rate = (cell.boosts / cell.completion
                if cell.boosts is not None and cell.completion else None)
        rows.append([c] + [fnum(t, "{:.1f}") for t in cell.job_times] +
                    [fnum(cell.mean_job, "{:.1f}"), fnum(cell.cov, "{:.2f}"),
                     share, deg, fnum(rate, "{:.0f}")])
        th = res.thesis_jobs(mix, c)
        if th:
            rows.append([f"thesis {c} (Table 6.7)"] + [f"{v:.0f}" for v in th[0]] +
                        [fnum(th[1], "{:.0f}"), fnum(th[2], "{:.2f}"), "", "", ""])
    if not rows:
        return None
    header = (["column"] + labels + ["mean", "CoV", "share % per job",
                                     "cosched degree per job", "boosts/s"])
    return md_table(header, rows)


def jobs_csv(res, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["mix", "column", "job", "time_median_s", "share_median",
                    "degree_median"])
        for (m, c), cell in sorted(res.cells.items()):
            for i, lb in enumerate(cell.mpi_labels):
                w.writerow([m, c, lb,
                            fnum(cell.job_times[i] if i < len(cell.job_times) else None, "{:.3f}"),
                            fnum(cell.job_share[i] if i < len(cell.job_share) else None, "{:.4f}"),
                            fnum(cell.job_degree[i] if i < len(cell.job_degree) else None, "{:.4f}")])


# -- the targets of issue 6 --------------------------------------------------

def best_policy(res, mix):
    cells = [res.cell(mix, p) for p in POLICIES]
    cells = [c for c in cells if c and c.completion is not None]
    return min(cells, key=lambda c: c.completion) if cells else None


def local_baseline(res, mix):
    """busy-poll (plain MPI, stock scheduler); the glue's local policy
    stands in if busy-poll was not run."""
    for name in ("busy-poll", "local"):
        c = res.cell(mix, name)
        if c and (c.completion is not None or c.bound):
            return c
    return None


def verdict(ok):
    return "met" if ok else "missed"


def targets(res):
    """The issue's targets, each a line computed from the runs."""
    lines = []
    by_num = {mix_number(m): m for m in res.mixes if mix_number(m)}
    for n in (5, 12):
        m = by_num.get(n)
        if not m:
            lines.append(f"mix{n:02d}: not measured (target: best policy <= 1.3x ideal, >= 3x faster than local)")
            continue
        best = best_policy(res, m)
        if not best:
            lines.append(f"{m}: no policy run completed: not measured")
            continue
        lines.append(f"{m}: best policy {best.column} at x{best.slowdown:.2f} ideal "
                     f"(target <= 1.3): {verdict(best.slowdown <= 1.3)}")
        loc = local_baseline(res, m)
        if loc is None:
            lines.append(f"{m}: local baseline not measured")
        elif loc.completion is None:
            ratio = loc.bound / best.completion
            # The baseline was killed: its time is only a lower bound.
            outcome = verdict(True) if ratio >= 3 else "undecided"
            lines.append(f"{m}: {best.column} against {loc.column}: more than "
                         f"{ratio:.1f}x speed-up ({loc.column} timed out at "
                         f"{loc.bound:.0f} s; target >= 3): {outcome}")
        else:
            ratio = loc.completion / best.completion
            lines.append(f"{m}: {best.column} against {loc.column}: {ratio:.2f}x speed-up "
                         f"(target >= 3): {verdict(ratio >= 3)}")
    for n in (7, 8):
        m = by_num.get(n)
        if not m:
            lines.append(f"mix{n:02d}: not measured (target: best policy >= 2x faster than MPI's yield mode, compute jobs >= 90% of fair share)")
            continue
        best = best_policy(res, m)
        y = res.cell(m, "mpi-yield")
        if not best:
            lines.append(f"{m}: no policy run completed: not measured")
            continue
        if y is None or (y.completion is None and not y.bound):
            lines.append(f"{m}: mpi-yield not measured")
        else:
            yt = y.completion if y.completion is not None else y.bound
            ratio = yt / best.completion
            lines.append(f"{m}: {best.column} against mpi-yield: {ratio:.2f}x speed-up "
                         f"(target >= 2): {verdict(ratio >= 2)}")
        lines.append(compute_share_line(m, best))
    return lines


def compute_share_line(mix, cell):
    """The compute-bound jobs (ep) under the best policy: their CPU share
    while all jobs ran, against the fair share 1/jobs."""
    idx = [i for i, lb in enumerate(cell.mpi_labels) if lb.split(":", 1)[1].startswith("ep")]
    if not idx:
        return f"{mix}: no compute-bound (ep) job in the mix"
    if not cell.job_share:
        return f"{mix}: compute jobs' share not measured (no monitor)"
    fair = 1.0 / len(cell.mpi_labels)
    got = [cell.job_share[i] for i in idx if cell.job_share[i] is not None]
    if not got:
        return f"{mix}: compute jobs' share not measured"
    worst = min(got) / fair
    # What every job got on average: below 1/jobs when the machine idles or
    # other processes (MPI start-up, daemons) run; printed for context.
    known = [x for x in cell.job_share if x is not None]
    mean = sum(known) / len(known)
    return (f"{mix}: under {cell.column} the compute jobs got "
            f"{', '.join(f'{g / fair * 100:.0f}%' for g in got)} of their fair share "
            f"({fair * 100:.0f}% of the machine; all jobs' mean {mean * 100:.0f}%; "
            f"target >= 90%): {verdict(worst >= 0.9)}")
