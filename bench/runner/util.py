# SPDX-License-Identifier: GPL-2.0
"""Small helpers the runner and the report share: key=value result lines,
statistics, messages."""
import math
import statistics
import sys


class BenchError(Exception):
    """An error the runner reports in one line and exits on."""


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def parse_kv(line):
    """'a=1 b=x' -> {'a': '1', 'b': 'x'}; words without '=' are ignored."""
    out = {}
    for word in line.split():
        if "=" in word:
            k, v = word.split("=", 1)
            out[k] = v
    return out


def result_line(text, key="workload"):
    """The last line of a program's output that begins with KEY=, parsed."""
    found = None
    for line in text.splitlines():
        if line.startswith(key + "="):
            found = line
    return parse_kv(found) if found else None


def cov(values):
    """Coefficient of variation (population standard deviation / mean), as
    Table 6.7 gives it; None for fewer than two values."""
    vals = [v for v in values if v is not None]
    if len(vals) < 2 or statistics.fmean(vals) == 0:
        return None
    return statistics.pstdev(vals) / statistics.fmean(vals)


def median(values):
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else None


def fnum(x, fmt="{:.2f}"):
    """A number for a table; '-' for none, NaN included."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return fmt.format(x)


def to_float(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None
