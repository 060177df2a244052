#!/usr/bin/env python3
"""How many captured contexts lack a Java frame, and what a stack walk costs
(issue 11), on the workload suite and on a real program (SableCC from Debian
compiling a generated grammar).

Each program runs once under `wasp run -e fields` (the fields analysis
captures a context for every sample with a heap access, so it sees every
kind of code a program runs: JIT code, stubs, the interpreter, the JVM's
runtime, JNI). From the profile's counters:

    no Java frame   stack.no_java_frames / stack.walks
    walk            stack.walk_ns / stack.walks (thread CPU time per walk,
                    retries and native frames included)
    retries         stack.retry_ns / stack.walks (the part spent after the
                    first AsyncGetCallTrace: from a stub's caller, through
                    the frame anchor, native frames)

    python3 bench/stacks.py                       # JDK 17
    python3 bench/stacks.py --jdk /usr/lib/jvm/temurin-25-jdk-amd64

Prints a markdown table (and writes it to build/stacks.md, --out).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WASP = os.path.join(ROOT, "build", "bin", "wasp")
CLASSES = os.path.join(ROOT, "build", "workloads")
SABLECC = "/usr/share/java/sablecc.jar"
# The workload suite (tests/workloads), each at its default size; the JNI
# workload with the library the tests build.
SUITE = ["DeadStoreEuler", "DeadStoreFill", "SilentStoreIS", "SilentStoreCopy",
         "SilentLoadSearch", "SilentLoadMismatch", "ControlStores", "ControlLoads",
         "ObjectsChurn", "ObjectsStride", "ReplicaReader", "ReplicaKMeans", "FieldsField",
         "FieldsArray", "AllocMix", "LocksHot", "VmZeroing", "NativeStore", "CrcStub"]


def counters(profile):
    r = subprocess.run([WASP, "report", "--format", "json", profile], capture_output=True,
                       text=True, check=True)
    return json.loads(r.stdout)["counters"]


def measure(name, java_cmd, tmp):
    out = os.path.join(tmp, name + ".wprof")
    r = subprocess.run([WASP, "run", "-e", "fields", "-o", out, "-q", "--"] + java_cmd,
                       capture_output=True, text=True, cwd=tmp)
    if r.returncode != 0 or not os.path.isfile(out):
        return {"name": name, "error": (r.stderr.strip().splitlines() or ["failed"])[-1]}
    c = counters(out)
    walks = c.get("stack.walks", 0)
    return {"name": name, "walks": walks, "lost": c.get("stack.no_java_frames", 0),
            "walk_ns": c.get("stack.walk_ns", 0), "retry_ns": c.get("stack.retry_ns", 0),
            "native": c.get("stack.native_frames", 0), "anchor": c.get("stack.anchor_pc", 0)}


def row(m):
    if "error" in m:
        return "| %s | failed: %s | | | |" % (m["name"], m["error"])
    w = max(m["walks"], 1)
    return "| %s | %d | %d (%.2f%%) | %.1f µs | %.1f µs |" % (
        m["name"], m["walks"], m["lost"], 100.0 * m["lost"] / w, m["walk_ns"] / w / 1e3,
        m["retry_ns"] / w / 1e3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "stacks.md"))
    ap.add_argument("--grammar", type=int, default=120, help="SableCC grammar size (keywords)")
    opts = ap.parse_args()
    java = os.path.join(opts.jdk, "bin", "java")
    lib = os.path.join(ROOT, "build", "tests", "libnative_store.so")
    results = []
    with tempfile.TemporaryDirectory(prefix="wasp-stacks-") as tmp:
        for w in SUITE:
            extra = ["-Dwasp.jni=" + lib] if w == "NativeStore" else []
            results.append(measure(w, [java] + extra + ["-cp", CLASSES, w], tmp))
        if os.path.isfile(SABLECC):
            grammar = os.path.join(tmp, "big.sablecc")
            with open(grammar, "w") as f:
                subprocess.run([sys.executable, os.path.join(ROOT, "bench", "sablecc_grammar.py"),
                                str(opts.grammar)], stdout=f, check=True)
            os.mkdir(os.path.join(tmp, "gen"))
            results.append(measure("SableCC", [java, "-jar", SABLECC, "-d",
                                               os.path.join(tmp, "gen"), grammar], tmp))
    ok = [m for m in results if "error" not in m]
    suite = [m for m in ok if m["name"] != "SableCC"]
    total = {"name": "**suite**", "walks": sum(m["walks"] for m in suite),
             "lost": sum(m["lost"] for m in suite), "walk_ns": sum(m["walk_ns"] for m in suite),
             "retry_ns": sum(m["retry_ns"] for m in suite)}
    lines = ["JDK: %s" % opts.jdk, "",
             "| program | walks | no Java frame | walk | of it retries + native |",
             "|---|---:|---:|---:|---:|"] + [row(m) for m in results] + [row(total)]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    os.makedirs(os.path.dirname(opts.out), exist_ok=True)
    with open(opts.out, "w") as f:
        f.write(text)
    return 0 if len(ok) == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
