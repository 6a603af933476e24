# SPDX-License-Identifier: GPL-2.0
"""How busy the machine under a run was with other work.  A run's jobs
get less CPU than their share when other processes of the host run
beside them, and nothing in the numbers says so; each run therefore
records how many CPUs other processes kept busy meanwhile (host_others)
and how many the host's own hypervisor stole (host_steal).

Natively: all busy time in /proc/stat over the run, less the CPU time of
run-mix itself and of its children (the jobs, the hogs, the monitor),
which are all waited for by the end of a run that finished (a run that
timed out is killed, its ranks reaped by init: nothing is recorded).
Where the kernel accounts interrupts to the task they interrupt (no
CONFIG_IRQ_TIME_ACCOUNTING), the jobs' own softirq work counts as
theirs; where it accounts them apart, as others'.  In a guest of
tests/vm/vmrun.sh: the host's figures, which vmrun.sh samples every 2 s
into $COSCHED_VMOUT/host-load.csv (tests/vm/host-load.sh), with what
QEMU's own threads other than its vCPUs took (host_qemu_aux).  A sample
tells of the 2 s before it, so a run is charged with the samples
appended while it ran and with the next one, which stop() waits for
(the run's last seconds; the first sample also tells of the seconds
before the run, which can only make a quiet run look busier).  The
samples are chosen by the file's size before and after, so that no
clock needs to agree between guest and host.  No sample (the sampler
gone): nothing recorded, which the tables count as unknown.

Not "others" natively but not the jobs' either: kernel threads working
for them (the module's workers, ksoftirqd when softirqs overflow to
it).  Under the module those count as other load here."""
import os
import time

HZ = os.sysconf("SC_CLK_TCK")
# How long stop() waits for the sample after a run: vmrun.sh samples
# every 2 s.
NEXT_SAMPLE_S = 5.0


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

    def __init__(self, vmout=None, remote=False, next_sample_s=NEXT_SAMPLE_S):
        self.remote = remote
        self.next_sample_s = next_sample_s
        self.samples = None
        if vmout is None:
            vmout = os.environ.get("COSCHED_VMOUT")
        if vmout and os.environ.get("COSCHED_VM"):
            self.samples = os.path.join(vmout, "host-load.csv")

    def start(self):
        if self.remote:
            return None
        if self.samples:
            return self._size()
        busy, steal = _stat()
        return time.monotonic(), busy, steal, _own_cpu()

    def stop(self, token):
        if token is None:
            return {}
        if self.samples:
            return self._from_samples(token, self._after_next_sample())
        t0, b0, s0, c0 = token
        busy, steal = _stat()
        dt = time.monotonic() - t0
        if dt <= 0:
            return {}
        others = max(0.0, ((busy - b0) / HZ - (_own_cpu() - c0)) / dt)
        return fmt(others, (steal - s0) / HZ / dt)

    def _size(self):
        try:
            return os.path.getsize(self.samples)
        except OSError:
            return 0

    def _after_next_sample(self):
        """The file's size once a sample more is in it (or, the sampler
        gone, after next_sample_s)."""
        end = self._size()
        deadline = time.monotonic() + self.next_sample_s
        while self._size() <= end and time.monotonic() < deadline:
            time.sleep(0.1)
        return self._size()

    def _from_samples(self, start, end):
        """The mean of host-load.csv's lines appended between the byte
        offsets @start and @end (whole lines only)."""
        try:
            with open(self.samples, "rb") as f:
                # From the byte before: a line begins at @start only if
                # that byte ends the line before.
                first = max(0, start - 1)
                f.seek(first)
                text = f.read(max(0, end - first)).decode(errors="replace")
        except OSError:
            return {}
        pieces = text.split("\n")
        # The last piece has no newline yet (or is empty); the first, read
        # from the byte before @start, is the end of the line before.
        lines = pieces[:-1] if start == 0 else pieces[1:-1]
        got = []
        for line in lines:
            v = line.split()
            try:
                # (A file of a host-load.sh before aux: three fields.)
                if len(v) in (3, 4):
                    got.append([float(x) for x in v[1:]])
            except ValueError:
                continue        # not a sample line: the others still count
        if not got:
            return {}
        mean = [sum(g[i] for g in got) / len(got) for i in range(2)]
        auxes = [g[2] for g in got if len(g) == 3]
        return fmt(*mean, sum(auxes) / len(auxes) if auxes else None)


def fmt(others, steal, aux=None):
    """The record: host_qemu_aux (QEMU's threads other than its vCPUs,
    in CPUs) only from a guest's samples."""
    out = {"host_others": f"{others:.3f}", "host_steal": f"{steal:.3f}"}
    if aux is not None:
        out["host_qemu_aux"] = f"{aux:.3f}"
    return out


def worst(values):
    """The highest of load figures ("0.012", or "" where unknown), as a
    figure; "" when none is known.  A known high figure is not hidden by
    an unknown one beside it."""
    known = [float(v) for v in values if v not in (None, "")]
    return f"{max(known):.3f}" if known else ""
