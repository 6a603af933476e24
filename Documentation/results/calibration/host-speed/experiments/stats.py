#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The README's counts from interleaved.txt and two-cpus.txt.
usage: stats.py (in this folder)"""
import os
from statistics import correlation, median

HERE = os.path.dirname(os.path.abspath(__file__))

with open(os.path.join(HERE, "interleaved.txt")) as f:
    rows = [list(map(float, line.split()[1:])) for line in f if line[0].isdigit()]
loop, py, chase = zip(*rows)
slow_py, slow_chase = [p > 120 for p in py], [c > 50 for c in chase]
print(f"interleaved: {len(rows)} rounds; python {min(py):.1f}-{max(py):.1f}, "
      f"chase {min(chase):.1f}-{max(chase):.1f}, loop {min(loop):.2f}-{max(loop):.2f}")
print(f"  slow together {sum(a and b for a, b in zip(slow_py, slow_chase))}, "
      f"apart {sum(a != b for a, b in zip(slow_py, slow_chase))}")
print(f"  loop median: python slow (> 120 ns, {sum(slow_py)} rounds) "
      f"{median(l for l, s in zip(loop, slow_py) if s):.2f}; python under 100 ns "
      f"({sum(p < 100 for p in py)} rounds) {median(l for l, p in zip(loop, py) if p < 100):.2f}")
print(f"  python median slow {median(p for p in py if p > 120):.1f}, "
      f"under 100 {median(p for p in py if p < 100):.1f}")

with open(os.path.join(HERE, "two-cpus.txt")) as f:
    line = [ln for ln in f if not ln.startswith("#")][0]
pairs = [tuple(map(float, p.split("/"))) for p in line.split()]
a, b = zip(*pairs)
print(f"two-cpus: {len(pairs)} pairs, Pearson r {correlation(a, b):.2f}; over 25 ns: CPU 0 "
      f"{sum(x > 25 for x in a)}, CPU 1 {sum(y > 25 for y in b)}, "
      f"both {sum(x > 25 and y > 25 for x, y in pairs)}")
