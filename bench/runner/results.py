# SPDX-License-Identifier: GPL-2.0
"""The results directory: one CSV row per run, appended as soon as the run
ends, so an interrupted sweep resumes where it stopped; standalone times in
their own CSV; the invocations and the machine in meta.json.

    DIR/runs.csv         one row per (mix, column, repeat) run
    DIR/standalone.csv   one row per distinct job (program + args + size)
    DIR/meta.json        machine, and every command that wrote here
    DIR/logs/            each job's stdout/stderr, the monitor's CSV
"""
import csv
import json
import os
import platform
import subprocess
import time

RUN_FIELDS = ["mix", "column", "repeat", "status", "mpi", "nodes", "seconds",
              "completion_s", "makespan_wall_s", "start_skew_s", "ideal_s", "slowdown",
              "job_labels", "job_times_s", "job_standalone_s", "cov",
              "mean_job_s", "job_share", "job_degree", "background_share",
              "boosts", "boosted_ns", "stats", "monitor_csv",
              "monitor_offset_s", "started", "note"]
STANDALONE_FIELDS = ["key", "program", "args", "mpi", "nodes", "seconds",
                     "iters", "time_s", "comm_pct", "wall_s", "status",
                     "started"]


class CsvLog:
    """An append-only CSV with a header, read back on start."""

    def __init__(self, path, fields):
        self.path = path
        self.fields = fields
        self.rows = []
        if os.path.exists(path):
            with open(path, newline="") as f:
                self.rows = list(csv.DictReader(f))

    def append(self, row):
        new = not os.path.exists(self.path) or os.path.getsize(self.path) == 0
        with open(self.path, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=self.fields, extrasaction="ignore")
            if new:
                w.writeheader()
            w.writerow(row)
            f.flush()
            os.fsync(f.fileno())
        self.rows.append({k: str(row.get(k, "")) for k in self.fields})


class Results:
    def __init__(self, outdir):
        self.dir = outdir
        os.makedirs(os.path.join(outdir, "logs"), exist_ok=True)
        self.runs = CsvLog(os.path.join(outdir, "runs.csv"), RUN_FIELDS)
        self.standalone = CsvLog(os.path.join(outdir, "standalone.csv"),
                                 STANDALONE_FIELDS)

    def done(self, mix, column, repeat):
        """A run counts as done once it has a row that is not an error or a
        skip (a timeout is a result: the policy is that slow)."""
        return any(r["mix"] == mix and r["column"] == column and
                   r["repeat"] == str(repeat)
                   and r["status"] not in ("error", "skipped")
                   for r in self.runs.rows)

    def standalone_row(self, key):
        for r in reversed(self.standalone.rows):
            if r["key"] == key and r["status"] == "ok":
                return r
        return None

    def log_base(self, *parts):
        return os.path.join(self.dir, "logs", "_".join(parts))

    def record_invocation(self, argv):
        path = os.path.join(self.dir, "meta.json")
        meta = {}
        if os.path.exists(path):
            try:
                with open(path) as f:
                    meta = json.load(f)
            except (OSError, ValueError):
                meta = {}
        meta.setdefault("invocations", []).append(
            {"argv": argv, "started": now(), "machine": machine()})
        with open(path, "w") as f:
            json.dump(meta, f, indent=1)


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def machine():
    """What the report prints as "the machine": CPUs, CPU model, kernel;
    COSCHED_HOST_* (set by whoever starts a guest) names the host."""
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mpis = {}
    for m, cmd in (("mpich", ["mpichversion", "-v"]),
                   ("openmpi", ["ompi_info", "--version"])):
        try:
            out = subprocess.run(cmd, capture_output=True, text=True,
                                 timeout=20).stdout.strip().splitlines()
            # "MPICH Version: 4.0.2" / "Open MPI v4.1.4"
            mpis[m] = out[0].split()[-1].lstrip("v") if out else ""
        except (OSError, subprocess.TimeoutExpired):
            pass
    return {"nproc": os.cpu_count(), "cpu_model": model,
            "kernel": platform.release(), "guest": bool(os.environ.get("COSCHED_VM")),
            "host": {k[len("COSCHED_HOST_"):].lower(): v for k, v in os.environ.items()
                     if k.startswith("COSCHED_HOST_")},
            "mpi": mpis, "python": platform.python_version()}
