# SPDX-License-Identifier: GPL-2.0
"""What produces a run's numbers, recorded with every cell of a results
directory so that a resumed sweep never mixes cells of two configurations:
the runner's options that change a run, the kernel, the scheduler's and the
module's time constants, and a fingerprint of the sources the run executes
(module, library, glue, monitor, workloads, runner).  Commits that touch
only other files (documentation, tests, the report) leave it unchanged."""
import hashlib
import os
import subprocess

from .util import BenchError

# What a run executes; bench/mixes is fingerprinted per mix (mix_sha).
SOURCES = ["kernel", "include", "userlib", "mpi-glue", "bpf",
           "bench/workloads", "bench/runner", "bench/run-mix"]
# Files under SOURCES that do not change a run: the readers of results,
# and bench/validate's and bench/grain-sweep's drivers (what they make
# run-mix do is in its options and the mixes' hashes, both recorded).
NOT_RUN = ("bench/runner/report_", "bench/runner/validate.py",
           "bench/runner/grains.py", "bench/runner/sweep_table.py",
           "README", ".rst", ".md")

# Scheduler time constants a calibrated testbed may scale (6.12: EEVDF's
# base slice; 6.1: CFS's latency and granularities), and every
# /proc/sys/kernel/sched_* knob.
DEBUG_SCHED = "/sys/kernel/debug/sched"
SCHED_FILES = [f"{DEBUG_SCHED}/{n}" for n in
               ("base_slice_ns", "latency_ns", "min_granularity_ns",
                "wakeup_granularity_ns", "migration_cost_ns", "nr_migrate")]
COSCHED_SYS = "/sys/kernel/cosched"
# $COSCHED_<KEY> of a calibrated guest, kept in each cell's provenance.
RECORDED_ENV = ("slice_rule", "host_quantum_ms")


def _git(root, *args):
    try:
        p = subprocess.run(["git", "-C", root, *args], capture_output=True,
                           timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout if p.returncode == 0 else None


def _files(root):
    """The source files under SOURCES: git's tracked files when ROOT is a
    checkout, else every file but build products."""
    out = _git(root, "ls-files", "-z", "--", *SOURCES)
    if out is not None:
        return sorted(f for f in out.decode().split("\0") if f)
    found = []
    for top in SOURCES:
        p = os.path.join(root, top)
        if os.path.isfile(p):
            found.append(top)
        for d, dirs, names in os.walk(p):
            dirs[:] = [x for x in dirs if not x.startswith(".") and x != "__pycache__"]
            for n in names:
                if not n.startswith(".") and not n.endswith((".o", ".ko", ".pyc", ".a", ".so")):
                    found.append(os.path.relpath(os.path.join(d, n), root))
    return sorted(found)


def sources(root):
    """{fingerprint, commit, dirty}: the fingerprint hashes the working
    tree's content of every source file (uncommitted edits included)."""
    h = hashlib.sha256()
    for f in _files(root):
        if f.startswith(NOT_RUN) or f.endswith(NOT_RUN):
            continue
        try:
            with open(os.path.join(root, f), "rb") as fh:
                data = fh.read()
        except OSError:
            data = b"(missing)"
        h.update(f.encode() + b"\0" + hashlib.sha256(data).digest())
    commit = (_git(root, "rev-parse", "HEAD") or b"").decode().strip()
    status = _git(root, "status", "--porcelain", "--untracked-files=no", "--", *SOURCES)
    return {"fingerprint": h.hexdigest()[:16], "commit": commit or "unknown",
            "dirty": bool(status.strip()) if status is not None else None}


def _read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def testbed():
    """The kernel, its time constants and the module's tunables (the
    writable files of /sys/kernel/cosched but the policy, and its load-time
    parameters), as they are now; COSCHED_DILATION when a calibrated guest
    exports it."""
    if (os.environ.get("COSCHED_VM") and os.geteuid() == 0
            and not os.path.isdir(DEBUG_SCHED)):
        # In a throw-away guest: debugfs shows the time constants.
        subprocess.run(["mount", "-t", "debugfs", "none", "/sys/kernel/debug"],
                       capture_output=True)
    files = SCHED_FILES + sorted(
        os.path.join("/proc/sys/kernel", n) for n in os.listdir("/proc/sys/kernel")
        if n.startswith("sched_"))
    sched = {os.path.basename(p): v for p in files if (v := _read(p)) is not None}
    tun = {}
    if os.path.isdir(COSCHED_SYS):
        for n in sorted(os.listdir(COSCHED_SYS)):
            p = os.path.join(COSCHED_SYS, n)
            if n != "policy" and os.path.isfile(p) and os.stat(p).st_mode & 0o200:
                v = _read(p)
                if v is not None:
                    tun[n] = v
    params = "/sys/module/cosched/parameters"
    if os.path.isdir(params):
        for n in sorted(os.listdir(params)):
            v = _read(os.path.join(params, n))
            if v is not None:
                tun[f"parameters/{n}"] = v
    return {"kernel": os.uname().release, "sched": sched, "tunables": tun,
            "dilation": os.environ.get("COSCHED_DILATION", "")}


def config(opts, root, nodes, mpi):
    """Everything a cell's numbers depend on but the cell itself: a cell
    made under another config is not comparable.  The commit and the dirty
    flag are kept for the record but do not count (the fingerprint does)."""
    src = sources(root)
    options = {"mpi": mpi, "nodes": nodes,
               "seconds": opts.seconds, "timeout_factor": opts.timeout_factor,
               "standalone_repeats": opts.standalone_repeats,
               "gang_slice": opts.gang_slice, "set": sorted(opts.set),
               "monitor": None if opts.no_monitor else opts.monitor_interval,
               "hosts": opts.hosts_list, "cpu": opts.cpu if opts.hosts_list else None,
               "net_if": opts.net_if}
    if getattr(opts, "dilate", False):
        options["dilate"] = opts.dilation
    if getattr(opts, "slurm", False):
        # Only when set: directories made before --slurm existed still match.
        options["slurm"] = slurm_config()
    # How a calibrated guest set its slice: recorded, not compared (the
    # slice itself is, in testbed; the host's quantum is a measurement).
    for key in RECORDED_ENV:
        if os.environ.get(f"COSCHED_{key.upper()}"):
            src[key] = os.environ[f"COSCHED_{key.upper()}"]
    return {"options": options, "testbed": testbed(),
            "sources": src["fingerprint"]}, src


def scontrol(*args):
    try:
        p = subprocess.run(["scontrol", *args], capture_output=True, text=True,
                           timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise BenchError(f"--slurm: scontrol {' '.join(args)}: {e}") from e
    if p.returncode != 0:
        raise BenchError(f"--slurm: scontrol {' '.join(args)}: {p.stderr.strip()}")
    return p.stdout


def slurm_config():
    """What of Slurm's configuration a --slurm cell depends on: the global
    scheduling settings and each partition's sharing and preemption."""
    if os.environ.get("COSCHED_MIX_FAKE"):
        return {"fake": "no Slurm",
                "gang": os.environ.get("COSCHED_MIX_FAKE_SLURM_GANG") == "1"}
    keep = ("SchedulerTimeSlice", "PreemptMode", "PreemptType", "SelectType",
            "SelectTypeParameters")
    conf = {}
    for line in scontrol("show", "config").splitlines():
        k, sep, v = line.partition("=")
        if sep and k.strip() in keep:
            conf[k.strip()] = v.strip()
    conf["gang"] = "GANG" in conf.get("PreemptMode", "").upper()
    for line in scontrol("show", "partition", "-o").splitlines():
        kv = dict(w.split("=", 1) for w in line.split() if "=" in w)
        if "PartitionName" in kv:
            conf["partition " + kv["PartitionName"]] = " ".join(
                f"{k}={kv.get(k, '')}" for k in ("Nodes", "OverSubscribe", "PreemptMode"))
    return conf


def file_sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def differences(old, new, prefix=""):
    """['options.seconds: 1 -> 2', ...] between two configs."""
    out = []
    for k in sorted(set(old) | set(new)):
        a, b = old.get(k), new.get(k)
        if isinstance(a, dict) and isinstance(b, dict):
            out += differences(a, b, f"{prefix}{k}.")
        elif a != b:
            out.append(f"{prefix}{k}: {a!r} -> {b!r}")
    return out
