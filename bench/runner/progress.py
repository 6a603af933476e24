# SPDX-License-Identifier: GPL-2.0
"""The sweep's progress line, printed on stdout after every cell (a guest's
stdout is vmrun.sh's): cells with a result out of the cells asked for, the
time since this run started, and an estimate of the time left from the
cells this run has done (not from cells found on disk: their time is not
known, and the host may have been faster or slower then)."""
import sys
import time


def duration(s):
    """3725 -> '1h02m', 115 -> '1m55s', 42 -> '42s'"""
    s = int(round(s))
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


class Progress:
    def __init__(self, label, total, already, t0=None, sweeps_after=0,
                 clock=time.monotonic, out=None):
        self.label = label
        self.sweeps_after = sweeps_after    # as many cells each, to come
        self.total = total
        self.finished = already     # cells with a result, this run or before
        self.ran = 0                # cells this run has done
        self.cell_s = 0.0           # their time
        self.clock = clock
        self.t0 = clock() if t0 is None else t0
        self.out = out or sys.stdout

    def cell_done(self, seconds):
        self.finished += 1
        self.ran += 1
        self.cell_s += seconds
        self.show()

    def show(self):
        self.out.write(self.line() + "\n")
        self.out.flush()

    def line(self):
        elapsed = self.clock() - self.t0
        head = f"{self.label}: {self.finished}/{self.total} cells, {duration(elapsed)} elapsed"
        if not self.ran:
            return head
        mean = self.cell_s / self.ran
        left = self.total - self.finished
        eta = "done" if left <= 0 else f"ETA {duration(mean * left)}"
        line = f"{head}, {eta} (mean {duration(mean)} per cell, this run)"
        if self.sweeps_after:
            # Their cells may be on disk already: an upper bound.
            later = mean * self.total * self.sweeps_after
            line += f", then {self.sweeps_after} more sweep(s): up to {duration(later)}"
        return line
