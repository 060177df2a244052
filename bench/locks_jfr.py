#!/usr/bin/env python3
"""Overhead of `wasp run -e locks` beside JDK Flight Recorder's lock events
on the same program (issue 41; numbers in docs/locks.md, "Beside JFR").

Runs a workload (default: the contended LocksHot, 2 threads on three
monitors) N times each way, interleaved: plain; JFR with its default settings
(jdk.JavaMonitorEnter and jdk.ThreadPark over 20 ms); JFR with those two at
0 ms (what locks.jfr compares with); wasp -e locks. Prints the median wall
and CPU time (user + sys of the JVM) of each and its ratio to plain.

    python3 bench/locks_jfr.py [--jdk HOME] [--runs N] [--wasp BUILD] [-- Workload args...]

--wasp names the build directory whose bin/wasp to run (default the
repository's build/), so that a measurement is of one build while others
rebuild the tree.
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
import jfr as jfr_file  # noqa: E402  (the tests' copy-the-settings helper and its harness)


def timed(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit("%s exited %d: %s" % (" ".join(cmd), r.returncode, r.stderr[-500:]))
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--wasp", default=os.path.join(ROOT, "build"), help="build directory with bin/wasp")
    ap.add_argument("workload", nargs="*", default=["LocksHot", "10", "2", "20"])
    a = ap.parse_args()
    java = os.path.join(a.jdk, "bin", "java")
    cp = ["-cp", os.path.join(ROOT, "build", "workloads")]
    tmp = tempfile.mkdtemp(prefix="wasp-locks-jfr-")
    zero = jfr_file.settings(jfr_file.Standalone(), jfr_file.jdk_at(a.jdk), os.path.join(tmp, "locks-0ms.jfc"),
                             {"jdk.JavaMonitorEnter": "0 ms", "jdk.ThreadPark": "0 ms"})
    rec = os.path.join(tmp, "r.jfr")
    ways = [
        ("plain", [java] + cp + a.workload),
        ("JFR default", [java, "-XX:StartFlightRecording=filename=%s,settings=default" % rec] + cp + a.workload),
        ("JFR locks at 0 ms", [java, "-XX:StartFlightRecording=filename=%s,settings=%s" % (rec, zero)] + cp
         + a.workload),
        ("wasp -e locks", [os.path.join(a.wasp, "bin", "wasp"), "run", "-e", "locks", "-q", "-o",
                           os.path.join(tmp, "p.wprof"), "--", java] + cp + a.workload),
    ]
    times = dict((name, []) for name, _ in ways)
    for _ in range(a.runs):
        for name, cmd in ways:
            times[name].append(timed(cmd))
    base_wall = statistics.median(w for w, _ in times["plain"])
    base_cpu = statistics.median(c for _, c in times["plain"])
    print("%s, %s, %d runs each (median)" % (" ".join(a.workload), os.path.basename(a.jdk), a.runs))
    for name, _ in ways:
        wall = statistics.median(w for w, _ in times[name])
        cpu = statistics.median(c for _, c in times[name])
        print("  %-18s wall %6.2f s (%.2fx)   CPU %6.2f s (%.2fx)" % (name, wall, wall / base_wall, cpu,
                                                                     cpu / base_cpu))


if __name__ == "__main__":
    main()
