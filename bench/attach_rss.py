#!/usr/bin/env python3
"""What an attach leaves in a JVM's memory: RSS before, during and after
attach/detach cycles on a JVM of many threads (docs/overhead.md, "Memory
after a detach").

    python3 bench/attach_rss.py --threads 1000 --cycles 3 -e all

Runs tests/workloads/FdHungry (THREADS waiting threads; `make` builds it)
under the JDK given, and for each cycle `wasp attach -e EVENTS`, a pause,
`wasp detach`, another pause; prints VmRSS (MiB) at each step and the
descriptors open. Memory only: the program does no work meanwhile.
"""

import argparse
import os
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WASP = os.path.join(ROOT, "build", "bin", "wasp")
CLASSES = os.path.join(ROOT, "build", "workloads")


def rss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=1000)
    ap.add_argument("--cycles", type=int, default=3)
    ap.add_argument("-e", "--events", default="all")
    ap.add_argument("--pause", type=float, default=2.0, help="seconds after each step")
    ap.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    a = ap.parse_args()
    p = subprocess.Popen([os.path.join(a.jdk, "bin", "java"), "-Xss256k", "-Xmx256m", "-cp",
                          CLASSES, "FdHungry", str(a.threads), "1"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        if p.stdout.readline().strip() != "ready":
            raise SystemExit("FdHungry did not start")
        time.sleep(a.pause)
        print("threads %d, -e %s: RSS before %.1f MiB" % (a.threads, a.events, rss_mib(p.pid)))
        for c in range(a.cycles):
            out = "/tmp/attach_rss-%d.wprof" % p.pid
            subprocess.run([WASP, "attach", "-q", "-e", a.events, "-o", out, str(p.pid)],
                           check=True, capture_output=True)
            time.sleep(a.pause)
            attached = rss_mib(p.pid)
            subprocess.run([WASP, "detach", "-q", str(p.pid)], check=True, capture_output=True)
            time.sleep(a.pause)
            print("cycle %d: attached %.1f MiB, detached %.1f MiB, %d descriptors open"
                  % (c + 1, attached, rss_mib(p.pid), len(os.listdir("/proc/%d/fd" % p.pid))))
            for f in (out, out + ".log"):
                if os.path.exists(f):
                    os.remove(f)
        p.stdin.write("stop\n")
        p.stdin.flush()
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


if __name__ == "__main__":
    main()
