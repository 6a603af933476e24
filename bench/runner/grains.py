# SPDX-License-Identifier: GPL-2.0
"""The grain configurations shared by bench/validate and bench/grain-sweep:
a number of jobs of the `grain` workload sharing the nodes (2 or 4), or one
such job beside a compute hog on every node, each at a native-equivalent
grain; their mix files for run-mix; the run-mix command of one side with
every time constant stretched by the side's dilation; and each cell's
figure: the slowdown against the ideal (the jobs' standalone times added
up) for 2 and 4 jobs, against the fair share (twice the standalone time:
each CPU is shared with a hog) for the job beside hogs."""
import argparse
import os
import shlex
import subprocess

from .report_data import Results
from .util import BenchError

CONFIGS = {
    "2j": ("2 jobs", ["grain"] * 2, 1.0),
    "4j": ("4 jobs", ["grain"] * 4, 1.0),
    "hog": ("1 job beside a hog on each CPU", ["grain", "hog"], 2.0),
}


def grain_name(us):
    if us % 1000 == 0:
        return f"{us // 1000}ms"
    return f"{us}us"


def mix_name(config, grain_us):
    return f"val-{config}-{grain_name(grain_us)}"


def write_mixes(directory, grains, configs=tuple(CONFIGS)):
    """One mix file per configuration and grain; returns their paths."""
    os.makedirs(directory, exist_ok=True)
    paths = []
    for grain in grains:
        for config in configs:
            what, progs, _ = CONFIGS[config]
            name = mix_name(config, grain)
            path = os.path.join(directory, name + ".conf")
            lines = [f"# {what}, grain {grain} us native-equivalent",
                     f"name = {name}"]
            lines += [p if p == "hog" else f"grain -c {grain}" for p in progs]
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
            paths.append(path)
    return paths


# Nodes of every side: the guests' CPUs (vmrun.sh --smp), and as many of
# the host's, whatever it has.
NODES = 2
KERNELS = ("6.1", "6.12")
LOCK = "/tmp/cosched-guest.lock"


def add_options(p, grains, timeout):
    """The options bench/validate and bench/grain-sweep share."""
    p.add_argument("-g", "--grains", default=grains)
    p.add_argument("-r", "--repeats", type=int, default=3)
    p.add_argument("-t", "--seconds", type=float, default=1.0)
    p.add_argument("-m", "--mpi", default="openmpi", choices=["openmpi", "mpich"])
    p.add_argument("--gang-slice", type=int, default=100)
    p.add_argument("--slice-rule", default="quantum", choices=["quantum", "scale"])
    p.add_argument("--timeout", type=int, default=timeout)
    p.add_argument("--rerun-suspect", action="store_true")
    p.add_argument("--in-guest", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("-h", "--help", action="store_true")


def check_options(o):
    """Parses o.grains; an error message, or None."""
    try:
        o.grains = [int(g) for g in o.grains.split(",")]
    except ValueError:
        o.grains = []
    if not o.grains or min(o.grains) < 1 or o.repeats < 1 or o.seconds <= 0 \
            or o.gang_slice <= 0:
        return "grains, repeats, seconds and the slice take positive numbers"
    return None


def own_args(o):
    """The shared options as given, for the copy of a driver in a guest."""
    return ["-g", ",".join(map(str, o.grains)), "-r", str(o.repeats),
            "-t", f"{o.seconds:g}", "-m", o.mpi, "--gang-slice", str(o.gang_slice)] + \
        (["--rerun-suspect"] if o.rerun_suspect else [])


def guest_side(side):
    """(kernel, forced dilation or None) of "K" or "K:F", or None."""
    kernel, _, factor = side.partition(":")
    if kernel not in KERNELS:
        return None
    if not factor:
        return kernel, None
    try:
        f = float(factor)
    except ValueError:
        return None
    return (kernel, factor) if 0 < f <= 1000 else None


def run_mix_args(root, columns, o, mixes, outdir):
    """bench/run-mix for one side: every time constant native-equivalent
    (--dilate: the jobs' length o.seconds and gang's slice o.gang_slice,
    times the guest's $COSCHED_DILATION, 1 natively); the grain stretches
    itself (the workload reads $COSCHED_DILATION)."""
    return [os.path.join(root, "bench", "run-mix"), "-p", ",".join(columns),
            "-r", str(o.repeats), "--dilate", "-t", f"{o.seconds:g}",
            "--gang-slice", str(o.gang_slice),
            "-n", str(NODES), "-m", o.mpi, "--no-monitor", "-o", outdir, *mixes] + \
        (["--rerun-suspect"] if o.rerun_suspect else [])


def in_guest(root, columns, o, configs=tuple(CONFIGS)):
    """A driver's part inside a calibrated guest: the mixes and the sweep
    in $COSCHED_VMOUT (mixes/, mix-results/)."""
    guest_dilation()
    out = os.environ.get("COSCHED_VMOUT", "/tmp/vmout")
    mixes = write_mixes(os.path.join(out, "mixes"), o.grains, configs)
    return subprocess.call(run_mix_args(root, columns, o, mixes,
                                        os.path.join(out, "mix-results")))


def guest_command(root, kernel, o, outdir, script, args):
    """vmrun.sh booting a calibrated @kernel guest that runs @script
    --in-guest @args, its results share @outdir."""
    return [os.path.join(root, "tests", "vm", "vmrun.sh"), "--calibrated",
            "--slice-rule", o.slice_rule, "--kernel", kernel, "--smp", "2", "--timeout", str(o.timeout),
            "--outdir", outdir, "--", os.path.abspath(script), "--in-guest", *args]


def run_locked(cmd, env, what):
    """@cmd under the guest lock (native sides too: no guest of this
    machine may run beside them); COSCHED_MIX_FAKE runs it bare."""
    print(f"{what}: {' '.join(map(shlex.quote, cmd))}", flush=True)
    if os.environ.get("COSCHED_MIX_FAKE"):
        return subprocess.call(cmd, env=env)
    return subprocess.call(["flock", LOCK, *cmd], env=env)


def side_env(dilation=None):
    """The environment of one side's command: the grain workload reads
    COSCHED_DILATION, so a native side must not inherit one, and a guest
    side has vmrun.sh measure it unless @dilation forces it."""
    env = dict(os.environ)
    env.pop("COSCHED_DILATION", None)
    if dilation:
        env["COSCHED_DILATION"] = dilation
    return env


def guest_dilation():
    """$COSCHED_DILATION of a calibrated guest; refuses elsewhere."""
    try:
        dil = float(os.environ.get("COSCHED_DILATION") or 0)
    except ValueError:
        dil = 0
    if dil <= 0:
        raise BenchError("not in a calibrated guest (no COSCHED_DILATION): "
                         "use tests/vm/vmrun.sh --calibrated")
    return dil


def side_cells(results_dir):
    """{(mix, column): Cell} of one side's run-mix directory, as
    bench/report reads it (a rerun's row replacing the earlier one)."""
    if not os.path.exists(os.path.join(results_dir, "runs.csv")):
        return {}
    return Results(results_dir, None).cells


def figure(cell, config):
    """(median, low, high) of the configuration's figure, or None."""
    if not cell or cell.slowdown is None:
        return None
    norm = CONFIGS[config][2]
    lo, hi = (s / cell.ideal / norm for s in cell.spread)
    return cell.slowdown / norm, lo, hi


def fmt_fig(f):
    if not f:
        return "-"
    return f"{f[0]:.2f} [{f[1]:.2f}-{f[2]:.2f}]"


def unit(config):
    return "x fair share" if CONFIGS[config][2] != 1.0 else "x ideal"
