#!/usr/bin/env python3
"""Include edges between the folders of src/ and the cycles among them.

Each `#include "folder/file.h"` in src/A/... naming a header of src/B/ is an
edge A -> B (A != B). src/analysis/NAME/ is its own folder; files directly in
src/analysis/ are "analysis". Prints the edges with the files behind them and
every cycle (a strongly connected component of more than one folder, with one
cycle through it spelled out), and every edge that runs upward in LAYERS, the
order docs/design.md ("Include layers") gives; exits 1 when there is either.

    python3 tests/include_layers.py [--edges] [SRC]
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(rel):
    """The folder a path under src/ belongs to ("cli", "analysis/replicas").

    An analysis's folder holds a part of each layer (docs/design.md, "one
    interface per analysis"); like the Makefile, its agent*.c (built into the
    agent only) and report*.c (the command only) count as folders of their own,
    "analysis/NAME:agent" and "analysis/NAME:report" (and so do their agent*.h
    and report*.h headers), so that a report part
    including cli/ and cli/ including the analysis's shared profile.h is no
    cycle."""
    parts = rel.split("/")
    if parts[0] == "analysis" and len(parts) > 2:
        base = os.path.basename(rel)
        for role in ("agent", "report"):
            if base.startswith(role) and base.endswith((".c", ".h")):
                return "analysis/%s:%s" % (parts[1], role)
        return "analysis/" + parts[1]
    return parts[0] if len(parts) > 1 else "."


# The layers, lowest first (docs/design.md, "Include layers"): a folder may
# include its own layer's and lower ones'. "analysis/*" stands for every
# analysis folder, ":agent" and ":report" for its agent and report parts.
LAYERS = [
    ("common", "isa", "catalog"),
    ("heap", "profile", "sample"),
    ("watch",),
    ("analysis/*",),
    ("agent", "analysis/*:agent", "cli", "analysis/*:report"),
]


def layer_of(folder):
    pattern = re.sub(r"^analysis/[^:]+", "analysis/*", folder)
    for i, names in enumerate(LAYERS):
        if pattern in names:
            return i
    return None


def edges(src):
    out = {}  # (a, b) -> [(file, header)]
    for root, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)
            a = folder_of(rel)
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            for inc in INCLUDE.findall(text):
                if not os.path.exists(os.path.join(src, inc)):
                    continue  # generated or system
                b = folder_of(inc)
                if a != b:
                    out.setdefault((a, b), []).append((rel, inc))
    return out


def components(nodes, succ):
    """Tarjan's strongly connected components."""
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(succ.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            comps.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return comps


def cycle_in(comp, succ):
    """One cycle through comp's first folder, as a list of folders."""
    start, members = comp[0], set(comp)
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(succ.get(v, ())):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return [start] + path[::-1][1:] + [start] if path[-1] == start else path[::-1] + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def main(argv):
    show_edges = "--edges" in argv
    args = [a for a in argv if not a.startswith("--")]
    src = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    e = edges(src)
    succ, nodes = {}, set()
    for a, b in e:
        succ.setdefault(a, set()).add(b)
        nodes.update((a, b))
    if show_edges:
        for (a, b), why in sorted(e.items()):
            print("%s -> %s (%d): %s" % (a, b, len(why), ", ".join("%s: %s" % w for w in why[:3])))
    cycles = [c for c in components(nodes, succ) if len(c) > 1]
    for c in cycles:
        path = cycle_in(c, succ)
        print("cycle among %s: e.g. %s" % (", ".join(c), " -> ".join(path)))
        inside = sorted((a, b) for (a, b) in e if a in c and b in c)
        print("  edges inside: " + ", ".join("%s->%s" % ab for ab in inside))
        for a, b in zip(path, path[1:]):
            why = e[(a, b)]
            print("  %s -> %s: %s" % (a, b, "; ".join("%s includes %s" % w for w in why[:4])
                                       + (" (+%d more)" % (len(why) - 4) if len(why) > 4 else "")))
    upward = []
    for (a, b), why in sorted(e.items()):
        la, lb = layer_of(a), layer_of(b)
        if la is None or lb is None:
            upward.append("%s -> %s: a folder of no layer (add it to LAYERS)" % (a, b))
        elif lb > la:
            upward.append("%s (layer %d) -> %s (layer %d): %s" % (
                a, la + 1, b, lb + 1, "; ".join("%s includes %s" % w for w in why[:4])))
    for u in upward:
        print("upward include: " + u)
    if not cycles and not upward:
        print("include layers: %d folders, %d edges, no cycles, none upward" % (len(nodes), len(e)))
    return 1 if cycles or upward else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
