#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""README.md's figures from runs.csv and pass1-runs.csv: per cell the
median slowdown and the median of slowdown x the mean of the run's
job_speed, per pass and pooled, and dcs-sb's and dcs's medians over the
better baseline's.  usage: products.py (in this folder)"""
import csv
import os
from statistics import mean, median

HERE = os.path.dirname(os.path.abspath(__file__))
COLUMNS = ["gang", "mpi-yield", "dcs-sb", "dcs"]


def runs(name):
    with open(os.path.join(HERE, name)) as f:
        return list(csv.DictReader(f))


def figures(rows, mix, col):
    cell = [r for r in rows if r["mix"] == mix and r["column"] == col]
    raw = [float(r["slowdown"]) for r in cell]
    speed = [mean(map(float, r["job_speed"].split(";"))) for r in cell]
    return raw, [a * b for a, b in zip(raw, speed)]


passes = {"this pass": runs("runs.csv"), "first pass": runs("pass1-runs.csv")}
passes["pooled"] = passes["this pass"] + passes["first pass"]
for mix in ("val-2j-1ms", "val-4j-1ms"):
    print(mix)
    for name, rows in passes.items():
        med = {}
        for col in COLUMNS:
            raw, prod = figures(rows, mix, col)
            med[col] = (median(raw), median(prod))
            print(f"  {name:10s} {col:9s} raw {med[col][0]:.4f} [{min(raw):.3f}-{max(raw):.3f}]"
                  f"  product {med[col][1]:.4f} [{min(prod):.3f}-{max(prod):.3f}]")
        for k, what in ((0, "raw"), (1, "product")):
            best = min(med["gang"][k], med["mpi-yield"][k])
            print(f"  {name:10s} {what:7s} over the better baseline: dcs-sb {med['dcs-sb'][k] / best:.3f},"
                  f" dcs {med['dcs'][k] / best:.3f}")
