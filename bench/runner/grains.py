# SPDX-License-Identifier: GPL-2.0
"""The grain configurations shared by bench/validate and bench/grain-sweep:
a number of jobs of the `grain` workload sharing the nodes (2 or 4), or one
such job beside a compute hog on every node, each at a native-equivalent
grain; their mix files for run-mix; the run-mix command of one side with
every time constant stretched by the side's dilation; and each cell's
figure: the slowdown against the ideal (the jobs' standalone times added
up) for 2 and 4 jobs, against the fair share (twice the standalone time:
each CPU is shared with a hog) for the job beside hogs."""
import os

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


def run_mix_args(root, columns, o, mixes, outdir, dilation):
    """bench/run-mix for one side, every time constant times @dilation:
    the jobs' length (o.seconds) and gang's slice (o.gang_slice); the
    grain stretches itself (the workload reads $COSCHED_DILATION)."""
    return [os.path.join(root, "bench", "run-mix"), "-p", ",".join(columns),
            "-r", str(o.repeats), "-t", f"{o.seconds * dilation:g}",
            "--gang-slice", str(max(1, round(o.gang_slice * dilation))),
            "-n", str(NODES), "-m", o.mpi, "--no-monitor", "-o", outdir, *mixes]


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
