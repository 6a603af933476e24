# SPDX-License-Identifier: GPL-2.0
"""One file per finished cell (a run of one mix, column and repeat, or one
standalone job): written whole under a temporary name, synced, then
renamed, so that a sweep killed at any point (Ctrl-C, the guest's timeout,
a host reboot) leaves each cell either complete or absent.  A file that
does not parse or lacks a field (a copy cut short outside the runner) is
renamed *.torn and its cell is run again."""
import hashlib
import json
import os
import re

from .util import BenchError

FORMAT = 1


def _name(key):
    """('mix05', 'gang:50', '2') -> 'mix05_gang-50_2.<hash>.json': readable,
    and the hash of the exact key keeps two keys apart."""
    safe = "_".join(re.sub(r"[^A-Za-z0-9.-]+", "-", str(k)) for k in key)
    tag = hashlib.sha1(json.dumps([str(k) for k in key]).encode()).hexdigest()[:8]
    return f"{safe}.{tag}.json"


def write_atomic(path, text):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, path)
    # The rename itself must reach the disk before the next cell starts
    # (where the file system can sync a directory: 9p may not).
    try:
        fd = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass


class CellStore:
    """DIR/<kind>/*.json: {format, key, config, provenance, row}."""

    def __init__(self, path, fields, key_fields, later_fields=()):
        self.path = path
        self.fields = fields + [f for f in later_fields if f not in fields]
        # Added after cells were first written: a cell without them is
        # still whole (they read as "").
        self.required = [f for f in fields if f not in later_fields]
        self.key_fields = key_fields
        self.cells = {}          # key -> record
        self.dropped = []        # files that were not whole cells
        os.makedirs(path, exist_ok=True)
        for n in sorted(os.listdir(path)):
            p = os.path.join(path, n)
            if ".json.tmp" in n:
                # A write the runner never finished.
                os.unlink(p)
                self.dropped.append(n)
                continue
            if not n.endswith(".json"):
                continue
            rec = self._load(p)
            if rec is None:
                # Kept for a look, out of the way: the cell runs again.
                os.replace(p, p + ".torn")
                self.dropped.append(n)
                continue
            self.cells[self.key(rec["row"])] = rec

    def key(self, row):
        return tuple(str(row[k]) for k in self.key_fields)

    def _load(self, p):
        try:
            with open(p) as f:
                rec = json.load(f)
        except (OSError, ValueError):
            return None
        if not isinstance(rec, dict):
            return None
        if rec.get("format") != FORMAT:
            raise BenchError(f"{p}: format {rec.get('format')}, this run-mix "
                             f"reads {FORMAT}: use the run-mix that wrote it")
        row = rec.get("row")
        if (not isinstance(row, dict) or not isinstance(rec.get("config"), dict)
                or any(k not in row for k in self.required) or not row.get("status")):
            return None
        for k in self.fields:
            row.setdefault(k, "")
        if os.path.basename(p) != _name(self.key(row)):
            return None
        return rec

    def put(self, row, config, provenance):
        row = {k: str(row.get(k, "")) for k in self.fields}
        rec = {"format": FORMAT, "config": config, "provenance": provenance,
               "row": row}
        write_atomic(os.path.join(self.path, _name(self.key(row))),
                     json.dumps(rec, indent=1, sort_keys=True) + "\n")
        self.cells[self.key(row)] = rec
        return row

    def set_aside(self, key):
        """Rename @key's file to <file>.suspect.N (the first N free) and
        forget it; returns the new name."""
        path = os.path.join(self.path, _name(key))
        n = 1
        while os.path.exists(f"{path}.suspect.{n}"):
            n += 1
        os.replace(path, f"{path}.suspect.{n}")
        del self.cells[key]
        return os.path.basename(f"{path}.suspect.{n}")

    def rows(self):
        return [rec["row"] for _, rec in sorted(self.cells.items())]
