# SPDX-License-Identifier: GPL-2.0
"""The results directory.  Each finished run is one file, written whole
and renamed into place (cells.py), with the configuration that produced it
(provenance.py): an interrupted sweep resumes where it stopped, a cell cut
short is run again, and cells of another configuration are refused rather
than mixed.  runs.csv and standalone.csv are views of the cells, rewritten
(also atomically) after each one, for bench/report and for reading.

    DIR/cells/           one JSON file per (mix, column, repeat) run
    DIR/standalone/      one JSON file per distinct job (program + args + size)
    DIR/runs.csv         one row per run, from cells/
    DIR/standalone.csv   one row per distinct job, from standalone/
    DIR/meta.json        machine, configuration, every command that wrote here
    DIR/logs/            each job's stdout/stderr, the monitor's CSV
"""
import csv
import fcntl
import io
import json
import os
import platform
import subprocess
import time

from .cells import CellStore, write_atomic
from .provenance import differences
from .util import BenchError

RUN_FIELDS = ["mix", "column", "repeat", "status", "mpi", "nodes", "seconds",
              "completion_s", "makespan_wall_s", "start_skew_s", "ideal_s", "slowdown",
              "job_labels", "job_times_s", "job_standalone_s", "cov",
              "mean_job_s", "job_share", "job_degree", "background_share",
              "boosts", "boosted_ns", "stats", "monitor_csv",
              "monitor_offset_s", "started", "note"]
STANDALONE_FIELDS = ["key", "program", "args", "mpi", "nodes", "seconds",
                     "iters", "time_s", "comm_pct", "wall_s", "status",
                     "started"]
# Fields added later (cells written before them are still whole):
#   span_s     first job's timed start to the last one's end (start_mono)
#   size_args  what sizes a concurrent run besides -n (grain: -u UNITS)
#   unit_ns    what a unit of the workload's computation cost during the
#              standalone run, in CPU time (grain prints it)
#   job_speed  per job, the standalone run's unit_ns over this run's: 1
#              when both computed at one speed; a loaded host slows a
#              guest's vCPUs where CPU time in the guest cannot see it
#   host_others, host_steal  CPUs other processes kept busy during the
#              run, and CPUs the hypervisor stole (hostload.py)
#   standalone_others  the most of its jobs' standalone host_others
#   standalone_keys  its jobs' standalone runs (standalone/'s keys), which
#              made its ideal: ";"-separated
#   host_qemu_aux  in a guest, CPUs QEMU's threads other than its vCPUs
#              kept busy (main loop, 9p and RCU workers): on a host with
#              no CPU to spare they take it from the vCPUs
LATER_RUN_FIELDS = ["span_s", "job_speed", "host_others", "host_steal",
                    "standalone_others", "standalone_keys", "host_qemu_aux"]
#   time_runs_s  each standalone run's time (--standalone-repeats): time_s
#              is their median
#   host_others, host_steal  the most CPUs other processes kept busy,
#              and the hypervisor stole, during one of the standalone runs
LATER_STANDALONE_FIELDS = ["size_args", "unit_ns", "time_runs_s", "note", "host_others",
                           "host_steal", "host_qemu_aux"]
# A run with this status is a result (a timeout too: the column was that
# slow); the others are run again.
DONE = ("ok", "timeout")


def csv_text(fields, rows):
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    return out.getvalue()


class Results:
    def __init__(self, outdir):
        self.dir = outdir
        cells = os.path.join(outdir, "cells")
        if os.path.exists(os.path.join(outdir, "runs.csv")) and not os.path.isdir(cells):
            raise BenchError(f"{outdir}/runs.csv was written by a run-mix that kept no "
                             "per-run records: what produced its rows is unknown; "
                             "give another results directory (-o, or make's MIX_OUT)")
        os.makedirs(os.path.join(outdir, "logs"), exist_ok=True)
        # Two sweeps writing one directory would redo each other's cells.
        self.lock = open(os.path.join(outdir, ".lock"), "w")
        try:
            fcntl.flock(self.lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            raise BenchError(f"{outdir}: another run-mix is writing there") from e
        self.runs = CellStore(cells, RUN_FIELDS, ["mix", "column", "repeat"],
                              LATER_RUN_FIELDS)
        self.alone = CellStore(os.path.join(outdir, "standalone"),
                               STANDALONE_FIELDS, ["key"], LATER_STANDALONE_FIELDS)
        self.runs_csv = os.path.join(outdir, "runs.csv")
        self.config = None
        self.provenance = None

    def dropped(self):
        """Files that were not whole cells (now deleted: those run again)."""
        return self.runs.dropped + self.alone.dropped

    def use_config(self, config, provenance, mix_shas):
        """Refuse a directory whose cells were made under another config,
        or with another version of one of the mixes (MIX_SHAS: name -> sha
        of the mix file); say what differs."""
        stale = {}
        for store in (self.runs, self.alone):
            for rec in store.cells.values():
                diff = differences(rec["config"], config)
                mix = rec["row"].get("mix")
                sha = rec["provenance"].get("mix_sha") if rec.get("provenance") else None
                if mix in mix_shas and sha != mix_shas[mix]:
                    diff.append(f"bench/mixes: {mix} was {sha}, now {mix_shas[mix]}")
                for d in diff:
                    stale[d] = stale.get(d, 0) + 1
        if stale:
            lines = "\n".join(f"  {d} ({n} cells)" for d, n in sorted(stale.items()))
            hint = ""
            if any("base_slice_ns" in d for d in stale):
                hint = ("  (A new factor changes the slice; so did fbf6fcb, since "
                        "which vmrun.sh --calibrated sets EEVDF's slice from the "
                        "host's quantum: for cells made before it, --slice-rule "
                        "scale, or MIX_VMRUN_ARGS=\"--calibrated --slice-rule "
                        "scale\", gives their slice.)")
            raise BenchError(
                f"{self.dir} holds cells of another configuration:\n{lines}\n"
                "Its results would not be comparable with this run's.  Run the "
                "configuration that made them (its commit is in each cells/*.json), "
                f"or give another results directory (-o, or make's MIX_OUT).{hint}")
        self.config = config
        self.provenance = provenance

    def done(self, mix, column, repeat):
        rec = self.runs.cells.get((mix, column, str(repeat)))
        return rec is not None and rec["row"]["status"] in DONE

    def put_run(self, row, mix_sha):
        row = self.runs.put(row, self.config, dict(self.provenance, mix_sha=mix_sha))
        self.write_runs_csv()
        return row

    def standalone_row(self, key):
        rec = self.alone.cells.get((key,))
        return rec["row"] if rec and rec["row"]["status"] == "ok" else None

    def standalone_rows(self):
        return self.alone.rows()

    def put_standalone(self, row):
        row = self.alone.put(row, self.config, self.provenance)
        self.write_standalone_csv()
        return row

    def write_runs_csv(self):
        write_atomic(self.runs_csv, csv_text(self.runs.fields, self.runs.rows()))

    def write_standalone_csv(self):
        write_atomic(os.path.join(self.dir, "standalone.csv"),
                     csv_text(self.alone.fields, self.alone.rows()))

    def set_aside(self, suspect):
        """Rename out of the way every finished run @suspect(row) names a
        reason for (cells/*.json -> *.json.suspect.N, kept for the
        record), the standalone runs first and with them every run they
        sized (set_aside_sized_by); the sweep then runs them again.
        Called after use_config, under this directory's lock.  Returns
        [(file, why)]."""
        moved, gone = [], set()
        for key, rec in sorted(self.alone.cells.items()):
            why = suspect(rec["row"]) if rec["row"]["status"] == "ok" else ""
            if why:
                moved.append((self.alone.set_aside(key), f"standalone: {why}"))
                gone.add(rec["row"]["key"])
        moved += self.set_aside_sized_by(gone)
        for key, rec in sorted(self.runs.cells.items()):
            # A timeout is a result, and has no load record.
            why = suspect(rec["row"]) if rec["row"]["status"] == "ok" else ""
            if why:
                moved.append((self.runs.set_aside(key), why))
        self.write_runs_csv()
        self.write_standalone_csv()
        return moved

    def set_aside_sized_by(self, keys):
        """Set aside every run, whatever its status, that a standalone
        run of @keys sized (standalone_keys); returns [(file, why)]."""
        moved = []
        for key, rec in sorted(self.runs.cells.items()):
            made = rec["row"]["standalone_keys"]
            if made and set(made.split(";")) & keys:
                moved.append((self.runs.set_aside(key),
                              "its standalone run is measured again"))
        if moved:
            self.write_runs_csv()
        return moved

    def log_base(self, *parts):
        """DIR/logs/<parts joined by _>, or, where a run before (set
        aside, cut short) left logs under that name, <...>_again2, 3...:
        a set-aside run keeps its own."""
        logs = os.path.join(self.dir, "logs")
        name = "_".join(parts)
        used = os.listdir(logs)
        cand, n = name, 1
        # (Not any "<name>.": "..._t1." begins "..._t1.5_j1.out" too.)
        while any(f.startswith(cand + "_") or f.startswith(cand + ".monitor")
                  for f in used):
            n += 1
            cand = f"{name}_again{n}"
        return os.path.join(logs, cand)

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
            {"argv": argv, "started": now(), "machine": machine(),
             "config": self.config, "provenance": self.provenance})
        write_atomic(path, json.dumps(meta, indent=1) + "\n")


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
