#!/usr/bin/env python3
"""Rendering speed and size: every `wasp report` format on a large synthetic
profile (bench/large_profile.c: 64 threads, 1,000,000 samples, 12,000 pairs
over 52,400 deep contexts, 2,000 object sites). Each format is rendered
REPEAT times; the median wall time, peak memory and output size are printed.
Targets (issue 13): under 1 s for any format, the HTML page under 5 MB.

Run: make bench-render   (after make all)
"""
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WASP = os.path.join(ROOT, "build", "bin", "wasp")
GEN = os.path.join(ROOT, "build", "bench", "large_profile")
FORMATS = ["text", "json", "html", "collapsed", "pprof"]
REPEAT = 3


def main():
    tmp = tempfile.mkdtemp(prefix="wasp-bench-render-")
    prof = os.path.join(tmp, "large.wprof")
    print(subprocess.run([GEN, prof], check=True, capture_output=True, text=True).stdout.strip())
    print("profile: %.1f MB" % (os.path.getsize(prof) / 1e6))
    print("%-10s %10s %12s %12s" % ("format", "median s", "output MB", "peak RSS MB"))
    worst = 0.0
    for fmt in FORMATS:
        out = os.path.join(tmp, "out." + fmt)
        times = []
        for _ in range(REPEAT):
            t0 = time.monotonic()
            subprocess.run([WASP, "report", "--format", fmt, "-o", out, prof], check=True)
            times.append(time.monotonic() - t0)
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        med = statistics.median(times)
        worst = max(worst, med)
        print("%-10s %10.2f %12.1f %12.0f" % (fmt, med, os.path.getsize(out) / 1e6, rss))
    html = os.path.getsize(os.path.join(tmp, "out.html")) / 1e6
    print("slowest format %.2f s (target < 1 s); html %.1f MB (target < 5 MB)" % (worst, html))
    return 0


if __name__ == "__main__":
    sys.exit(main())
