#!/usr/bin/env python3
"""What a sample costs, by wasp's own counters, for two or more builds of the
agent side by side (issue 38; docs/corpus.md, "Where the cost goes").

    python3 bench/sample_cost.py -a base=/tmp/libwasp-base.so -a new=build/lib/libwasp.so \
        -p h2,sablecc,xalan -r 3

Each repetition runs every program once under each agent (`wasp run --agent
LIB -e deadstore+silentstore+silentload --watch debugreg`, the corpus's
short size), the agents' order rotated from one repetition to the next, one
run at a time. Printed per run and as medians per program and agent: the
sampling handler's time per sample (sampler.handler_ns / samples), the
stack walk's (stack.walk_ns / stack.walks), the watch handler's per trap
(watch.handler_ns / trapped), and samples, armed samples and pairs per
CPU-second. The counters are per-sample costs: unlike CPU ratios they hardly
move with the machine's load, which on a shared machine is larger than the
effects measured here. Raw numbers go to --out as JSON.
"""

import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "corpus"))
import measure  # noqa: E402
import programs  # noqa: E402

EVENTS = "deadstore+silentstore+silentload"


def per(c, num, den, scale=1e-3):
    return c.get(num, 0) * scale / c[den] if c.get(den) else float("nan")


def numbers(rep, run):
    c = rep.get("counters", {})
    cpu = run.cpu or float("nan")
    return {
        "handler_us": per(c, "sampler.handler_ns", "samples"),
        "walk_us": per(c, "stack.walk_ns", "stack.walks"),
        "trap_us": per(c, "watch.handler_ns", "trapped"),
        "samples_cpu_s": c.get("samples", 0) / cpu,
        "armed_cpu_s": c.get("armed", 0) / cpu,
        "pairs_cpu_s": c.get("classified", 0) / cpu,
        "cpu": run.cpu,
        "counters": c,
    }


COLUMNS = ("handler_us", "walk_us", "trap_us", "samples_cpu_s", "armed_cpu_s", "pairs_cpu_s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-a", "--agent", action="append", required=True,
                    help="NAME=PATH of a libwasp.so (repeat: two or more)")
    ap.add_argument("-p", "--programs", default="h2,sablecc,xalan")
    ap.add_argument("-r", "--repetitions", type=int, default=3)
    ap.add_argument("--watch", default="debugreg")
    ap.add_argument("--size", default="short", choices=("short", "full"))
    ap.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    ap.add_argument("--out", default="-", help="raw results as JSON (- for none)")
    a = ap.parse_args()
    agents = [x.split("=", 1) for x in a.agent]
    java = os.path.join(a.jdk, "bin", "java")
    javac = os.path.join(a.jdk, "bin", "javac")
    progs = {p.name: p for p in programs.PROGRAMS}
    results = []
    print("%-8s %-6s %s" % ("program", "agent", " ".join("%13s" % k for k in COLUMNS)))
    for rep in range(a.repetitions):
        for name in a.programs.split(","):
            prog = progs[name]
            inputs = prog.prepare(javac)
            order = agents[rep % len(agents):] + agents[:rep % len(agents)]
            for label, lib in order:
                run = measure.run_program(prog, java, inputs, prog.sizes[a.size], watch=a.watch,
                                          events=EVENTS, extra=["--agent", lib])
                rc, text, err = measure.report(run.profile) if run.rc == 0 else (1, "", run.out)
                if rc != 0:
                    print("%s %s: failed: %s" % (name, label, (err or run.out)[-300:]))
                    measure.cleanup(run)
                    continue
                n = numbers(json.loads(text), run)
                n.update(program=name, agent=label, repetition=rep)
                results.append(n)
                print("%-8s %-6s %s" % (name, label, " ".join("%13.2f" % n[k] for k in COLUMNS)),
                      flush=True)
                measure.cleanup(run)
    print("\nmedians")
    for name in a.programs.split(","):
        for label, _ in agents:
            rows = [r for r in results if r["program"] == name and r["agent"] == label]
            if rows:
                print("%-8s %-6s %s" % (name, label, " ".join(
                    "%13.2f" % statistics.median(r[k] for r in rows) for k in COLUMNS)))
    if a.out != "-":
        with open(a.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
