#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""overlap.py SWITCHES [DILATION]: from `perf script -F cpu,time,trace`
of sched:sched_switch, how CPUs 0 and 1 were shared between the grain
job's ranks (comm "grain", any of their threads) and the hogs: each
CPU's share and on-CPU stints (median, mean, in native-equivalent ms:
divided by DILATION), and the fraction of the time both CPUs ran a rank
at once, beside what two independent CPUs with those shares would give
(their product)."""
import re
import statistics
import sys

LINE = re.compile(r"\[(\d+)\]\s+([\d.]+):.*prev_comm=(.*?) prev_pid=.*"
                  r"==> next_comm=(.*?) next_pid=(\d+)")


def kind(comm):
    return "rank" if comm.startswith("grain") else "hog" if comm == "hog" else "other"


def main():
    path = sys.argv[1]
    dil = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    cur, since, stints, spans = {}, {}, {}, {}
    owner, owned = {}, {}   # rank or hog, whichever last ran on the CPU
    first = last = None
    for line in open(path, errors="replace"):
        m = LINE.search(line)
        if not m:
            continue
        cpu, t = int(m.group(1)), float(m.group(2))
        if cpu not in (0, 1):
            continue
        first = t if first is None else first
        last = t
        nxt = kind(m.group(4))
        if cpu not in cur:      # what ran before the CPU's first switch
            cur[cpu], since[cpu] = kind(m.group(3)), first
        if cur[cpu] != nxt and cur[cpu] == "rank":
            spans.setdefault(cpu, []).append((since[cpu], t))
        if cur[cpu] != nxt:
            since[cpu] = t
        cur[cpu] = nxt
        # A stint: from one competitor's turn to the other's; other
        # tasks running in between (kworkers, perf) do not end it.
        if nxt != "other" and owner.get(cpu) != nxt:
            if cpu in owner:
                stints.setdefault((cpu, owner[cpu]), []).append(t - owned[cpu])
            owner[cpu], owned[cpu] = nxt, t
    for cpu in cur:             # the turn still running at the end
        if cur[cpu] == "rank":
            spans.setdefault(cpu, []).append((since[cpu], last))
    if first is None or 0 not in spans or 1 not in spans:
        sys.exit("overlap.py: no rank on both CPUs in " + path)
    window = last - first
    print(f"window {window / dil * 1000:.0f} ms native-eq., "
          f"{window * 1000:.0f} ms as recorded")
    share = {}
    for cpu in (0, 1):
        on = sum(b - a for a, b in spans[cpu])
        share[cpu] = on / window
        for k in ("rank", "hog"):
            s = stints.get((cpu, k), [])
            if s:
                print(f"cpu{cpu} {k}: {len(s)} turns, median "
                      f"{statistics.median(s) / dil * 1000:.2f} ms, mean "
                      f"{statistics.mean(s) / dil * 1000:.2f} ms")
        print(f"cpu{cpu} rank share {share[cpu]:.3f}")
    both, i, j = 0.0, 0, 0
    a, b = spans[0], spans[1]
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        both += max(0.0, hi - lo)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    print(f"both ranks on CPU {both / window:.3f} of the time; independent "
          f"CPUs with these shares: {share[0] * share[1]:.3f}")


if __name__ == "__main__":
    main()
