# SPDX-License-Identifier: GPL-2.0
"""A stand-in for the jobs and the module, for testing the sweep itself
(resuming, the progress line) on any machine in seconds
(bench/resume-test.sh).  COSCHED_MIX_FAKE=FILE: no program runs; every
"run" sleeps COSCHED_MIX_FAKE_S (0.05) seconds, appends "LOGBASE" to FILE,
writes LOGBASE_jN.out and returns made-up times; COSCHED_MIX_FAKE_HANG=N
makes this process's Nth run hang until it is killed (a sweep cut short
mid-run); COSCHED_MIX_FAKE_LOAD="O[:S],..." gives the host's other load
(and steal) of this process's first runs in turn, an empty item none
recorded, and 0 after them."""
import os
import time

from .util import log


class FakeModule:
    available = True
    why_not = ""

    def start(self):
        return True

    def stop(self):
        pass

    def set_policy(self, policy):
        pass

    def set_tunable(self, name, value):
        pass

    def stats(self):
        return {}


class FakeLoad:
    """Made-up load beside a fake run (COSCHED_MIX_FAKE_LOAD, else none):
    the host's real load would make the tests' tables depend on what
    else this machine does."""

    def __init__(self):
        spec = os.environ.get("COSCHED_MIX_FAKE_LOAD", "")
        self.next = spec.split(",") if spec else []

    def start(self):
        return None

    def stop(self, token):
        item = self.next.pop(0) if self.next else "0:0"
        if not item:
            return {}
        others, _, steal = item.partition(":")
        return {"host_others": f"{float(others):.3f}",
                "host_steal": f"{float(steal or 0):.3f}"}


class FakeRunner:
    def __init__(self, logfile):
        self.logfile = logfile
        self.delay = float(os.environ.get("COSCHED_MIX_FAKE_S", "0.05"))
        self.hang = int(os.environ.get("COSCHED_MIX_FAKE_HANG", "0"))
        self.count = 0

    def __call__(self, paths, cluster, col, jobs, logbase, timeout, monitor=None):
        self.count += 1
        with open(self.logfile, "a") as f:
            sizes = " ".join(" ".join(a) for _, a in jobs if a)
            gang = f" gang={col.gang_ms}" if col.gang_ms else ""
            f.write(os.path.basename(logbase) + (f" {sizes}" if sizes else "") + gang + "\n")
        for n in range(len(jobs)):
            with open(f"{logbase}_j{n + 1}.out", "w") as f:
                f.write(f"fake run {self.count}\n")
        if self.count == self.hang:
            log(f"run-mix: fake run {self.count} hangs (COSCHED_MIX_FAKE_HANG)")
            while True:
                time.sleep(60)
        time.sleep(self.delay)
        out = []
        # A job's standalone runs take 1.3, 0.9 and 1.0 s, at 13%, 9%
        # and 10% communication, each unit costing 1.625, 1.125 and 1.25
        # ns (the median is the 1.0 s run, which the concurrent runs'
        # figures assume); concurrent job n takes 1.0 + 0.1 n.
        alone = {"_s2": 0.9, "_s3": 1.0}.get(logbase[-3:], 1.3) \
            if os.path.basename(logbase).startswith("standalone") else None
        comm, unit_ns = {1.3: ("13", "1.6250"), 0.9: ("9", "1.1250")}.get(
            alone, ("10", "1.2500"))
        for n, (job, _) in enumerate(jobs):
            bg = job.program in ("hog", "noise")
            t = alone or 1.0 + 0.1 * n
            # Job n's timed part starts 0.3 n s after the first's (a late
            # MPI_Init, or a gang launcher holding it); grain prints its
            # step (units=) and what a unit cost (unit_ns=).
            res = {"share": "0.5"} if bg else {"time_s": f"{t:.3f}", "iters": "100",
                                                "comm_pct": comm,
                                                "start_mono": f"{1000 + 0.3 * n:.6f}"}
            if job.program == "grain":
                res.update(units="777", unit_ns=unit_ns)
            out.append({"job": job, "background": bg, "rc": 0, "wall_s": t,
                        "end_s": t + 0.5, "result": res,
                        "time_s": None if bg else t})
        return {"jobs": out, "timed_out": False, "monitor_csv": None,
                "elapsed_s": self.delay}
