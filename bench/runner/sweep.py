# SPDX-License-Identifier: GPL-2.0
"""The sweep: standalone times first, then every (mix, repeat, column) run,
one CSV row each, skipping the runs the results directory already has."""
import os
import time

from . import module as modmod
from .hostload import LoadMeter, worst
from .launch import BACKGROUND, run_jobs
from .monitor import summarize
from .progress import Progress
from .util import BenchError, cov, log, to_float


class Sweep:
    def __init__(self, opts, paths, cluster, results, mod, monitor,
                 runner=run_jobs, load=None):
        self.o = opts
        self.run_jobs = runner
        self.t0 = time.monotonic()
        self.paths = paths
        self.cluster = cluster
        self.res = results
        self.mod = mod
        self.monitor = monitor
        self.load = load or LoadMeter()  # others' load during each run

    # -- standalone ----------------------------------------------------
    def seconds_for(self, job):
        """The job's standalone length, in this machine's time (--dilate)."""
        if self.o.seconds is not None:
            secs = self.o.seconds
        else:
            secs = job.seconds if job.seconds is not None else self.o.default_seconds
        return round(secs * getattr(self.o, "dilation", 1.0), 3)

    def standalone_key(self, job):
        return "|".join([job.program, " ".join(job.args), self.paths.mpi,
                         str(self.cluster.nodes), f"{self.seconds_for(job):g}"])

    def standalone(self, mixes, busy_poll):
        """Each distinct MPI job alone, sized with -t; its iterations then
        size every concurrent run.  Returns {key: row}."""
        out = {}
        todo = []
        for mix in mixes:
            for job in mix.jobs:
                if job.program in BACKGROUND:
                    continue
                key = self.standalone_key(job)
                if key in out or key in [k for k, _ in todo]:
                    continue
                row = self.res.standalone_row(key)
                if row:
                    out[key] = row
                else:
                    todo.append((key, job))
        # Runs a standalone run sized and that is measured again now (set
        # aside, cut short, lost) would keep its old size and ideal.
        for name, why in self.res.set_aside_sized_by({k for k, _ in todo}):
            log(f"run-mix: again: {name} ({why})")
        if todo and self.mod.available:
            self.mod.set_policy("local")
        for n, (key, job) in enumerate(todo, 1):
            secs = self.seconds_for(job)
            log(f"[standalone {n}/{len(todo)}] {job.program} {' '.join(job.args)} "
                f"-t {secs:g}")
            row = self.alone_runs(key, job, secs, busy_poll)
            self.res.put_standalone(row)
            if row["status"] != "ok":
                raise BenchError(f"standalone {job.program} {' '.join(job.args)} "
                                 f"failed: {row['note']}")
            log(f"    {row['time_s']} s (runs {row['time_runs_s']}), {row['iters']} "
                f"iterations, {row['comm_pct']}% communication")
            out[key] = row
        return out

    def alone_runs(self, key, job, secs, busy_poll):
        """@job alone, --standalone-repeats times: the first sized by -t,
        the others doing its work (its -n, and its step where the workload
        printed one: grain's units=, which concurrent runs reuse too).  The
        row's time is their median."""
        base = self.res.log_base("standalone", job.program, *job.args, f"t{secs:g}")
        runs, size = [], ["-t", f"{secs:g}"]
        loads = []
        for i in range(self.o.standalone_repeats):
            load = self.load.start()
            r = self.run_jobs(self.paths, self.cluster, busy_poll, [(job, size)],
                              base + (f"_s{i + 1}" if i else ""),
                              timeout=secs * 10 + 300)["jobs"][0]
            loads.append(self.load.stop(load))
            if not (r["rc"] == 0 and r["time_s"] is not None and r["result"].get("iters")):
                return {"key": key, "status": "error",
                        "note": f"exit {r['rc']}; see {base}*_j*.err"}
            runs.append(r)
            if not i:
                units = r["result"].get("units")
                size = ["-n", r["result"]["iters"]] + (["-u", units] if units else [])
        # The median run (the lower one of an even count): its time, its
        # communication share and its speed, all of one run.
        mid = sorted(runs, key=lambda r: r["time_s"])[(len(runs) - 1) // 2]["result"]
        return {"key": key, "program": job.program, "args": " ".join(job.args),
                "size_args": " ".join(size[2:]),
                "mpi": self.paths.mpi, "nodes": self.cluster.nodes,
                "seconds": f"{secs:g}", "iters": runs[0]["result"]["iters"],
                "time_s": mid["time_s"],
                "time_runs_s": ";".join(f"{r['time_s']:.3f}" for r in runs),
                "comm_pct": mid.get("comm_pct", ""), "unit_ns": mid.get("unit_ns", ""),
                "host_others": worst(x.get("host_others") for x in loads),
                "host_steal": worst(x.get("host_steal") for x in loads),
                "host_qemu_aux": worst(x.get("host_qemu_aux") for x in loads),
                "wall_s": f"{runs[0]['wall_s']:.3f}", "status": "ok", "note": "",
                "started": time.strftime("%H:%M:%S")}

    # -- the concurrent runs -------------------------------------------
    def run_all(self, mixes, columns, alone, label):
        # Repeat outermost: a sweep cut short still has every cell once.
        cells = [(m, rep, c) for rep in range(1, self.o.repeats + 1)
                 for m in mixes for c in columns]
        todo = [x for x in cells if not self.res.done(x[0].name, x[2].name, x[1])]
        if len(todo) < len(cells):
            log(f"run-mix: resuming: {len(cells) - len(todo)} of {len(cells)} runs "
                f"already in {self.res.runs.path}")
        prog = Progress(label, len(cells), len(cells) - len(todo), t0=self.t0,
                        sweeps_after=self.o.sweeps_after)
        prog.show()
        for n, (mix, rep, col) in enumerate(todo, 1):
            t = time.monotonic()
            row = self.res.put_run(self.run_one(mix, rep, col, alone), mix.sha)
            what = (f"{row['completion_s']} s, x{row['slowdown']} ideal"
                    if row["completion_s"] else row["note"])
            log(f"[{n}/{len(todo)}] {mix.name} {col.name} r{rep}: {row['status']}, {what}")
            prog.cell_done(time.monotonic() - t)

    @staticmethod
    def size_args(alone_row):
        """A concurrent run's size: the standalone run's iterations, and
        its step where the workload printed one."""
        return ["-n", alone_row["iters"]] + alone_row.get("size_args", "").split()

    def run_one(self, mix, rep, col, alone):
        base = self.res.log_base(mix.name, col.name.replace(":", ""), f"r{rep}")
        row = {"mix": mix.name, "column": col.name, "repeat": rep,
               "mpi": col.mpi or self.paths.mpi, "nodes": self.cluster.nodes,
               "started": time.strftime("%Y-%m-%dT%H:%M:%S")}
        mpi_jobs = [j for j in mix.jobs if j.program not in BACKGROUND]
        keys = [self.standalone_key(j) for j in mpi_jobs]
        standalone = [to_float(alone[k]["time_s"]) for k in keys]
        ideal = sum(standalone)
        row.update(ideal_s=f"{ideal:.3f}", standalone_keys=";".join(keys),
                   seconds=";".join(alone[k]["seconds"] for k in keys),
                   job_labels=";".join(j.label for j in mix.jobs),
                   job_standalone_s=";".join(f"{s:.3f}" for s in standalone))
        if col.is_policy and not self.mod.available:
            row.update(status="skipped", note=f"no module: {self.mod.why_not}")
            return row
        try:
            if self.mod.available:
                self.mod.set_policy(col.policy)
            before = self.mod.stats()
            jobs = [(j, [] if j.program in BACKGROUND else
                     self.size_args(alone[self.standalone_key(j)])) for j in mix.jobs]
            load = self.load.start()
            out = self.run_jobs(self.paths, self.cluster, col, jobs, base,
                                timeout=ideal * self.o.timeout_factor + 120,
                                monitor=self.monitor)
            after = self.mod.stats()    # before stop() waits for a sample
            if not out["timed_out"]:
                # (A run killed leaves its ranks to init: their CPU time
                # never reaches run-mix's children's, hostload.py.)
                row.update(self.load.stop(load))
        except BenchError as e:
            row.update(status="error", note=str(e))
            return row
        # The standalone runs' load too: a loaded one made the ideal.
        row["standalone_others"] = worst(alone[k].get("host_others") for k in keys)
        return self.fill(row, out, ideal, modmod.delta(before, after),
                         [alone[k].get("unit_ns") for k in keys])

    def fill(self, row, out, ideal, stats, alone_ns=()):
        fg = [r for r in out["jobs"] if not r["background"]]
        bg = [r for r in out["jobs"] if r["background"]]
        times = [r["time_s"] for r in fg]
        failed = [r for r in fg if r["rc"] != 0 or r["time_s"] is None]
        if out["timed_out"]:
            status, note = "timeout", f"killed after {out['elapsed_s']:.0f} s"
        elif failed:
            status = "error"
            note = "failed: " + ",".join(r["job"].label for r in failed)
        else:
            status, note = "ok", ""
        # The jobs' timed parts begin after MPI_Init, which takes seconds
        # under TCG and varies: each began about (its exit - its time).
        starts = [r["end_s"] - r["time_s"] for r in fg if r["time_s"] is not None]
        skew = max(starts) - min(starts) if len(starts) > 1 else 0.0
        span = timed_span(fg) if status == "ok" else None
        # Completion: from the first job's timed start to the last one's
        # end.  The slowest job's own time would leave out what happened
        # before it began, a slice or more where a gang launcher held it
        # stopped; every column is measured alike.
        comp = (span or max(times)) if status == "ok" else None
        if status == "ok" and not span:
            note = "no start_mono from a job (a workload built before it): completion = the slowest job's time"
        row.update(status=status, note=note,
                   completion_s=f"{comp:.3f}" if comp else "",
                   makespan_wall_s=f"{max(r['end_s'] for r in fg):.3f}",
                   start_skew_s=f"{skew:.3f}",
                   slowdown=f"{comp / ideal:.3f}" if comp and ideal else "",
                   span_s=f"{span:.3f}" if span else "",
                   job_times_s=";".join(f"{t:.3f}" if t is not None else ""
                                        for t in times),
                   cov=f"{cov(times):.4f}" if status == "ok" and cov(times) is not None else "",
                   mean_job_s=f"{sum(times) / len(times):.3f}" if status == "ok" else "",
                   job_speed=";".join(speed(a, r) for a, r in zip(alone_ns, fg)),
                   background_share=";".join(r["result"].get("share", "") for r in bg),
                   boosts=stats.get("boosts", ""),
                   boosted_ns=stats.get("boosted_ns", ""),
                   stats=" ".join(f"{k}={v}" for k, v in sorted(stats.items())))
        mon = out["monitor_csv"]
        if mon:
            # Shares while every job still ran: up to the first job's end.
            first_end = min(r["end_s"] for r in fg) - mon["offset"]
            s = summarize(mon["csv"], first_end)
            ids = [f"j{r['job'].index + 1}" for r in fg]
            row.update(monitor_csv=os.path.relpath(mon["csv"], self.res.dir), monitor_offset_s=f"{mon['offset']:.3f}",
                       job_share=";".join(f"{s[i][0]:.4f}" if i in s else "" for i in ids),
                       job_degree=";".join(f"{s[i][1]:.4f}" if i in s else "" for i in ids))
        return row


def speed(alone_ns, r):
    """The standalone run's cost of a unit of computation over this
    run's ("" where the workload prints none)."""
    a, b = to_float(alone_ns), to_float(r["result"].get("unit_ns"))
    return f"{a / b:.4f}" if a and b else ""


def timed_span(fg):
    """From the first job's timed start to the last one's end, from the
    start each printed (start_mono, CLOCK_MONOTONIC: all rank 0s run on
    node 0), or None when one did not print it."""
    starts = [to_float(r["result"].get("start_mono")) for r in fg]
    if not starts or None in starts or None in [r["time_s"] for r in fg]:
        return None
    return max(s + r["time_s"] for s, r in zip(starts, fg)) - min(starts)
