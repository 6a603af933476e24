# SPDX-License-Identifier: GPL-2.0
"""build/bpf/cosched-monitor beside a run (Documentation/monitor.rst): per
job and CPU the share over time and the coscheduling degree.  It needs no
module; it needs root and BPF.  Anything missing only costs the monitor's
columns: the run goes on without it."""
import os
import signal
import subprocess
import time

from . import procs
from .util import log

# How long the ranks may take to appear after mpiexec starts (TCG guests
# take seconds to start an MPI job).
FIND_RANKS_S = 120


class Monitor:
    def __init__(self, path, interval_s, nodes):
        self.path = path
        self.interval_s = interval_s
        self.nodes = nodes
        self.disabled = None
        if not os.access(path, os.X_OK):
            self.disabled = f"{path} not built (make bpf)"
        elif os.geteuid() != 0:
            self.disabled = "not root (BPF needs CAP_BPF and CAP_PERFMON)"

    def start(self, running, logbase):
        if self.disabled:
            return None
        deadline = time.monotonic() + FIND_RANKS_S
        ranks = {}
        while time.monotonic() < deadline:
            for r in running:
                ranks[r] = procs.ranks_of(r.pid, r.program)
            done = [r for r in running if r.done()]
            if all(len(ranks[r]) >= self.nodes * r.job.rpn or r in done for r in running):
                break
            if len(done) == len(running):
                return None
            time.sleep(0.1)
        args = []
        for r in running:
            if ranks.get(r):
                args += ["--job", f"j{r.job.index + 1}=" + ",".join(map(str, ranks[r]))]
            else:
                log(f"run-mix: monitor: no ranks found for job {r.job.label}")
        if not args:
            return None
        csv = logbase + ".monitor.csv"
        err = open(logbase + ".monitor.err", "w")
        p = subprocess.Popen([self.path, "-i", str(self.interval_s), "--csv", csv]
                             + args, stdout=subprocess.DEVNULL, stderr=err,
                             stdin=subprocess.DEVNULL)
        # Its CSV's time 0 is about now; the run began at running[0].t0.
        offset = time.monotonic() - min(r.t0 for r in running)
        return {"popen": p, "csv": csv, "err": err, "offset": offset}

    def stop(self, h):
        p = h["popen"]
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
        try:
            rc = p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            rc = p.wait()
        h["err"].close()
        if rc != 0 or not os.path.exists(h["csv"]):
            with open(h["err"].name, errors="replace") as f:
                tail = f.read().strip().splitlines()[-2:]
            log(f"run-mix: monitor exited {rc}: {' | '.join(tail)}")
            if not os.path.exists(h["csv"]):
                return None
        return {"csv": h["csv"], "offset": h["offset"]}


def summarize(csv_path, jobs_end):
    """From a monitor CSV: per job (j1, j2 ...) the mean share of the machine
    and mean coscheduling degree over the intervals while every MPI job was
    still running (JOBS_END: seconds after the monitor started when the
    first job ended).  Returns {job: (share, degree)}."""
    import csv
    sums = {}
    try:
        with open(csv_path, newline="") as f:
            for row in csv.DictReader(f):
                if row.get("cpu") != "all":
                    continue
                try:
                    t = float(row["time"])
                    share = float(row["cpu_share"])
                    deg = float(row["cosched_degree"])
                except (KeyError, ValueError):
                    continue
                if jobs_end is not None and t > jobs_end:
                    continue
                s = sums.setdefault(row["job"], [0.0, 0.0, 0])
                s[0] += share
                s[1] += deg
                s[2] += 1
    except OSError:
        return {}
    return {j: (s[0] / s[2], s[1] / s[2]) for j, s in sums.items() if s[2]}
