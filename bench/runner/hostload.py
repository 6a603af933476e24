# SPDX-License-Identifier: GPL-2.0
"""How busy the machine under a run was with other work.  A run's jobs
get less CPU than their share when other processes of the host run
beside them, and nothing in the numbers says so; each run therefore
records how many CPUs other processes kept busy meanwhile (host_others)
and how many the host's own hypervisor stole (host_steal).

Natively: all busy time in /proc/stat over the run, less the CPU time of
run-mix itself and of its children (the jobs, the hogs, the monitor),
which are all waited for by the run's end.  In a guest of
tests/vm/vmrun.sh: the host's figures, which vmrun.sh samples every 2 s
into $COSCHED_VMOUT/host-load.csv (tests/vm/host-load.sh); the samples
that fall inside the run are averaged (the guest's clock is the host's,
set at boot)."""
import os
import time

HZ = os.sysconf("SC_CLK_TCK")


def _stat():
    """(busy, steal) ticks of the whole machine."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = v
    return user + nice + system + irq + softirq, steal


def _own_cpu():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class LoadMeter:
    """meter.start() before a run, meter.stop(token) after it:
    {"host_others": "0.012", "host_steal": "0.000"}, or {} where it
    cannot tell (a run on other hosts: their load is not this one's)."""

    def __init__(self, vmout=None, remote=False):
        self.remote = remote
        self.samples = None
        if vmout is None:
            vmout = os.environ.get("COSCHED_VMOUT")
        if vmout and os.environ.get("COSCHED_VM"):
            self.samples = os.path.join(vmout, "host-load.csv")

    def start(self):
        if self.remote:
            return None
        if self.samples:
            return time.time()
        busy, steal = _stat()
        return time.monotonic(), busy, steal, _own_cpu()

    def stop(self, token):
        if token is None:
            return {}
        if self.samples:
            return self._from_samples(token, time.time())
        t0, b0, s0, c0 = token
        busy, steal = _stat()
        dt = time.monotonic() - t0
        if dt <= 0:
            return {}
        others = max(0.0, ((busy - b0) / HZ - (_own_cpu() - c0)) / dt)
        return fmt(others, (steal - s0) / HZ / dt)

    def _from_samples(self, t0, t1):
        """The mean of host-load.csv's samples taken during [t0, t1]."""
        got = []
        try:
            with open(self.samples) as f:
                for line in f:
                    v = line.split()
                    if len(v) == 3 and t0 <= float(v[0]) <= t1:
                        got.append((float(v[1]), float(v[2])))
        except (OSError, ValueError):
            return {}
        if not got:
            return {}
        return fmt(sum(o for o, _ in got) / len(got), sum(s for _, s in got) / len(got))


def fmt(others, steal):
    return {"host_others": f"{others:.3f}", "host_steal": f"{steal:.3f}"}
