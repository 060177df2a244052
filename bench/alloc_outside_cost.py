#!/usr/bin/env python3
"""What one JVMTI allocation sample costs under `wasp run -e alloc` (its
outside-TLAB samples, docs/alloc.md "Outside TLABs"): the JVM's slow path
and event plus wasp's callback, measured as the CPU time that more events
add.

    python3 bench/alloc_outside_cost.py --dense /tmp/w16k/build -r 3

--dense is a test build whose WASP_ALLOC_OUTSIDE_INTERVAL (agent/alloc_outside.h)
is smaller (16 KiB: 32 times the events); --build the build as shipped
(512 KiB). Both run the same workload (AllocBytes: 2.6 GB at 30 million
steps, nearly all in TLABs) R times, interleaved; each pair gives
(CPU dense - CPU shipped) / (events dense - events shipped). Prints each
pair and the median, with wasp's own part (counter alloc.outside_ns over
alloc.outside_events: its callbacks' CPU time).
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def one(build, jdk, workload, args, tmp):
    out = os.path.join(tmp, "cost.wprof")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([os.path.join(build, "bin", "wasp"), "run", "-q", "-e", "alloc", "-o", out, "--",
                    os.path.join(jdk, "bin", "java"), "-cp", os.path.join(ROOT, "build", "workloads"),
                    workload] + args, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rep = json.loads(subprocess.run([os.path.join(build, "bin", "wasp"), "report", "--format", "json", out],
                                    check=True, capture_output=True, text=True).stdout)
    c = rep["counters"]
    return cpu, c.get("alloc.outside_events", 0), c.get("alloc.outside_ns", 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dense", required=True, help="a test build with a smaller outside interval")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="the build as shipped")
    ap.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    ap.add_argument("--workload", default="AllocBytes")
    ap.add_argument("--args", default="30", help="the workload's arguments")
    ap.add_argument("-r", "--repetitions", type=int, default=3)
    opts = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="wasp-outside-cost-")
    per, own = [], []
    for rep in range(opts.repetitions):
        pair = {}
        for name, build in (("shipped", opts.build), ("dense", opts.dense))[::1 if rep % 2 == 0 else -1]:
            pair[name] = one(build, opts.jdk, opts.workload, opts.args.split(), tmp)
        (c0, e0, n0), (c1, e1, n1) = pair["shipped"], pair["dense"]
        if e1 > e0:
            per.append((c1 - c0) / (e1 - e0))
        own += [n / e for n, e in ((n0, e0), (n1, e1)) if e]
        print("r%d: shipped %.2f s CPU, %d events (wasp %.1f us each); dense %.2f s, %d events (wasp %.1f us "
              "each): %.1f us an event" % (rep, c0, e0, n0 / 1e3 / max(e0, 1), c1, e1, n1 / 1e3 / max(e1, 1),
                                          1e6 * per[-1] if per else float("nan")), flush=True)
    if per:
        print("median: %.1f us of CPU an event (min %.1f, max %.1f), wasp's callback %.1f us of it"
              % (1e6 * statistics.median(per), 1e6 * min(per), 1e6 * max(per), statistics.median(own) / 1e3))
    return 0


if __name__ == "__main__":
    sys.exit(main())
