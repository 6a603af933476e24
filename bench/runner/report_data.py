# SPDX-License-Identifier: GPL-2.0
"""The report's numbers, computed from a results directory (runs.csv,
standalone.csv, meta.json) and the thesis's figures (bench/thesis-ch6.csv).
Nothing here is typed in: every number comes from a run or from that file."""
import csv
import json
import os
import re

from .columns import BASELINES, POLICIES, SLURM_BASELINES
from .util import BenchError, median, to_float


def read_csv(path, comment=False):
    try:
        with open(path, newline="") as f:
            lines = [ln for ln in f if not (comment and ln.startswith("#"))]
    except OSError as e:
        raise BenchError(f"cannot read {path}: {e.strerror}") from e
    return list(csv.DictReader(lines))


def floats(s):
    """'1.2;;3' -> [1.2, None, 3.0]"""
    return [to_float(x) for x in s.split(";")] if s else []


# A run during which other processes kept more than this many host CPUs
# busy (run-mix's host_others, or the host's hypervisor, host_steal), or
# whose jobs' standalone runs did (standalone_others), had less CPU than
# the table assumes: suspect, and bench/validate --rerun-suspect (run-mix
# --rerun-suspect) runs it again.
# On this 2-CPU host a quiet run reads under 0.03 and one beside 0.165
# took 20% longer than its repeats (results/calibration/validation).
LOAD_TOLERANCE = 0.1
# Jobs that computed more than this faster or slower than alone (grain's
# unit_ns, run-mix's job_speed) are noted, not run again: in a guest a
# loaded host shows there, but so does what a column costs the jobs
# itself (a context switch's cache and TLB refill lands in the step), and
# rerunning on it would select the runs a column was luckiest in.
SPEED_TOLERANCE = 0.05


def run_suspect(row):
    """Why a run (a cells/ or standalone/ row) had other load beside it,
    or ""."""
    why = []
    for field, what in (("host_others", "host busy"), ("host_steal", "host stolen"),
                        ("standalone_others", "standalone run's host busy")):
        v = to_float(row.get(field))
        if v is not None and v > LOAD_TOLERANCE:
            why.append(f"{what} {v:.2f} CPUs")
    return ", ".join(why)


def speed_off(row):
    """(lowest, highest) job_speed of a run where one is more than
    SPEED_TOLERANCE off 1, else None."""
    speeds = [x for x in floats(row.get("job_speed") or "") if x]
    if speeds and not 1 - SPEED_TOLERANCE <= min(speeds) <= max(speeds) <= 1 + SPEED_TOLERANCE:
        return min(speeds), max(speeds)
    return None


class Cell:
    """Every run of one (mix, column): medians and spread over repeats."""

    def __init__(self, mix, column, rows):
        self.mix = mix
        self.column = column
        self.rows = rows
        ok = [r for r in rows if r["status"] == "ok"]
        self.ok = ok
        self.timeouts = [r for r in rows if r["status"] == "timeout"]
        self.errors = [r for r in rows if r["status"] in ("error", "skipped")]
        comp = [to_float(r["completion_s"]) for r in ok]
        self.completion = median(comp)
        self.spread = (min(comp), max(comp)) if comp else None
        self.ideal = median([to_float(r["ideal_s"]) for r in rows])
        # A timed-out run is slower than the time it was given: a bound.
        self.bound = max((to_float(r["makespan_wall_s"]) or 0 for r in self.timeouts),
                         default=None)
        self.slowdown = (self.completion / self.ideal
                         if self.completion and self.ideal else None)
        self.labels = rows[0]["job_labels"].split(";") if rows else []
        self.mpi_labels = [lb for lb in self.labels
                           if not re.match(r"^\d+:(hog|noise)", lb)]
        per_job = [floats(r["job_times_s"]) for r in ok]
        self.job_times = [median([t[i] for t in per_job if i < len(t)])
                          for i in range(len(self.mpi_labels))]
        self.cov = median([to_float(r["cov"]) for r in ok])
        self.mean_job = median([to_float(r["mean_job_s"]) for r in ok])
        shares = [floats(r["job_share"]) for r in ok if r["job_share"]]
        degs = [floats(r["job_degree"]) for r in ok if r["job_degree"]]
        self.job_share = [median([s[i] for s in shares if i < len(s)])
                          for i in range(len(self.mpi_labels))] if shares else []
        self.job_degree = [median([s[i] for s in degs if i < len(s)])
                           for i in range(len(self.mpi_labels))] if degs else []
        self.boosts = median([to_float(r["boosts"]) for r in ok])
        # The largest gap between the jobs' timed starts (MPI_Init ends at
        # different times): where it is large, the jobs overlapped less.
        self.skew = max((to_float(r.get("start_skew_s")) or 0 for r in ok), default=0)
        self.note = "; ".join(sorted({r["note"] for r in self.errors if r["note"]}))
        # Why some run of the cell is suspect (run_suspect), if one is.
        self.suspect = "; ".join(sorted({w for w in map(run_suspect, ok) if w}))
        # Runs with no load record (a guest without vmrun.sh's sampler, a
        # run under 2 s there, a directory older than the record).
        self.load_unknown = sum(1 for r in ok if not r.get("host_others"))
        off = [x for x in map(speed_off, ok) if x]
        self.speed_off = (min(a for a, _ in off), max(b for _, b in off)) if off else None
        # The jobs' computing speed against alone, over every job of every
        # run (job_speed): the median and (lowest, highest), or None where
        # no workload printed one.
        speeds = [x for r in ok for x in floats(r.get("job_speed") or "") if x]
        self.speed = median(speeds)
        self.speed_range = (min(speeds), max(speeds)) if speeds else None

    def median_run(self):
        """The ok run whose completion is the median (for plots)."""
        if not self.ok:
            return None
        s = sorted(self.ok, key=lambda r: to_float(r["completion_s"]))
        return s[(len(s) - 1) // 2]


def column_order(names):
    known = POLICIES + BASELINES + SLURM_BASELINES
    return sorted(names, key=lambda n: (known.index(n) if n in known else
                                        len(known), n))


class Results:
    def __init__(self, rdir, thesis_path):
        self.dir = rdir
        runs = read_csv(os.path.join(rdir, "runs.csv"))
        # The latest row of each (mix, column, repeat): a rerun replaces it.
        latest = {}
        for r in runs:
            latest[(r["mix"], r["column"], r["repeat"])] = r
        self.runs = list(latest.values())
        path = os.path.join(rdir, "standalone.csv")
        self.standalone = read_csv(path) if os.path.exists(path) else []
        self.meta = {}
        try:
            with open(os.path.join(rdir, "meta.json")) as f:
                self.meta = json.load(f)
        except (OSError, ValueError):
            pass
        self.mixes = sorted({r["mix"] for r in self.runs})
        self.columns = column_order({r["column"] for r in self.runs})
        self.cells = {}
        for m in self.mixes:
            for c in self.columns:
                rows = [r for r in self.runs if r["mix"] == m and r["column"] == c]
                if rows:
                    self.cells[(m, c)] = Cell(m, c, rows)
        self.thesis = read_csv(thesis_path, comment=True) if thesis_path else []

    def cell(self, mix, column):
        return self.cells.get((mix, column))

    # -- the thesis's figures ------------------------------------------
    def thesis_completion(self, mix, policy):
        """The thesis's completion time for a policy; its LOCAL is MPI busy
        polling under the stock scheduler: our local and busy-poll both."""
        n = mix_number(mix)
        if policy == "busy-poll":
            policy = "local"
        for r in self.thesis:
            if (r["kind"] == "completion" and r["workload"] == str(n)
                    and r["policy"] == policy):
                return float(r["value"]), r["table"]
        return None

    def thesis_ideal(self, mix):
        """Section 6.2.1: every job ~25 s alone; workloads 1-9 have four
        jobs, 10-12 two."""
        n = mix_number(mix)
        if n is None or not 1 <= n <= 12:
            return None
        return 25.0 * (4 if n <= 9 else 2)

    def thesis_jobs(self, mix, policy):
        n = mix_number(mix)
        rows = [r for r in self.thesis if r["table"] == "6.7" and
                r["workload"] == str(n) and r["policy"] == policy]
        if not rows:
            return None
        jobs = [float(r["value"]) for r in rows if r["kind"] == "job"]
        mean = [float(r["value"]) for r in rows if r["kind"] == "mean"]
        cov = [float(r["value"]) for r in rows if r["kind"] == "cov"]
        return jobs, mean[0] if mean else None, cov[0] if cov else None


def mix_number(name):
    """mix05 -> 5; other mixes (pakin-hog, ...) have no thesis figures."""
    m = re.match(r"^mix0*(\d+)$", name)
    return int(m.group(1)) if m else None


def parse_latency(path):
    """bench/latency.sh's first table ("one-way latency p50, ns"): {row:
    {size: ns}}."""
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise BenchError(f"cannot read {path}: {e.strerror}") from e
    table, sizes, inside = {}, [], False
    for ln in lines:
        if "one-way latency p50, ns" in ln:
            inside = True
            continue
        if not inside:
            continue
        body = ln.strip().lstrip("#").strip()
        if not body:
            if table:
                break
            continue
        words = body.split()
        if words[0] == "size":
            sizes = words[1:]
            continue
        # Row names may have spaces ("tcp local (poll)"): values are the tail.
        vals = words[-len(sizes):] if sizes else []
        name = " ".join(words[:len(words) - len(vals)])
        table[name] = {s: to_float(v) for s, v in zip(sizes, vals)}
    if not table:
        raise BenchError(f"{path}: no 'one-way latency p50, ns' table (bench/latency.sh output?)")
    return sizes, table
