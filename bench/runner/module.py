# SPDX-License-Identifier: GPL-2.0
"""The cosched module seen from the runner: load it if it is built and not
loaded, set the policy, read its counters.  On a cluster (hosts given) the
same files are written and read on every host through a remote shell
(ssh by default); loading the module there is the admin's job."""
import os
import subprocess

from .util import BenchError, log

SYS = "/sys/kernel/cosched"


class Module:
    def __init__(self, root, hosts=None, remote=("ssh",)):
        self.root = root
        self.hosts = hosts or []
        self.remote = list(remote)
        self.loaded_by_us = False
        self.available = False
        self.why_not = ""

    # -- where the module lives: here, or on every host ----------------
    def _sh(self, host, script):
        cmd = self.remote + [host, script] if host else ["sh", "-c", script]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout, p.stderr.strip()

    def _targets(self):
        return self.hosts if self.hosts else [None]

    def start(self):
        """Make the module available if it can be; remember why not."""
        if self.hosts:
            bad = [h for h in self.hosts
                   if self._sh(h, f"test -w {SYS}/policy")[0] != 0]
            self.available = not bad
            self.why_not = f"no writable {SYS}/policy on {', '.join(bad)}" if bad else ""
            return self.available
        if not os.path.isdir(SYS):
            ko = os.path.join(self.root, "build", os.uname().release, "cosched.ko")
            if not os.path.exists(ko):
                self.why_not = f"module not loaded and {ko} not built (make modules)"
                return False
            # A calibrated guest (tests/vm/vmrun.sh --calibrated) scales the
            # module's time parameters with its dilation.
            params = os.environ.get("COSCHED_MODPARAMS", "").split()
            p = subprocess.run(["insmod", ko] + params, capture_output=True, text=True)
            if p.returncode != 0:
                self.why_not = f"insmod {ko} {' '.join(params)}: {p.stderr.strip() or 'failed'}"
                return False
            self.loaded_by_us = True
        if not os.access(os.path.join(SYS, "policy"), os.W_OK):
            self.why_not = f"{SYS}/policy not writable (run as root)"
            return False
        self.available = True
        return True

    def stop(self):
        if not self.available:
            return
        try:
            self.set_policy("local")
        except BenchError as e:
            log(f"run-mix: {e}")
        if self.loaded_by_us:
            # Waits while a task that owned endpoints is still leaving.
            unload = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                  "..", "..", "scripts", "rmmod-cosched")
            p = subprocess.run([unload], capture_output=True, text=True)
            if p.returncode != 0:
                log(f"run-mix: rmmod cosched: {p.stderr.strip()}")

    def set_policy(self, policy):
        for h in self._targets():
            if h is None:
                try:
                    with open(os.path.join(SYS, "policy"), "w") as f:
                        f.write(policy + "\n")
                    continue
                except OSError as e:
                    raise BenchError(f"cannot set policy {policy}: {e.strerror}") from e
            rc, _, err = self._sh(h, f"echo {policy} > {SYS}/policy")
            if rc != 0:
                raise BenchError(f"{h}: cannot set policy {policy}: {err}")

    def set_tunable(self, name, value):
        if "/" in name or name.startswith("."):
            raise BenchError(f"bad tunable name '{name}'")
        for h in self._targets():
            if h is None:
                try:
                    with open(os.path.join(SYS, name), "w") as f:
                        f.write(str(value) + "\n")
                    continue
                except OSError as e:
                    raise BenchError(f"cannot set {name}={value}: {e.strerror}") from e
            rc, _, err = self._sh(h, f"echo {value} > {SYS}/{name}")
            if rc != 0:
                raise BenchError(f"{h}: cannot set {name}={value}: {err}")

    def stats(self):
        """The module's global counters (stats/*), summed over hosts; {}
        when the module is not there."""
        if not self.available:
            return {}
        total = {}
        for h in self._targets():
            if h is None:
                d = os.path.join(SYS, "stats")
                vals = {}
                for name in sorted(os.listdir(d)):
                    try:
                        with open(os.path.join(d, name)) as f:
                            vals[name] = int(f.read().strip())
                    except (OSError, ValueError):
                        pass
            else:
                rc, out, _ = self._sh(h, f"cd {SYS}/stats && grep . *")
                vals = {}
                if rc == 0:
                    for line in out.splitlines():
                        k, _, v = line.partition(":")
                        if v.strip().lstrip("-").isdigit():
                            vals[k] = int(v)
            for k, v in vals.items():
                total[k] = total.get(k, 0) + v
        return total


def delta(before, after):
    """Counters that grew during a run (live counts like endpoints are
    gauges, not counters: left out)."""
    return {k: after[k] - before.get(k, 0) for k in after
            if k not in ("endpoints", "jobs")}
