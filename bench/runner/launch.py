# SPDX-License-Identifier: GPL-2.0
"""Starting the jobs of a run: every MPI job through mpi-glue/cosched-run
(rank i on node i), background competitors (hog, noise) one per node, the
gang baseline around them, and the monitor beside them.  Waits for the MPI
jobs, stops the rest, and returns what each printed."""
import os
import signal
import subprocess
import threading
import time

from . import procs
from .util import BenchError, log, parse_kv, result_line, to_float

# Programs that are not MPI jobs: one process per node, running until the
# MPI jobs are done (they compete; they are not part of the completion time).
BACKGROUND = {"hog", "noise"}


class Cluster:
    """Where ranks go.  Without hosts: this machine, node i = CPU i.  With
    hosts: node i = host i, every rank on CPU `cpu` of its host.  With
    slurm: the hosts are Slurm's nodes and srun starts every job."""

    def __init__(self, root, nodes, hosts=None, cpu=0, net_if=None, slurm=False,
                 remote=("ssh",)):
        self.root = root
        self.hosts = hosts or []
        self.remote = list(remote)  # the remote shell, for gang's agents
        self.nodes = len(self.hosts) if self.hosts else nodes
        self.cpu = cpu
        self.net_if = net_if
        self.slurm = slurm

    def mpiexec_args(self, mpi, rpn=1):
        """Hosts, and the network interface: cosched-run keeps MPI on lo
        (the emulated cluster); between real hosts it must use NET_IF.  An
        mpiexec option beats the environment cosched-run sets (Open MPI:
        command line over OMPI_MCA_*; Hydra: -genv over the inherited one)."""
        if not self.hosts:
            return []
        hl = ",".join(h for h in self.hosts for _ in range(rpn))
        if mpi == "mpich":
            args = [f"-hosts {hl}"]
            if self.net_if:
                args.append(f"-genv UCX_NET_DEVICES {self.net_if}")
            return args
        args = [f"--host {hl}"]
        if self.net_if:
            args.append(f"--mca btl_tcp_if_include {self.net_if} "
                        f"--mca oob_tcp_if_include {self.net_if}")
        return args

    def cpus(self, rpn=1):
        """cosched-run's -c: the CPU of each rank, rank r on node r // rpn
        (on a cluster, the hosts list repeats each host rpn times too)."""
        if self.hosts:
            return ",".join([str(self.cpu)] * (self.nodes * rpn))
        return ",".join(str(n) for n in range(self.nodes) for _ in range(rpn))


class Paths:
    def __init__(self, root, mpi):
        self.root = root
        self.cosched_run = os.path.join(root, "mpi-glue", "cosched-run")
        self.wl = os.path.join(root, "build", "bench", "workloads")
        self.mpi = mpi
        self.monitor = os.path.join(root, "build", "bpf", "cosched-monitor")

    def program(self, name, mpi):
        if name in BACKGROUND or name == "gang":
            return os.path.join(self.wl, name)
        return os.path.join(self.wl, mpi, name)


def check_programs(paths, mixes, columns):
    """Fail early, with the make target to run, if something is not built."""
    missing = set()
    if not os.access(paths.cosched_run, os.X_OK):
        missing.add(paths.cosched_run)
    for col in columns:
        mpi = col.mpi or paths.mpi
        for mix in mixes:
            for job in mix.jobs:
                p = paths.program(job.program, mpi)
                if not os.access(p, os.X_OK):
                    missing.add(p)
        if col.gang_ms and not os.access(paths.program("gang", mpi), os.X_OK):
            missing.add(paths.program("gang", mpi))
    if missing:
        raise BenchError("not built: " + ", ".join(sorted(missing)) +
                         " (make -C bench/workloads; make mpi-glue)")


class Running:
    """One started job: the root of its process tree, files and times."""

    def __init__(self, job, pid, popen, logbase, program, t0):
        self.job = job
        self.pid = pid              # the job's launcher (its tree's root)
        self.popen = popen          # None when gang started it
        self.logbase = logbase
        self.program = program
        self.t0 = t0
        self.t1 = None
        self.rc = None

    def done(self):
        if self.popen is not None:
            return self.popen.poll() is not None
        return not os.path.exists(f"/proc/{self.pid}")


def slurm_command(paths, cluster, col, job, size_args):
    """srun for one job: a step of its own allocation, one task per node
    (rpn with ranks_per_node); the glue through
    the SPANK plugin (--cosched, the plugin's default receive mode) or not
    (--cosched=off).  Slurm names the job; the plugin takes its id."""
    mpi = col.mpi or paths.mpi
    prog = paths.program(job.program, mpi)
    env = {f"OMPI_MCA_{k}": v for k, v in col.mca.items()}
    if mpi == "openmpi":
        env.update(OMPI_MCA_pml="ob1", OMPI_MCA_btl="tcp,self")
        if cluster.net_if:
            env.update(OMPI_MCA_btl_tcp_if_include=cluster.net_if)
    else:
        # MPIR_CVAR_NOLOCAL: TCP between a node's ranks too, as cosched-run.
        env.update(COSCHED_MPI_IMPL="mpich", UCX_TLS="tcp", MPIR_CVAR_NOLOCAL="1")
        if cluster.net_if:
            env.update(UCX_NET_DEVICES=cluster.net_if)
    cmd = ["env", *(f"{k}={v}" for k, v in sorted(env.items())),
           "srun", "-N", str(cluster.nodes), "-n", str(cluster.nodes * job.rpn),
           f"--ntasks-per-node={job.rpn}", "--mpi=" + ("pmix" if mpi == "openmpi" else "pmi2"),
           "--cpu-bind=none", "-J", slurm_job_name(job),
           "--cosched" if col.glue else "--cosched=off"]
    return cmd + [prog] + job.args + size_args + ["-q"], prog


def job_command(paths, cluster, col, job, jobid, size_args):
    if cluster.slurm:
        return slurm_command(paths, cluster, col, job, size_args)
    mpi = col.mpi or paths.mpi
    prog = paths.program(job.program, mpi)
    cmd = [paths.cosched_run, "-m", mpi, "-n", str(cluster.nodes * job.rpn),
           "-j", str(jobid), "-c", cluster.cpus(job.rpn)]
    if not col.glue:
        cmd.append("-N")
    for x in col.mpiexec_args + cluster.mpiexec_args(mpi, job.rpn):
        cmd += ["-x", x]
    # No "--" before the program: gang splits its command line on "--".
    return cmd + [prog] + job.args + size_args + ["-q"], prog


def background_commands(paths, cluster, job):
    """One competitor process per node (local mode only)."""
    prog = paths.program(job.program, paths.mpi)
    return [["taskset", "-c", str(i), prog] + job.args
            for i in range(cluster.nodes)], prog


def start(cmd, logbase):
    with open(logbase + ".out", "w") as out, open(logbase + ".err", "w") as err:
        # Own session: the job's tree can be signalled (kill) as a group.
        return subprocess.Popen(cmd, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, start_new_session=True)


def redirected(cmd, logbase):
    """CMD with its output in LOGBASE.out/.err, for gang, which starts the
    jobs itself with its own stdout (sh execs CMD: the pid stays the job's)."""
    return ["sh", "-c", 'exec "$@" >"$0.out" 2>"$0.err"', logbase] + cmd


def gang_argv(paths, cluster, col, cmds, jobids):
    """gang -s MS -- job1 -- job2 ...  On hosts, gang -R: an agent on each
    host stops and continues the ranks there, which carry their job's id
    in COSCHED_JOB (cosched-run -j), and mpiexec with Open MPI's daemons
    runs on (Open MPI did not start jobs across the guest cluster's hosts
    while their mpiexec was stopped for slices)."""
    argv = [paths.program("gang", paths.mpi), "-s", f"{col.gang_ms}ms"]
    if cluster.hosts:
        argv += ["-R", "-H", ",".join(cluster.hosts),
                 "-k", "COSCHED_JOB=" + ",".join(map(str, jobids)),
                 "-r", " ".join(cluster.remote)]
    for c in cmds:
        argv += ["--"] + c
    return argv


def start_gang(paths, cluster, col, cmds, jobids, logbase, t0):
    """Start gang_argv(); returns its Popen and the jobs' pids in the order
    of CMDS, as gang names them ("gang started job=I pid=P"; the agents
    answered before the first job was forked: they have 60 s)."""
    p = start(gang_argv(paths, cluster, col, cmds, jobids), logbase + "_gang")
    deadline = time.monotonic() + 70
    while True:
        ended = p.poll() is not None  # before the read: its last lines in
        started = gang_started(logbase)
        if all(i in started for i in range(len(cmds))):
            return p, [started[i] for i in range(len(cmds))]
        if ended or time.monotonic() > deadline:
            return p, []
        time.sleep(0.05)


def gang_lines(logbase, prefix, value):
    """{job index: value(kv)} over gang's output lines starting with PREFIX
    (so far: gang may still be running)."""
    out = {}
    try:
        with open(logbase + "_gang.out", errors="replace") as f:
            for line in f:
                if line.startswith(prefix):
                    kv = parse_kv(line)
                    out[int(kv["job"])] = value(kv)
    except (OSError, ValueError, KeyError):
        pass
    return out


def gang_started(logbase):
    """gang's "gang started" lines so far: {index: pid}."""
    return gang_lines(logbase, "gang started ", lambda kv: int(kv["pid"]))


def gang_ends(logbase):
    """gang's per-job lines: {index: (status, end_s)}."""
    return gang_lines(logbase, "job=", lambda kv: (int(kv.get("status", 1)),
                                                   to_float(kv.get("end_s"))))


def run_jobs(paths, cluster, col, jobs, logbase, timeout, monitor=None):
    """Start JOBS (list of (Job, size_args)) at once, through gang when the
    column is the gang baseline; wait for the MPI jobs (or TIMEOUT seconds),
    stop the background ones.  Returns {jobs: [...], timed_out, monitor_csv,
    elapsed_s}."""
    running, background = [], []
    t0 = time.monotonic()
    mpi_cmds = []
    for job, size_args in jobs:
        base = f"{logbase}_j{job.index + 1}"
        if job.program in BACKGROUND:
            if cluster.hosts:
                raise BenchError(f"{job.program}: background competitors run "
                                 "only on the local emulated cluster")
            cmds, prog = background_commands(paths, cluster, job)
            for n, c in enumerate(cmds):
                p = start(c, f"{base}_n{n}")
                background.append(Running(job, p.pid, p, f"{base}_n{n}", prog, t0))
            continue
        job_id = job.index + 1
        cmd, prog = job_command(paths, cluster, col, job, job_id, size_args)
        mpi_cmds.append((job, job_id, cmd, prog, base))

    gang = None
    if col.gang_ms:
        gang, pids = start_gang(paths, cluster, col,
                                [redirected(c, b) for _, _, c, _, b in mpi_cmds],
                                [i for _, i, *_ in mpi_cmds], logbase, t0)
        if len(pids) < len(mpi_cmds):
            procs.kill_tree(gang.pid)
            gang.wait()
            raise BenchError(f"gang did not start the jobs (see {logbase}_gang.err)")
        running = [Running(j, pid, None, b, prog, t0)
                   for (j, _, _, prog, b), pid in zip(mpi_cmds, pids)]
    else:
        for job, _, cmd, prog, base in mpi_cmds:
            p = start(cmd, base)
            running.append(Running(job, p.pid, p, base, prog, time.monotonic()))

    # The monitor waits for the ranks to appear (seconds under TCG): in a
    # thread, so that the loop below sees every job end when it happens.
    mon = {}
    mon_thread = None
    if monitor is not None:
        mon_thread = threading.Thread(
            target=lambda: mon.update(h=monitor.start(running, logbase)))
        mon_thread.start()

    try:
        return finish(running, background, gang, mon, mon_thread, monitor,
                      logbase, t0, timeout, cluster.slurm)
    except BaseException:
        # Interrupted (Ctrl-C): the jobs live in their own sessions and
        # would outlive the runner.
        for r in running + background:
            if cluster.slurm:
                scancel(r)
            procs.kill_tree(r.pid)
        if gang is not None:
            procs.kill_tree(gang.pid)
        raise


def slurm_job_name(job):
    """Unique to this runner: scancel by name must not reach the jobs of
    another run-mix on the same Slurm."""
    return f"run-mix-{os.getpid()}-{job.label}"


def scancel(r):
    """Cancel a Slurm job: killing srun alone (SIGKILL cannot be passed
    on) would leave its tasks and allocation running into the next run."""
    try:
        subprocess.run(["scancel", "--name", slurm_job_name(r.job)],
                       capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        log(f"run-mix: scancel {slurm_job_name(r.job)}: {e}")


def finish(running, background, gang, mon, mon_thread, monitor, logbase, t0,
           timeout, slurm=False):
    """Wait for the MPI jobs, stop the rest, collect what each printed."""
    timed_out = False
    pending = list(running)
    while pending:
        for r in list(pending):
            if r.done():
                r.rc = r.popen.returncode if r.popen else None
                r.t1 = time.monotonic()
                pending.remove(r)
        if pending and time.monotonic() - t0 > timeout:
            timed_out = True
            for r in pending:
                if slurm:
                    scancel(r)
                procs.kill_tree(r.pid)
                r.t1 = time.monotonic()
                r.rc = r.popen.wait() if r.popen else -9
            break
        time.sleep(0.05)

    if gang is not None:
        if timed_out:
            procs.kill_tree(gang.pid)
        try:
            # gang's own end is bounded: its agents' 26 s, its jobs' 10 s
            # alongside, 1 s to reap what it killed.
            gang.wait(timeout=60)
        except subprocess.TimeoutExpired:
            procs.kill_tree(gang.pid)
            gang.wait()
        ends = gang_ends(logbase)
        for i, r in enumerate(running):
            if i in ends:
                r.rc = ends[i][0]
                if ends[i][1] is not None:
                    r.t1 = t0 + ends[i][1]
            elif r.rc is None:
                r.rc = -1
    for b in background:
        procs.kill_tree(b.pid, signal.SIGTERM)
    for b in background:
        try:
            b.rc = b.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            procs.kill_tree(b.pid)
            b.rc = b.popen.wait()
        b.t1 = time.monotonic()
    mon_csv = None
    if mon_thread is not None:
        mon_thread.join()
        mon_csv = monitor.stop(mon["h"]) if mon.get("h") else None

    results = []
    for r in running + background:
        with open(r.logbase + ".out", errors="replace") as f:
            res = result_line(f.read())
        if r.rc != 0 and r in running and not timed_out:
            with open(r.logbase + ".err", errors="replace") as f:
                tail = f.read().strip().splitlines()[-3:]
            log(f"run-mix: job {r.job.label} exited {r.rc}: " + " | ".join(tail))
        results.append({
            "job": r.job,
            "background": r in background,
            "rc": r.rc,
            "wall_s": r.t1 - r.t0,
            "end_s": r.t1 - t0,
            "result": res or {},
            "time_s": to_float((res or {}).get("time_s")),
        })
    return {"jobs": results, "timed_out": timed_out, "monitor_csv": mon_csv,
            "elapsed_s": time.monotonic() - t0}
