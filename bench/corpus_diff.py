#!/usr/bin/env python3
"""`wasp diff` of two runs of one real program: how often it calls a change
significant when nothing changed (docs/diff.md, "Noise" and "The summary").

    python3 bench/corpus_diff.py                       # every program, 3 runs each, -e all
    python3 bench/corpus_diff.py -p h2,xalan -n 4 -e deadstore+silentstore+silentload

Each program runs n times under `wasp run -e EVENTS` at the short size
(bench/corpus/programs.py); every pair of its runs is diffed (n(n-1)/2
diffs). Per diff: the significant changes of the sections (the analyses'
entries) and of the summary (the places of the first findings), the smallest
Holm-adjusted p of the summary's places, and what was flagged. A diff is
held to 1% family-wise, so over a few dozen diffs of unchanged programs
about none should be flagged; those that are name what moved (a JIT
decision that differs between runs moves a line's samples more than sampling
does). Exit status 0, or 1 when a run failed.
"""

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "corpus"))
import programs  # noqa: E402

WASP = os.path.join(ROOT, "build", "bin", "wasp")


def profile(prog, java, inputs, events, path, work):
    out = tempfile.mkdtemp(dir=work)
    cmd = [WASP, "run", "-q", "-e", events, "-o", path, "--"] + \
        prog.command(java, inputs, prog.sizes["short"], out)
    r = subprocess.run(cmd, cwd=out, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0 or not os.path.exists(path):
        raise RuntimeError("%s: wasp run exited %d: %s" % (prog.name, r.returncode, r.stderr[-500:]))


def diff(before, after):
    r = subprocess.run([WASP, "diff", "--format", "json", before, after], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, check=True)
    d = json.loads(r.stdout)
    flagged = ["%s %s %s" % (k, c["change"], c.get("class") or "")
               for k, a in d["analyses"].items() for c in a["changes"] if c["significant"]]
    places = [p for a in d["summary"]["analyses"] for p in a["places"] if p["tested"]]
    flagged += ["summary %s %.3f -> %.3f" % (p["place"], p["before"]["cpu_share"],
                                              p["after"]["cpu_share"])
                for p in places if p["significant"]]
    adjusted = min([p["p_value"] * len(places) for p in places], default=1.0)
    return d["significant_changes"], d["summary"]["significant_changes"], len(places), adjusted, flagged


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-p", "--programs", help="comma-separated names (default: all)")
    ap.add_argument("-n", "--runs", type=int, default=3, help="runs per program (default 3)")
    ap.add_argument("-e", "--events", default="all", help="wasp run -e (default all)")
    ap.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    args = ap.parse_args()
    java, javac = os.path.join(args.jdk, "bin", "java"), os.path.join(args.jdk, "bin", "javac")
    chosen = args.programs.split(",") if args.programs else [p.name for p in programs.PROGRAMS]
    work = tempfile.mkdtemp(prefix="wasp-corpus-diff-")
    total = flagged_diffs = 0
    failed = False
    print("program  diff  sections  summary  places  min adj p  flagged")
    for prog in programs.PROGRAMS:
        if prog.name not in chosen:
            continue
        try:
            inputs = prog.prepare(javac)
            runs = []
            for i in range(args.runs):
                path = os.path.join(work, "%s-%d.wprof" % (prog.name, i + 1))
                profile(prog, java, inputs, args.events, path, work)
                runs.append(path)
        except (programs.Missing, RuntimeError) as e:
            print("%-8s skipped: %s" % (prog.name, e))
            failed |= isinstance(e, RuntimeError)
            continue
        for (i, a), (j, b) in itertools.combinations(enumerate(runs, 1), 2):
            sections, summary, places, adjusted, flagged = diff(a, b)
            total += 1
            flagged_diffs += bool(sections or summary)
            print("%-8s %d-%d   %8d  %7d  %6d  %9.3g  %s" % (prog.name, i, j, sections, summary,
                                                         places, adjusted, "; ".join(flagged)))
    print("%d of %d diffs of unchanged programs flagged a change (profiles in %s)"
          % (flagged_diffs, total, work))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
