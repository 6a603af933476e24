# SPDX-License-Identifier: GPL-2.0
"""Process trees from /proc: the ranks of a job started through mpiexec,
and killing a job's whole tree (Open MPI puts ranks in their own process
groups, so killing the launcher's group is not enough)."""
import os
import signal


def _ppids():
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # comm may hold spaces and parentheses: the fields after the last ')'
        rest = stat.rsplit(")", 1)[1].split()
        out[int(d)] = int(rest[1])
    return out


def descendants(pid):
    """Every live process below PID, in no particular order."""
    ppids = _ppids()
    children = {}
    for p, pp in ppids.items():
        children.setdefault(pp, []).append(p)
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def exe_of(pid):
    try:
        return os.path.realpath(f"/proc/{pid}/exe")
    except OSError:
        return None


def argv_of(pid):
    """PID's command line as a list ([] when gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0")[:-1]]
    except OSError:
        return []


def ranks_of(pid, program):
    """The processes below PID running PROGRAM (a path): a job's ranks."""
    want = os.path.realpath(program)
    return sorted(p for p in descendants(pid) if exe_of(p) == want)


def kill_tree(pid, sig=signal.SIGKILL):
    """Signal PID's process group and every descendant (ignoring the ones
    already gone)."""
    for p in descendants(pid) + [pid]:
        try:
            os.kill(p, sig)
        except ProcessLookupError:
            pass
        except PermissionError:
            pass
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def ppid_of(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None
