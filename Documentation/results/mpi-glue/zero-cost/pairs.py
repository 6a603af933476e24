#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Paired ratios of glue-order-pp.sh / glue-split-pp.sh output.

usage: pairs.py FILE...  For each file: every case's p50 median
[min-max] over the rounds, then each case over `plain` and over
`plain-nomod` of the same round (median [min-max], rounds above 1);
then the same ratios pooled over all files given.  "ci" is a
distribution-free interval for the median ratio: the order statistics
whose binomial tails hold at most 2.5% each (at least 95% coverage)."""
import math
import re
import statistics as st
import sys


def read(path):
    rounds = {}
    for line in open(path):
        m = re.match(r"round (\d+) (\S+) p50_ns (\d+)", line)
        if m:
            rounds.setdefault(int(m[1]), {})[m[2]] = int(m[3])
    return rounds


def ratios(rounds, case, base):
    return [r[case] / r[base] for r in rounds.values()
            if case in r and base in r]


def median_ci(v):
    """(low, high) for the median of v, or None when too few values."""
    v = sorted(v)
    n = len(v)
    tail = 0.0
    k = 0
    # Largest k with P(Binomial(n, 1/2) < k) <= 0.025.
    while tail + math.comb(n, k) / 2 ** n <= 0.025:
        tail += math.comb(n, k) / 2 ** n
        k += 1
    return (v[k - 1], v[n - k]) if k > 0 else None


def show(label, v):
    if v:
        ci = median_ci(v)
        print("  %-26s %.3f [%.3f-%.3f], %d of %d rounds above 1%s" %
              (label, st.median(v), min(v), max(v),
               sum(x > 1 for x in v), len(v),
               ", ci %.3f-%.3f" % ci if ci else ""))


pooled = {}
for path in sys.argv[1:]:
    rounds = read(path)
    cases = sorted({c for r in rounds.values() for c in r})
    print(path)
    for c in cases:
        v = [r[c] / 1e3 for r in rounds.values() if c in r]
        print("  %-12s p50 %.1f us [%.1f-%.1f], %d rounds" %
              (c, st.median(v), min(v), max(v), len(v)))
    for base in ("plain", "plain-nomod"):
        for c in cases:
            if c != base:
                v = ratios(rounds, c, base)
                show("%s / %s" % (c, base), v)
                pooled.setdefault((c, base), []).extend(v)
if len(sys.argv) > 2:
    print("pooled")
    for (c, base), v in pooled.items():
        show("%s / %s" % (c, base), v)
