#!/usr/bin/env python3
"""CallerChaining contexts (--context chain, docs/context-chain.md) against
the stack walk: how often the chain context agrees with AsyncGetCallTrace's
on the same samples, and what each costs per context.

Each program runs three times under `wasp run -e fields` (a context for
every sample with a heap access):

    --context walk          walk: stack.walk_ns / stack.walks
    --context chain         chain: chain.ns / chain.mapped, and the share of
                            contexts mapped without a walk
    --context chain-check   agreement for >= 1 and >= 3 caller levels
                            (context_agree_1, context_agree_3), the
                            calling-context tree's nodes and ambiguous nodes

Programs: the planted ChainDepths (inlining off for its methods, so each
has a frame), two suite workloads at their defaults (inlining on), and
SableCC 3.7 (Debian's sablecc compiling a generated grammar of 400 keywords,
bench/sablecc_grammar.py).

    python3 bench/context_chain.py                       # JDK 17
    python3 bench/context_chain.py --jdk /usr/lib/jvm/temurin-25-jdk-amd64

Prints a markdown table (and writes it to build/context_chain.md, --out).
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
PLANTED_FLAGS = ["-XX:CompileCommand=quiet", "-XX:CompileCommand=dontinline,ChainDepths::*"]


def report(profile):
    r = subprocess.run([WASP, "report", "--format", "json", profile], capture_output=True,
                       text=True, check=True)
    return json.loads(r.stdout)


def run(name, mode, java_cmd, tmp):
    out = os.path.join(tmp, "%s-%s.wprof" % (name, mode))
    r = subprocess.run([WASP, "run", "-e", "fields", "--context", mode, "-o", out, "-q", "--"] +
                       java_cmd, capture_output=True, text=True, cwd=tmp)
    if r.returncode != 0 or not os.path.isfile(out):
        raise RuntimeError((r.stderr.strip().splitlines() or ["failed"])[-1])
    return report(out)


def measure(name, java_cmd, tmp):
    try:
        walk = run(name, "walk", java_cmd, tmp)["counters"]
        chain = run(name, "chain", java_cmd, tmp)["counters"]
        check = run(name, "chain-check", java_cmd, tmp)
    except RuntimeError as e:
        return {"name": name, "error": str(e)}
    cc, meta = check["counters"], check["meta"]
    mapped, walked = chain.get("chain.mapped", 0), chain.get("chain.walked", 0)
    return {"name": name,
            "walk_us": walk.get("stack.walk_ns", 0) / max(1, walk.get("stack.walks", 0)) / 1e3,
            "chain_us": chain.get("chain.ns", 0) / max(1, mapped) / 1e3,
            "contexts": mapped + walked, "mapped": mapped / max(1, mapped + walked),
            "agree1": meta.get("context_agree_1", 0), "agree3": meta.get("context_agree_3", 0),
            "checked": cc.get("chain.checked", 0), "nodes": cc.get("chain.cct_nodes", 0),
            "ambiguous": cc.get("chain.cct_ambiguous", 0)}


def row(m):
    if "error" in m:
        return "| %s | failed: %s | | | | | | |" % (m["name"], m["error"])
    return ("| %s | %d | %.1f%% | %.2f µs | %.2f µs | %.1f%% | %.1f%% | %d | %d (%d, %.1f%%) |"
            % (m["name"], m["contexts"], 100 * m["mapped"], m["chain_us"], m["walk_us"],
               100 * m["agree1"], 100 * m["agree3"], m["checked"], m["nodes"], m["ambiguous"],
               100.0 * m["ambiguous"] / max(1, m["nodes"])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "context_chain.md"))
    ap.add_argument("--grammar", type=int, default=400,
                    help="SableCC grammar size (keywords; 400: a run of about a minute, mostly compiled code)")
    opts = ap.parse_args()
    java = os.path.join(opts.jdk, "bin", "java")
    results = []
    with tempfile.TemporaryDirectory(prefix="wasp-chain-") as tmp:
        results.append(measure("ChainDepths", [java] + PLANTED_FLAGS +
                               ["-cp", CLASSES, "ChainDepths", "120"], tmp))
        for w in ("FieldsField", "ObjectsStride"):
            results.append(measure(w, [java, "-cp", CLASSES, w], tmp))
        if os.path.isfile(SABLECC):
            grammar = os.path.join(tmp, "big.sablecc")
            with open(grammar, "w") as f:
                subprocess.run([sys.executable, os.path.join(ROOT, "bench", "sablecc_grammar.py"),
                                str(opts.grammar)], stdout=f, check=True)
            os.mkdir(os.path.join(tmp, "gen"))
            results.append(measure("SableCC", [java, "-jar", SABLECC, "-d",
                                               os.path.join(tmp, "gen"), grammar], tmp))
    lines = ["JDK: %s" % opts.jdk, "",
             "| program | contexts | mapped | chain | walk | agree ≥1 | agree ≥3 | checked | "
             "CCT nodes (ambiguous) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"] + [row(m) for m in results]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    os.makedirs(os.path.dirname(opts.out), exist_ok=True)
    with open(opts.out, "w") as f:
        f.write(text)
    return 0 if all("error" not in m for m in results) else 1


if __name__ == "__main__":
    sys.exit(main())
