#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check kernel/'s layering (Documentation/design.rst, "Layers").

Every file of kernel/ has a layer; a file may use only functions,
inline helpers and headers of its own layer or below, files of one
layer must not call each other in a cycle, and no file shares a
mutable global: a variable defined outside a function is static or
const.  Prints each violation and exits 1 if there is one.
"""
import collections
import os
import re
import sys

LAYERS = {
    4: "main dev hooks sysfs",
    3: "policy lifecycle",
    2: "boost budget pb ring",
    1: "endpoint job task user bucket repay",
    0: "tunables workers counters trace",
}
LAYER = {name: layer for layer, names in LAYERS.items()
         for name in names.split()}

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "kernel")
files = sorted(f for f in os.listdir(root) if f.endswith((".c", ".h")))
bad = []


def strip(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


src = {f: strip(open(os.path.join(root, f)).read()) for f in files}
for f in files:
    if f[:-2] not in LAYER:
        bad.append(f"{f}: in no layer (add it to {__file__})")
files = [f for f in files if f[:-2] in LAYER]

# Who defines each external name: functions and objects of .c files,
# inline helpers of headers.
owner = {}
for f in files:
    s = src[f]
    if f.endswith(".c"):
        # Definitions only (a body follows), so that a prototype in a
        # lower file cannot claim a higher file's function; the return
        # type may be on the line before.
        for m in re.finditer(r"^([a-z_][^\n;{}()]*\n)?((?:[a-z_][^\n;{}()]*?[\s*])?)"
                             r"([a-z_]\w*)\([^;{}]*\)\s*\{", s, re.M):
            head = (m.group(1) or "") + m.group(2)
            if not re.search(r"\bstatic\b", head):
                owner[m.group(3)] = f
        for m in re.finditer(r"^(?!static\b)(?:const\s+)?(?:struct\s+)?\w+\s+\**"
                             r"(cosched_\w+)\s*(?:\[[^\]]*\])?\s*=", s, re.M):
            owner.setdefault(m.group(1), f)
    else:
        for m in re.finditer(r"static inline [^\n(]*?\b(cosched_\w+)\(", s):
            owner.setdefault(m.group(1), f)

graph = collections.defaultdict(set)
for f in files:
    mine = LAYER[f[:-2]]
    for inc in re.findall(r'#include "(\w+)\.h"', src[f]):
        if inc in LAYER and LAYER[inc] > mine:
            bad.append(f"{f}: includes {inc}.h from a higher layer")
    if f == "trace.h":
        continue  # tracepoint names are not calls
    for name, g in owner.items():
        if g == f or not re.search(r"\b" + name + r"\b", s := src[f]):
            continue
        if LAYER[g[:-2]] > mine:
            bad.append(f"{f}: uses {name}() of {g}, a higher layer")
        if g.endswith(".c") and f.endswith(".c"):
            graph[f].add(g)

# Mutual calls within a layer.
state = {}


def visit(f, path):
    state[f] = 1
    path.append(f)
    for g in sorted(graph[f]):
        if state.get(g) == 1:
            bad.append("call cycle: " + " -> ".join(path[path.index(g):] + [g]))
        elif not state.get(g):
            visit(g, path)
    path.pop()
    state[f] = 2


for f in files:
    if not state.get(f):
        visit(f, [])

# Mutable globals: file-scope definitions that are neither static nor const.
for f in files:
    for m in re.finditer(r"^(?:DEFINE_(?:MUTEX|SPINLOCK|RAW_SPINLOCK|RWLOCK|RWSEM|HASHTABLE|PER_CPU\w*|IDA|IDR|XARRAY\w*|WAIT_QUEUE_HEAD|STATIC_KEY\w*|LLIST_HEAD)|LIST_HEAD|HLIST_HEAD|DECLARE_PER_CPU\w*)"
                         r"\(([^;]*)\);", src[f], re.M):
        bad.append(f"{f}: mutable global '{m.group(1).split(',')[-1].strip()}'")
    for m in re.finditer(r"^const\b[^\n(;=]*\*\s*(?!const\b)(\w+)\s*(?:=|;)",
                         src[f], re.M):
        bad.append(f"{f}: mutable pointer global '{m.group(1)}'")
    for m in re.finditer(r"^(?!static\b|extern\b|typedef\b)[a-z_][\w \*]*"
                         r"\(\s*\*\s*(\w+)\)\s*\([^;{]*\)\s*(?:=[^;]*)?;",
                         src[f], re.M):
        bad.append(f"{f}: mutable function pointer '{m.group(1)}'")
    for m in re.finditer(r"^(?!static\b|const\b|extern\b|typedef\b|return\b|#)"
                         r"[a-z_][\w \*]*?\b(\w+)\s*(?:\[[^\]]*\])?\s*"
                         r"(?:,|__\w+\s*[;=])", src[f], re.M):
        bad.append(f"{f}: mutable global '{m.group(1)}'")
    for m in re.finditer(r"^(?!static\b|const\b|extern\b|typedef\b|struct\s+\w+\s*\{|"
                         r"enum\b|union\b|#)([a-z_][\w \*]*?\b(\w+)\s*"
                         r"(?:\[[^\]]*\])?\s*(?:=|;))", src[f], re.M):
        decl = m.group(1)
        if ("(" in decl or re.match(r"(return|module_|MODULE_)", decl) or
                re.fullmatch(r"struct\s+\w+\s*;", decl)):
            continue
        bad.append(f"{f}: mutable global '{m.group(2)}'")
    for m in re.finditer(r"^extern\s+(?!const\b)([^\n;]*);", src[f], re.M):
        if " const " not in m.group(1):
            bad.append(f"{f}: shares a mutable global: extern {m.group(1)}")

for b in bad:
    print(b)
print(f"kernel-layers: {len(files)} files, {len(bad)} problems")
sys.exit(1 if bad else 0)
