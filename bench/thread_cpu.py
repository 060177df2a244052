#!/usr/bin/env python3
"""Where a profiled run's extra CPU goes, by thread kind (issue 38).

Runs one corpus program (bench/corpus/programs.py: NAME at its full size,
or NAME:SIZE, h2:9 three times h2's queries)
in turn without the agent (B), under `wasp run` at a 1 s period, the agent
loaded but sampling almost nothing (I), and at the defaults (W), or without
the agent but with the JIT flag it turns on, DebugNonSafepoints (D), or as I
with the agent library THREAD_CPU_AGENT names (X: a local build with a part
of the agent's set-up left out), repeated;
polls /proc/PID/task/*/stat every 50 ms and sums each thread's last CPU time
by kind: the application ("java": the launcher's and Java's main thread),
C2 and C1 compiler threads, GC, and the rest (wasp's threads, the Service
Thread that delivers compiled-method events, the VM thread). Prints each run
and the means with their standard errors. Run it on an idle machine.

    python3 bench/thread_cpu.py h2 BIW 3
    python3 bench/thread_cpu.py h2:9 BI 4
    THREAD_CPU_AGENT=/tmp/no-events/libwasp.so python3 bench/thread_cpu.py h2 BIX 5

The watch engine is the one wasp proves on the machine (debug registers
where they trap, else page protection).
"""
import collections
import os
import statistics as st
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench", "corpus"))
import programs  # noqa: E402

JDK = "/usr/lib/jvm/java-17-openjdk-amd64/bin/"
JAVA = JDK + "java"
WASP = os.path.join(ROOT, "build/bin/wasp")
TICK = os.sysconf("SC_CLK_TCK")
KINDS = ["all", "java", "C2", "C1", "GC", "other"]


def program_command(spec, out):
    """The java command of corpus program NAME at its full size, or at the
    size argument NAME:SIZE gives (h2:9, three times h2's queries)."""
    name, _, size = spec.partition(":")
    prog = programs.BY_NAME[name]
    inputs = prog.prepare(JDK + "javac")
    return prog.command(JAVA, inputs, size or prog.sizes["full"], out)


def configs(prog, out):
    java = program_command(prog, out)
    wasp = [WASP, "run", "-q", "-e", "deadstore+silentstore+silentload"]
    debug = java[:1] + ["-XX:+UnlockDiagnosticVMOptions", "-XX:+DebugNonSafepoints"] + java[1:]
    return {"B": java,
            "D": debug,
            "I": wasp + ["--period", "1s", "-o", "/tmp/thread_cpu_i.wprof", "--"] + java,
            "W": wasp + ["-o", "/tmp/thread_cpu_w.wprof", "--"] + java,
            # I with another build of the agent (THREAD_CPU_AGENT=path/libwasp.so):
            # one with a part of its set-up left out, to learn what that part costs
            "X": wasp + ["--agent", os.environ.get("THREAD_CPU_AGENT", ""), "--period", "1s",
                         "-o", "/tmp/thread_cpu_x.wprof", "--"] + java}


def kind(name):
    for prefix, k in (("C2 Compiler", "C2"), ("C1 Compiler", "C1"), ("GC Thread", "GC"), ("G1", "GC")):
        if name.startswith(prefix):
            return k
    return "java" if name in ("java", "main") else "other"


def java_pid(p):
    """The java process: p itself, or wasp run's child."""
    for _ in range(500):
        try:
            if open("/proc/%d/comm" % p.pid).read().strip() == "java":
                return p.pid
            for k in open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split():
                if open("/proc/%s/comm" % k).read().strip() == "java":
                    return int(k)
        except OSError:
            pass
        time.sleep(0.01)
    return None


def one_run(cmd, out):
    p = subprocess.Popen(cmd, cwd=out, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pid, last = java_pid(p), {}
    while p.poll() is None and pid:
        try:
            tasks = os.listdir("/proc/%d/task" % pid)
        except OSError:
            tasks = []
        for t in tasks:
            try:
                s = open("/proc/%d/task/%s/stat" % (pid, t)).read()
            except OSError:
                continue
            f = s[s.rindex(")") + 2:].split()
            last[t] = (s[s.index("(") + 1:s.rindex(")")], (int(f[11]) + int(f[12])) / TICK)
        time.sleep(0.05)
    p.wait()
    by = collections.Counter()
    for name, cpu in last.values():
        by[kind(name)] += cpu
    by["all"] = sum(by.values())
    return by


def main():
    prog, order, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seen = collections.defaultdict(lambda: collections.defaultdict(list))
    for _ in range(reps):
        for c in order:
            out = tempfile.mkdtemp(prefix="thread-cpu-")
            by = one_run(configs(prog, out)[c], out)
            shutil.rmtree(out, ignore_errors=True)
            for k in KINDS:
                seen[c][k].append(by[k])
            print(c, " ".join("%s %.2f" % (k, by[k]) for k in KINDS), flush=True)
    for c in order:
        v = seen[c]
        print(c, " ".join("%s %.2f+-%.2f" % (k, st.mean(v[k]), st.stdev(v[k]) / len(v[k]) ** 0.5
                                           if len(v[k]) > 1 else 0) for k in KINDS))


if __name__ == "__main__":
    main()
