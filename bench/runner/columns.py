# SPDX-License-Identifier: GPL-2.0
"""The columns of the tables: the module's policies and the baselines a
user would pick instead.  A column says how every job of a run is launched
and which policy the module must have."""
from .util import BenchError

POLICIES = ["local", "sb", "sy", "dcs", "dcs-sb", "dcs-sy",
            "pb", "pbt", "pb-sb", "pb-sy", "pba", "pba-sb", "pba-sy",
            "dcs-fair"]

# Baselines: plain MPI without the glue.
#   busy-poll  MPI's default busy polling under the stock scheduler (the
#              module, when loaded, is set to local: it does nothing)
#   mpi-yield  Open MPI's mpi_yield_when_idle=1: polls, but sched_yield()s
#              between polls.  MPICH 4.0.2 (ch4:ucx) has no such mode.
#   gang       busy polling, jobs time-sliced by SIGSTOP/SIGCONT (the way
#              Slurm gang-schedules); gang:MS sets the slice.
# No "blocking progress" column: neither MPI installed here has one (MPICH
# ch4:ucx always polls; Open MPI 4.1's ob1/tcp polls in MPI_Wait, its
# btl_tcp_progress_thread adds a thread but the caller still polls).
BASELINES = ["busy-poll", "mpi-yield", "gang"]
# With --slurm: Slurm's own gang scheduling (a Slurm with PreemptMode=GANG,
# its SchedulerTimeSlice), jobs busy-polling; SIGSTOP-based "gang" is
# refused there.  Slurm's gang is all or nothing (every job sharing a CPU
# is time-sliced): slurm-gang runs only where it is on, the other columns
# only where it is off.
SLURM_BASELINES = ["slurm-gang"]

DEFAULT_GANG_SLICE_MS = 100


class Column:
    def __init__(self, name, policy, glue, mpi=None, mpiexec_args=(),
                 gang_ms=None, mca=None, slurm_gang=False):
        self.name = name            # as in the tables
        self.policy = policy        # the module's policy during the run
        self.glue = glue            # preload the MPI glue
        self.mpi = mpi              # forced MPI implementation, or None
        self.mpiexec_args = list(mpiexec_args)
        self.gang_ms = gang_ms      # time slice, for the gang baseline
        self.mca = dict(mca or {})  # Open MPI parameters (srun: OMPI_MCA_*)
        self.slurm_gang = slurm_gang  # needs a Slurm that gang-schedules

    @property
    def is_policy(self):
        return self.glue

    def __repr__(self):
        return f"Column({self.name})"


def parse(spec, gang_ms=DEFAULT_GANG_SLICE_MS):
    """'local,dcs,busy-poll,gang:50' -> [Column]; 'all' = every policy,
    'baselines' = every baseline, 'slurm-baselines' = those a Slurm
    without gang scheduling runs (busy-poll, mpi-yield)."""
    cols = []
    for word in spec.split(","):
        word = word.strip()
        if not word:
            continue
        if word == "all":
            cols += [parse_one(p, gang_ms) for p in POLICIES]
        elif word == "baselines":
            cols += [parse_one(b, gang_ms) for b in BASELINES]
        elif word == "slurm-baselines":
            cols += [parse_one(b, gang_ms) for b in BASELINES if b != "gang"]
        else:
            cols.append(parse_one(word, gang_ms))
    names = [c.name for c in cols]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise BenchError(f"column given twice: {', '.join(sorted(dup))}")
    if not cols:
        raise BenchError("no policies or baselines given")
    return cols


def parse_one(word, gang_ms):
    if word in POLICIES:
        return Column(word, word, glue=True)
    if word == "busy-poll":
        return Column(word, "local", glue=False)
    if word == "mpi-yield":
        return Column(word, "local", glue=False, mpi="openmpi",
                      mpiexec_args=["--mca mpi_yield_when_idle 1"],
                      mca={"mpi_yield_when_idle": "1"})
    if word == "slurm-gang":
        return Column(word, "local", glue=False, slurm_gang=True)
    if word == "gang" or word.startswith("gang:"):
        ms = gang_ms
        if ":" in word:
            try:
                ms = int(word.split(":", 1)[1])
            except ValueError:
                ms = 0
            if ms <= 0:
                raise BenchError(f"'{word}': gang:MS takes a positive "
                                 "slice in ms")
            return Column(word, "local", glue=False, gang_ms=ms)
        return Column("gang", "local", glue=False, gang_ms=ms)
    raise BenchError(f"unknown policy or baseline '{word}' "
                     f"(policies: {' '.join(POLICIES)}; baselines: "
                     f"{' '.join(BASELINES)}, gang:MS; with --slurm: "
                     f"{' '.join(SLURM_BASELINES)})")


def check_launcher(cols, slurm, slurm_gang=False):
    """Refuse a column the launcher cannot run: SIGSTOP gang signals the
    mpiexec trees it starts (on hosts: their ranks, by COSCHED_JOB), not
    Slurm's steps; Slurm's gang needs Slurm; and a Slurm that
    gang-schedules (@slurm_gang) does it to every job."""
    for c in cols:
        if slurm and c.gang_ms:
            raise BenchError(f"'{c.name}' stops the mpiexec trees it "
                             "starts, not Slurm's steps; with --slurm use "
                             "slurm-gang")
        if not slurm and c.slurm_gang:
            raise BenchError(f"'{c.name}' needs --slurm")
        if slurm and c.slurm_gang != slurm_gang:
            why = ("time-slices every job (PreemptMode=GANG): only slurm-gang "
                   "runs here" if slurm_gang else "does not gang-schedule (no "
                   "GANG in PreemptMode): slurm-gang needs one that does")
            raise BenchError(f"'{c.name}': this Slurm {why}")
