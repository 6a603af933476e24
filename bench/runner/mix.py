# SPDX-License-Identifier: GPL-2.0
"""Reading a mix file (bench/mixes/mixNN.conf; bench/mixes/README describes
the format): which jobs share the nodes.

All this module needs from a file is, per job, the workload program and its
arguments; everything else about running it (ranks, CPUs, MPI, size) is the
runner's.  Lines:

    # comment                      (also after a job)
    name = mix05                   key = value settings of the mix
    job = life -v hi               one job: workload, then its arguments
    life -v hi                     the same, without "job ="

Arguments that size a run (-t SECONDS, -n ITERS) are taken out of the job:
the runner sizes each job itself (-t for the standalone run, then -n with
the iterations that run printed, so the concurrent runs do the same work).
"""
import hashlib
import json
import os
import re
import shlex

from .util import BenchError

SIZE_OPTS = ("-t", "-n")


class Job:
    def __init__(self, index, program, args, seconds=None):
        self.index = index          # 0-based position in the mix
        self.program = program      # workload name: life, mg, lu, ep, hog ...
        self.args = args            # its arguments, without -t/-n
        self.seconds = seconds      # -t given in the mix, if any
        self.rpn = 1                # ranks per node (ranks_per_node =)
        self.label = f"{index + 1}:{program}{variant_suffix(args)}"

    def __repr__(self):
        return f"Job({self.label} {' '.join(self.args)})"


class Mix:
    def __init__(self, path, name, jobs, settings):
        self.path = path
        self.name = name
        self.jobs = jobs
        self.settings = settings

    @property
    def number(self):
        """The thesis's workload number, from a name like mix05, or None."""
        m = re.search(r"(\d+)$", self.name)
        return int(m.group(1)) if m else None

    @property
    def sha(self):
        """What the mix runs (its comments aside): results of two versions
        of a mix do not belong in one table."""
        what = {"jobs": [[j.program, j.args, j.seconds, j.rpn] for j in self.jobs],
                "settings": self.settings}
        return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:16]


def variant_suffix(args):
    """' hi' for '-v hi': how a job is told apart in tables."""
    for i, a in enumerate(args):
        if a == "-v" and i + 1 < len(args):
            return "-" + args[i + 1]
        if a.startswith("-v") and len(a) > 2:
            return "-" + a[2:]
    return ""


def split_size(args):
    """Take -t/-n out of a job's arguments; return (args, seconds)."""
    out, seconds, i = [], None, 0
    while i < len(args):
        a = args[i]
        if a in SIZE_OPTS:
            if i + 1 >= len(args):
                raise BenchError(f"{a} without a value")
            if a == "-t":
                seconds = float(args[i + 1])
            i += 2
            continue
        out.append(a)
        i += 1
    return out, seconds


def parse(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise BenchError(f"cannot read mix {path}: {e.strerror}") from e
    name = os.path.splitext(os.path.basename(path))[0]
    settings, jobs = {}, []
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{path}:{lineno}"
        m = re.match(r"^([A-Za-z_][\w-]*)\s*[=:]\s*(.*)$", line)
        if m and m.group(1) not in ("job",):
            settings[m.group(1)] = m.group(2).strip()
            continue
        if m:
            line = m.group(2)
        try:
            words = shlex.split(line)
            args, seconds = split_size(words[1:])
        except (ValueError, BenchError) as e:
            raise BenchError(f"{where}: {e}") from e
        if not words:
            raise BenchError(f"{where}: a job line without a program")
        jobs.append(Job(len(jobs), words[0], args, seconds))
    if not jobs:
        raise BenchError(f"{path}: no jobs")
    try:
        rpn = int(settings.get("ranks_per_node", "1"))
    except ValueError:
        rpn = 0
    if rpn < 1:
        raise BenchError(f"{path}: ranks_per_node takes a positive number")
    for j in jobs:
        j.rpn = rpn
    return Mix(path, settings.get("name", name), jobs, settings)
