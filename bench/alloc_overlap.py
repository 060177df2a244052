#!/usr/bin/env python3
"""Overlap of a creation profile with exact allocation counts (docs/alloc.md).

    python3 bench/alloc_overlap.py EXACT SAMPLED.wprof

EXACT: a run of `wasp run -e objects --alloc-interval 0 --min-size 0
--alloc-rate 0` (every allocation a JVMTI event, counted by class), or the
heap histogram bench/AllocCensus.java writes (the program run under Epsilon,
which frees nothing: every object it allocated, far cheaper for long runs);
SAMPLED: a run of `wasp run -e alloc` of the same deterministic program, or
another such histogram (two censuses compared: e.g. one pass of a program
against N passes of it under bench/RunTimes.java).
Prints the Section 7.2 overlap of Inoue and Nakatani (the sum over classes of
the smaller of the two shares) and the largest classes side by side.
"""

import collections
import json
import os
import re
import subprocess
import sys

WASP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin", "wasp")


def report(path):
    out = subprocess.run([WASP, "report", "--format", "json", "--top", "1000000", path],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


PRIMITIVES = {"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int", "J": "long",
              "F": "float", "D": "double"}


def java_name(descriptor):
    """A histogram's class name as wasp names it: "[J" -> "long[]",
    "[[Ljava.lang.Object;" -> "java.lang.Object[][]"."""
    dims = len(descriptor) - len(descriptor.lstrip("["))
    if not dims:
        return descriptor
    elem = descriptor[dims:]
    elem = elem[1:-1] if elem.startswith("L") and elem.endswith(";") else PRIMITIVES.get(elem, elem)
    return elem + "[]" * dims


def census(path):
    """{class: instances} from a GC.class_histogram, or None if path is not one."""
    with open(path, "rb") as f:
        head = f.read(200)
    if b"#instances" not in head:
        return None
    counts = collections.Counter()
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*\d+:\s+(\d+)\s+\d+\s+(\S+)", line)
            if m:
                counts[java_name(m.group(2))] += int(m.group(1))
    return counts


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().split("\n\n")[1])
    exact, sampled = census(sys.argv[1]), collections.Counter()
    if exact is None:
        exact = collections.Counter()
        for site in report(sys.argv[1])["objects"]["sites"]:
            exact[site["class"]] += site["allocations"] or 0
    other = census(sys.argv[2])
    if other is not None:
        sampled, alloc = other, {"sampled_by": "a census"}
    else:
        alloc = report(sys.argv[2])["alloc"]
        for c in alloc["classes"]:
            sampled[c["class"]] += c["samples"]
    te, ts = sum(exact.values()), sum(sampled.values())
    if not te or not ts:
        sys.exit("no allocations in one of the profiles")
    ov = sum(min(exact[k] / te, sampled[k] / ts) for k in set(exact) | set(sampled))
    print("%.0f %s (%s), overlap %.1f%%" % (ts, "objects" if other is not None else "sampled creations",
                                              alloc.get("sampled_by"), 100 * ov))
    for k, v in exact.most_common(8):
        print("  %-44s allocated %5.1f%%  sampled %5.1f%%" % (k, 100 * v / te, 100 * sampled[k] / ts))


if __name__ == "__main__":
    main()
