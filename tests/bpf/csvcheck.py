#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""csvcheck.py SOLO_CSV COMPETE_CSV: sanity of cosched-monitor's CSV.

SOLO_CSV: job "solo" (two busy ranks pinned to CPUs 0 and 1) and job
"sleeper" (one process asleep).  COMPETE_CSV: jobs "A" and "B", two busy
ranks each, on the same two CPUs.  Prints one TAP line per check
("ok - ..." / "not ok - ..."), and "# ..." notes.

The host is shared and may be loaded by others, so the checks are ranges
and orderings that hold under any load, plus two that compare with a job
alone ("near 1", "more than competing jobs") only when the CSV shows the
job really had both CPUs to itself.
"""
import csv
import os
import sys
from collections import defaultdict

HEADER = ["time", "job", "cpu", "cpu_share", "switches", "on_cpu_ns",
          "blocked_ns", "preempted_ns", "cosched_degree"]
results = []


def check(ok, what, why=""):
    results.append(ok)
    print(("ok - " if ok else "not ok - ") + what + ("" if ok else " # " + why))


def load(path):
    try:
        with open(path) as f:
            rows = list(csv.reader(f))
    except OSError as e:
        check(False, f"{path}: readable", str(e))
        sys.exit(1)
    check(rows and rows[0] == HEADER, f"{path}: CSV header", str(rows[:1]))
    out = []
    for r in rows[1:]:
        d = dict(zip(HEADER, r))
        for k in ("time", "cpu_share", "cosched_degree"):
            d[k] = float(d[k])
        for k in ("switches", "on_cpu_ns", "blocked_ns", "preempted_ns"):
            d[k] = int(d[k])
        out.append(d)
    return out


def intervals(rows):
    """time -> job -> cpu -> row, and each interval's length in ns."""
    by = defaultdict(lambda: defaultdict(dict))
    for r in rows:
        by[r["time"]][r["job"]][r["cpu"]] = r
    times = sorted(by)
    length = {}
    last = 0.0
    for t in times:
        length[t] = (t - last) * 1e9
        last = t
    return by, times, length


def common(rows, jobs, name):
    by, times, _ = intervals(rows)
    check(len(times) >= 2, f"{name}: at least 2 intervals", f"{len(times)}")
    shape = all(set(by[t]) == set(jobs) and
                all({"0", "1", "all"} <= set(by[t][j]) for j in jobs)
                for t in times)
    check(shape, f"{name}: one row per job per CPU and one 'all' row", "")
    shares = [r["cpu_share"] for r in rows]
    check(all(0 <= s <= 1.02 for s in shares),
          f"{name}: every cpu_share in [0, 1]", f"{min(shares)}..{max(shares)}")
    worst = max(sum(by[t][j][c]["cpu_share"] for j in jobs)
                for t in times for c in ("0", "1"))
    check(worst <= 1.05, f"{name}: shares of one CPU sum to <= 1.05",
          f"max {worst:.3f}")
    degs = [r["cosched_degree"] for r in rows]
    check(all(0 <= d <= 1.02 for d in degs),
          f"{name}: every cosched_degree in [0, 1]", f"{min(degs)}..{max(degs)}")
    # All ranks on at once cannot last longer than either rank is on.
    bad = [(t, j) for t in times for j in jobs
           if by[t][j]["0"]["cosched_degree"] >
           min(by[t][j]["0"]["cpu_share"], by[t][j]["1"]["cpu_share"]) + 0.05]
    check(not bad, f"{name}: degree <= the smaller rank's share", str(bad))
    return by, times


def mean(xs):
    return sum(xs) / len(xs) if xs else 0.0


def main():
    solo = load(sys.argv[1])
    by, times = common(solo, ["solo", "sleeper"], "solo run")
    _, _, length = intervals(solo)
    # A busy single-thread rank: on + preempted (+ blocked) covers the interval.
    cover = [(by[t]["solo"][c]["on_cpu_ns"] + by[t]["solo"][c]["preempted_ns"] +
              by[t]["solo"][c]["blocked_ns"]) / length[t]
             for t in times for c in ("0", "1")]
    check(all(0.8 <= x <= 1.1 for x in cover),
          "busy ranks: on + off time covers each interval",
          " ".join(f"{x:.2f}" for x in cover))
    blocked = [by[t]["solo"]["all"]["blocked_ns"] / length[t] for t in times]
    check(all(x < 0.05 for x in blocked), "busy ranks: never blocked",
          " ".join(f"{x:.3f}" for x in blocked))
    sl = [by[t]["sleeper"]["all"] for t in times]
    check(all(r["blocked_ns"] >= 0.9 * length[t] and r["cpu_share"] < 0.01
              for r, t in zip(sl, times)),
          "sleeping job: blocked the whole interval, no CPU share",
          str([(r["blocked_ns"], r["cpu_share"]) for r in sl]))
    check(all(r["cosched_degree"] == 0 for r in sl),
          "sleeping job: degree 0", "")
    deg_solo = mean([by[t]["solo"]["0"]["cosched_degree"] for t in times])
    low = min(by[t]["solo"][c]["cpu_share"] for t in times for c in ("0", "1"))
    missed = int(os.environ.get("MON_MISSED", "0"))
    if missed:
        print(f"# the host's kernel did not trace {missed} switches of the "
              f"ranks: 'degree near 1 alone' not judged; degree {deg_solo:.3f}")
    elif low >= 0.9:
        # Both ranks on a CPU >= low of the time: together >= 2 low - 1 of
        # it.  The shares come from the scheduler's runtime, the degree
        # from switch events, which a busy host's kernel does not always
        # report (monitor.rst), hence the margin: on this project's VM
        # hosts the degree came out up to 0.22 below the bound (0.764 with
        # shares of 0.99, 2026-11-22), but a broken degree is far lower.
        check(deg_solo >= 2 * low - 1 - 0.3,
              "job alone on both CPUs: degree as its CPU shares imply",
              f"{deg_solo:.3f}, shares >= {low:.2f}")
    else:
        print(f"# host busy (solo shares down to {low:.2f}): "
              f"'degree near 1 alone' not judged; degree {deg_solo:.3f}")
    check(deg_solo > 0, "busy job alone: degree > 0", f"{deg_solo:.3f}")

    comp = load(sys.argv[2])
    by, times = common(comp, ["A", "B"], "compete run")
    both = [by[t]["A"]["0"]["cosched_degree"] + by[t]["B"]["0"]["cosched_degree"]
            for t in times]
    check(all(x <= 1.05 for x in both),
          "competing jobs: their degrees sum to <= 1", str(both))
    deg_a = mean([by[t]["A"]["0"]["cosched_degree"] for t in times])
    deg_b = mean([by[t]["B"]["0"]["cosched_degree"] for t in times])
    check(max(deg_a, deg_b) <= 0.8, "competing jobs: degree clearly below 1",
          f"A {deg_a:.3f} B {deg_b:.3f}")
    # The two runs are seconds apart: on a loaded host, their loads differ.
    if low >= 0.9:
        check(deg_solo > max(deg_a, deg_b),
              "a job alone is coscheduled more than competing ones",
              f"solo {deg_solo:.3f} A {deg_a:.3f} B {deg_b:.3f}")
    else:
        print("# host busy: 'alone beats competing' not judged")
    b_share = min(by[t]["B"][c]["cpu_share"] for t in times for c in ("0", "1"))
    check(b_share > 0.02, "cgroup job B: found and charged on both CPUs",
          f"min share {b_share:.3f}")
    print(f"# degrees: solo {deg_solo:.3f}, A {deg_a:.3f}, B {deg_b:.3f}")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
