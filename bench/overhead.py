#!/usr/bin/env python3
"""Overhead of the wasp agent: wall time and peak RSS with and without it.

For each configuration (deadstore, silentstore, silentload, all three) at
default settings, runs a compute-heavy Java workload R times with the agent and
R times without it, interleaved: each repetition runs every configuration
once, in a rotating order, each between two baseline runs, and compares it with
the mean of those two neighbours (the machine's speed drifts; a neighbour on
each side cancels a linear drift). java is started directly with -agentpath (not through `wasp run`)
so that os.wait4() gives the java process's own peak RSS.

Reports per configuration the median of the paired ratios agent/baseline (and
their min-max spread), the pairs classified per second per busy thread and
per CPU-second, and the page engine's faults, read from the profile through
`wasp report --format json`. Prints a markdown table and writes it to
build/overhead.md (--out).

    python3 bench/overhead.py                  # 5 repetitions, JDK 17
    python3 bench/overhead.py -r 3 --jdk /usr/lib/jvm/temurin-25-jdk-amd64
    python3 bench/overhead.py --workload SilentLoadSearch --args 2000 --threads 1
    python3 bench/overhead.py --workload RunTimes --classpath /usr/share/java/sablecc.jar \
        --args '1 org.sablecc.sablecc.SableCC.processGrammar /tmp/big.sablecc /tmp/out'

Exit status: 0 when every run succeeded, 1 when some agent run failed (the
table says which), 2 when nothing could be measured (no agent, no JDK, the
workload does not run).
"""

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AGENT = os.path.join(ROOT, "build", "lib", "libwasp.so")
WASP = os.path.join(ROOT, "build", "bin", "wasp")
BENCH_SRC = os.path.join(ROOT, "bench")
BENCH_CLASSES = os.path.join(ROOT, "build", "bench")
WORKLOAD_CLASSES = os.path.join(ROOT, "build", "workloads")
DEFAULT_JDK = "/usr/lib/jvm/java-17-openjdk-amd64"
# (name, agent options besides file=): each analysis at its defaults, the
# three together (wasp run's default), and the object-centric analysis at
# the default minimum object size S = 1 KiB, at S = 0, and tracking every
# allocation (alloc-interval=0) instead of sampling allocations.
CONFIGS = [
    ("deadstore", "events=deadstore"),
    ("silentstore", "events=silentstore"),
    ("silentload", "events=silentload"),
    ("all three", "events=deadstore+silentstore+silentload"),
    ("objects S=1KiB", "events=objects"),
    ("objects S=0", "events=objects,min-size=0"),
    ("objects exact", "events=objects,alloc-interval=0"),
    ("replicas", "events=replicas"),
    ("fields", "events=fields"),
    ("alloc", "events=alloc"),
    ("locks", "events=locks"),
]
TIMEOUT = 600


def die(msg, code=2):
    print("overhead: " + msg, file=sys.stderr)
    sys.exit(code)


def run_measured(cmds, timeout=TIMEOUT):
    """Runs the commands at the same time, each as a direct child; returns, per
    command, (rc, wall s, CPU s, peak RSS KiB, stdout, stderr). CPU time (user
    + system) and peak RSS are the child's own (os.wait4), so each command must
    be java itself (or exec it, as taskset does)."""
    files = [(tempfile.TemporaryFile(), tempfile.TemporaryFile()) for _ in cmds]
    try:
        t0 = time.monotonic()
        procs = [subprocess.Popen(c, stdin=subprocess.DEVNULL, stdout=o, stderr=e, cwd=ROOT)
                 for c, (o, e) in zip(cmds, files)]
        killers = [threading.Timer(timeout, p.kill) for p in procs]
        for k in killers:
            k.start()
        done = {}
        try:
            while len(done) < len(procs):
                pid, status, ru = os.wait4(-1, 0)
                done[pid] = (time.monotonic() - t0, status, ru)
        finally:
            for k in killers:
                k.cancel()
        results = []
        for p, (o, e) in zip(procs, files):
            wall, status, ru = done[p.pid]
            p.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4
            o.seek(0)
            e.seek(0)
            results.append((p.returncode, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss,
                            o.read().decode(errors="replace"), e.read().decode(errors="replace")))
        return results
    finally:
        for o, e in files:
            o.close()
            e.close()


def checksum_of(text):
    m = re.findall(r"^checksum: (\S+)\s*$", text, re.M)
    return m[-1] if m else None


def compile_bench(jdk):
    javac = os.path.join(jdk, "bin", "javac")
    srcs = sorted(os.path.join(BENCH_SRC, f) for f in os.listdir(BENCH_SRC) if f.endswith(".java"))
    stamp = os.path.join(BENCH_CLASSES, ".stamp")
    if os.path.exists(stamp) and all(os.path.getmtime(s) <= os.path.getmtime(stamp) for s in srcs):
        return
    os.makedirs(BENCH_CLASSES, exist_ok=True)
    # --release 17: classes that every JDK we test (17 and later) can run.
    r = subprocess.run([javac, "--release", "17", "-g", "-d", BENCH_CLASSES] + srcs,
                       capture_output=True, text=True)
    if r.returncode != 0:
        die("javac failed:\n" + r.stderr)
    open(stamp, "w").close()


def report_json(profile):
    r = subprocess.run([WASP, "report", "--format", "json", profile], capture_output=True,
                       text=True, timeout=TIMEOUT)
    if r.returncode != 0:
        raise RuntimeError("wasp report exited %d: %s" % (r.returncode, r.stderr.strip()[-300:]))
    return json.loads(r.stdout)


def fmt_ratio(xs):
    if not xs:
        return "-"
    # Three digits for the median: targets sit at whole percents, and a
    # median rounded to two would hide which side of one it is on.
    return "%.3fx (%.2f-%.2f)" % (statistics.median(xs), min(xs), max(xs))


def fmt_num(xs, unit="", scale=1.0, digits=1):
    if not xs:
        return "-"
    return "%.*f%s" % (digits, statistics.median(xs) * scale, unit)


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.M)
            cpu = m.group(1).strip() if m else cpu
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(re.search(r"MemTotal:\s+(\d+)", f.read()).group(1))
            mem = ", %.0f GiB RAM" % (kb / 1048576)
    except (OSError, AttributeError):
        pass
    virt = ""
    try:
        with open("/proc/cpuinfo") as f:
            if " hypervisor" in f.read():
                virt = ", virtual machine"
    except OSError:
        pass
    return "%s, %d cores%s%s; %s %s" % (cpu, os.cpu_count() or 0, mem, virt,
                                        platform.system(), platform.release())


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return f.read().split()[0]
    except OSError:
        return "?"


def jdk_version(java):
    r = subprocess.run([java, "-version"], capture_output=True, text=True)
    lines = (r.stderr or r.stdout).strip().splitlines()
    return lines[1].strip() if len(lines) > 1 else (lines[0] if lines else "unknown")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-r", "--reps", type=int, default=5, help="repetitions (default 5)")
    ap.add_argument("--jdk", default=os.environ.get("WASP_BENCH_JDK", DEFAULT_JDK),
                    help="JDK home (default %s)" % DEFAULT_JDK)
    ap.add_argument("--workload", default="BenchMix",
                    help="main class: one of bench/ (BenchMix, RunTimes, ...) or a tests/workloads "
                         "class (default BenchMix)")
    ap.add_argument("--classpath", default="",
                    help="more of the class path, after the workload's classes: a real program's "
                         "jar, run through bench/RunTimes.java")
    ap.add_argument("--args", default=None,
                    help="workload arguments (default for BenchMix: '<threads> 40')")
    ap.add_argument("--threads", type=int, default=2,
                    help="busy threads of the workload, for pairs/s/thread (default 2)")
    ap.add_argument("--heap", default="1g",
                    help="fixed Java heap (-Xms and -Xmx), so that peak RSS depends less on the "
                         "collector's sizing decisions; '' for the JVM's default (default 1g)")
    ap.add_argument("--jvm-arg", action="append", default=[], help="extra JVM option (repeatable)")
    ap.add_argument("--agent", default=AGENT, help="agent library (default build/lib/libwasp.so)")
    ap.add_argument("--only", action="append", default=[],
                    help="run only configurations whose name contains this (repeatable)")
    ap.add_argument("--config", action="append", default=[], metavar="NAME=OPTIONS",
                    help="measure this agent option string under this name instead of the "
                         "built-in configurations (repeatable), e.g. "
                         "'no events=events=objects,alloc-interval=2147483647'; "
                         "NAME@LIB=OPTIONS runs that configuration with agent LIB, "
                         "to compare two builds side by side")
    ap.add_argument("--pinned", action="store_true",
                    help="run each agent run at the same time as a baseline run, each pinned "
                         "to its own CPU (taskset, -XX:ActiveProcessorCount=1): for "
                         "single-threaded workloads on a machine whose speed drifts")
    ap.add_argument("--shared-cpu", action="store_true",
                    help="like --pinned, but the agent run and its baseline share one CPU, "
                         "time-sliced by the scheduler: compare their CPU times")
    # Not docs/: the pages there carry notes by hand that a rerun must not erase.
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "overhead.md"),
                    help="markdown file to write (default build/overhead.md; '-' for none)")
    opts = ap.parse_args()
    if opts.shared_cpu:
        opts.pinned = True

    java = os.path.join(opts.jdk, "bin", "java")
    if not os.access(java, os.X_OK):
        die("no java at %s" % java)
    if not os.path.isfile(opts.agent):
        die("agent %s not found: build it with `make all`" % opts.agent)
    if not os.access(WASP, os.X_OK):
        die("%s not found: build it with `make all`" % WASP)
    if opts.reps < 1:
        die("--reps must be at least 1")
    if opts.pinned and ((os.cpu_count() or 1) < 2 or not shutil.which("taskset")):
        die("--pinned needs two CPUs and taskset")
    agent_of = {}  # configuration name -> its own agent library (NAME@LIB=...)
    if opts.config:
        configs = []
        for c in opts.config:
            name, sep, agent_opts = c.partition("=")
            if not sep or not name or not agent_opts.startswith("events="):
                die("--config takes NAME=OPTIONS with OPTIONS starting events=..., not %r" % c)
            name, at, lib = name.partition("@")
            if at and not os.path.isfile(lib):
                die("--config %s: agent %s not found" % (c, lib))
            if at:
                agent_of[name] = lib
            configs.append((name, agent_opts))
    else:
        configs = [c for c in CONFIGS if not opts.only or any(s in c[0] for s in opts.only)]
    if not configs:
        die("--only matched no configuration")

    if os.path.isfile(os.path.join(BENCH_SRC, opts.workload + ".java")):
        compile_bench(opts.jdk)
        cp = BENCH_CLASSES
    else:
        cp = WORKLOAD_CLASSES
    if opts.workload == "BenchMix":
        wl_args = shlex.split(opts.args) if opts.args is not None else [str(opts.threads), "40"]
    else:
        wl_args = shlex.split(opts.args or "")
    cp += os.pathsep + opts.classpath if opts.classpath else ""
    heap = ["-Xms" + opts.heap, "-Xmx" + opts.heap] if opts.heap else []
    base_cmd = [java] + heap + opts.jvm_arg + ["-cp", cp, opts.workload] + wl_args

    load_before = loadavg()
    tmp = tempfile.mkdtemp(prefix="wasp-bench-")
    print("# java %s; %d repetitions; %s" % (" ".join(base_cmd[1:]), opts.reps, jdk_version(java)), flush=True)

    # A warm-up run (not measured) fills the page cache and checks the workload.
    rc, wall, cpu, rss, out, err = run_measured([base_cmd])[0]
    if rc != 0:
        die("the workload fails without the agent (exit %d): %s" % (rc, err.strip()[-500:]))
    expected = checksum_of(out)

    names = ["baseline"] + [c[0] for c in configs]
    events = dict(configs)
    res = {n: {"wall": [], "cpu": [], "rss": [], "tratio": [], "cratio": [], "rratio": [],
               "pps": [], "ppcs": [], "samples": [], "faults": [], "failures": []} for n in names}
    agents = names[1:]

    def command(name, rep, cpu):
        """(cmd, profile path or None) for one run; cpu: pin to it (--pinned)."""
        pin = ["taskset", "-c", str(cpu), java, "-XX:ActiveProcessorCount=1"] if cpu is not None else [java]
        if name == "baseline":
            return pin + base_cmd[1:], None
        # The name becomes part of the agent's option string: only safe characters.
        profile = os.path.join(tmp, "%s-%d.wprof" % (re.sub(r"[^A-Za-z0-9_.-]", "_", name), rep))
        agent = agent_of.get(name, opts.agent)
        return pin + ["-agentpath:%s=%s,file=%s" % (agent, events[name], profile)] + base_cmd[1:], profile

    def record(rep, name, profile, result):
        """Checks and records one run; returns (wall, cpu, rss), or None when it failed."""
        rc, wall, cpu, rss, out, err = result
        r = res[name]
        why = None
        if rc != 0:
            msg = (err.strip() or out.strip()).splitlines() or ["(no output)"]
            why = "exit %d: %s" % (rc, " / ".join(msg[-2:])[:240])
        elif expected is not None and checksum_of(out) != expected:
            why = "checksum %s differs from the baseline's %s" % (checksum_of(out), expected)
        elif profile and not os.path.isfile(profile):
            why = "no profile written"
        if why:
            r["failures"].append(why)
            print("  rep %d %-14s FAILED: %s" % (rep + 1, name, why), flush=True)
            return None
        r["wall"].append(wall)
        r["cpu"].append(cpu)
        r["rss"].append(rss)
        note = ""
        if profile:
            try:
                rep_json = report_json(profile)
                # Every <watch, trap> pair judged (the "classified" counter),
                # window watches' included; pairs_classified weighs them by
                # the samples they stand for.
                classified = rep_json["counters"].get("classified")
                if classified is None:
                    classified = sum(a.get("pairs_classified", 0.0)
                                     for a in rep_json["analyses"].values())
                r["pps"].append(classified / wall / max(opts.threads, 1))
                # Per second of the JVM's CPU time: about what each busy
                # thread classifies a second on a CPU of its own (a little
                # under: JIT and GC threads' time counts too).
                r["ppcs"].append(classified / cpu)
                r["samples"].append(rep_json["counters"].get("samples", 0))
                r["faults"].append(rep_json["counters"].get("watch.faults", 0))
                note = ", %.0f pairs classified" % classified
            except (RuntimeError, ValueError, KeyError) as e:
                r["failures"].append("report: %s" % e)
                note = ", report failed: %s" % e
        print("  rep %d %-14s %6.2f s %6.2f s CPU %8.1f MiB%s"
              % (rep + 1, name, wall, cpu, rss / 1024.0, note), flush=True)
        return (wall, cpu, rss)

    def add_ratio(name, m, base):
        res[name]["tratio"].append(m[0] / base[0])
        res[name]["cratio"].append(m[1] / base[1])
        res[name]["rratio"].append(m[2] / base[2])

    for rep in range(opts.reps):
        k = rep % len(agents)
        order = agents[k:] + agents[:k]  # rotate, so no configuration always runs first
        if opts.pinned:
            # Each agent run next to a baseline run at the same time, each on
            # a CPU of its own (swapped every run): both see the same speed of
            # the machine, whatever it drifts to.
            for i, name in enumerate(order):
                a_cpu, b_cpu = (0, 1) if (rep + i) % 2 == 0 else (1, 0)
                if opts.shared_cpu:
                    b_cpu = a_cpu
                acmd, profile = command(name, rep, a_cpu)
                bcmd, _ = command("baseline", rep, b_cpu)
                ar, br = run_measured([acmd, bcmd])
                b = record(rep, "baseline", None, br)
                m = record(rep, name, profile, ar)
                if m and b:
                    add_ratio(name, m, b)
            continue
        # Every agent run sits between two baseline runs and is compared with
        # their mean: this VM's speed drifts by 10-20% over tens of seconds,
        # and a neighbour on each side cancels a linear drift.
        sequence = ["baseline"]
        for name in order:
            sequence += [name, "baseline"]
        measured = []  # (name, (wall, cpu, rss)) in run order; None for a failed run
        for name in sequence:
            cmd, profile = command(name, rep, None)
            measured.append((name, record(rep, name, profile, run_measured([cmd])[0])))
        for i in range(1, len(measured), 2):
            name, m = measured[i]
            sides = [b for _, b in (measured[i - 1], measured[i + 1]) if b]
            if m and sides:
                add_ratio(name, m, [statistics.mean(x[j] for x in sides) for j in range(3)])

    rows = ["| configuration | time (median) | time ratio, median (min-max) "
            "| CPU ratio, median (min-max) | peak RSS (median) "
            "| RSS ratio, median (min-max) | pairs/s per busy thread | pairs per CPU-second "
            "| samples | page faults | failed runs |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name in names:
        r = res[name]
        rows.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, fmt_num(r["wall"], " s", digits=2),
            "1.00x" if name == "baseline" else fmt_ratio(r["tratio"]),
            "1.00x" if name == "baseline" else fmt_ratio(r["cratio"]),
            fmt_num(r["rss"], " MiB", 1 / 1024.0),
            "1.00x" if name == "baseline" else fmt_ratio(r["rratio"]),
            "-" if name == "baseline" else fmt_num(r["pps"], digits=0),
            "-" if name == "baseline" else fmt_num(r["ppcs"], digits=0),
            "-" if name == "baseline" else fmt_num(r["samples"], digits=0),
            "-" if name == "baseline" or not any(r["faults"]) else fmt_num(r["faults"], digits=0),
            "%d of %d" % (len(r["failures"]), opts.reps) if r["failures"] else "0"))
    table = "\n".join(rows)
    failures = ["- %s: %s" % (n, f) for n in names for f in sorted(set(res[n]["failures"]))]

    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    doc = [
        "# wasp overhead",
        "",
        "Generated by `bench/overhead.py`; rerun it to refresh (see bench/README.md).",
        "",
        "- command: `%s`" % " ".join(["python3", "bench/overhead.py"] + [shlex.quote(a) for a in sys.argv[1:]]),
        "- date: %s" % now,
        "- machine: %s; load average %s before the benchmark, %s after (other work on the "
        "machine widens the spread)" % (machine(), load_before, loadavg()),
        "- JDK: %s (%s)" % (jdk_version(java), opts.jdk),
        "- workload: `%s` (%d busy threads)" % (" ".join(["java"] + base_cmd[1:]).replace(ROOT + "/", ""), opts.threads),
        "- agent: %s (`-agentpath:libwasp.so=events=...,file=...`), %d repetitions, "
        % ("the options in the table" if opts.config else "default settings", opts.reps) + (
            "each agent run at the same time as a baseline run, both pinned to the same CPU and "
            "time-sliced by the scheduler (taskset; -XX:ActiveProcessorCount=1, so the JVM picks "
            "SerialGC and one JIT thread); ratios are per pair (agent run / the baseline run "
            "beside it): the CPU ratio is the agent's cost, the time ratio about half of it "
            "(the baseline finishes first and the agent run then has the CPU alone)"
            if opts.shared_cpu else
            "each agent run at the same time as a baseline run, each pinned to its own CPU "
            "(taskset; -XX:ActiveProcessorCount=1, so the JVM picks SerialGC and one JIT thread); "
            "ratios are per pair (agent run / the baseline run beside it)" if opts.pinned else
            "each agent run between two baseline runs; ratios are per agent run (agent run / mean "
            "of its two neighbouring baseline runs)") + "; CPU = user + system time of the java process",
        "",
        table,
        "",
    ]
    if failures:
        doc += ["Failed runs:", ""] + failures + [""]
    text = "\n".join(doc)
    print()
    print(table)
    if failures:
        print("\nFailed runs:\n" + "\n".join(failures))
    if failures:
        print("profiles of this benchmark kept in %s" % tmp)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    measured = any(res[n]["tratio"] for n in names if n != "baseline")
    if not measured:
        print("\nno agent run succeeded: %s left as it was" % opts.out, file=sys.stderr)
        return 2
    if opts.out != "-":
        os.makedirs(os.path.dirname(os.path.abspath(opts.out)), exist_ok=True)
        with open(opts.out, "w") as f:
            f.write(text)
        print("\nwritten to %s" % os.path.abspath(opts.out))
    return 1 if any(res[n]["failures"] for n in names) else 0


if __name__ == "__main__":
    sys.exit(main())
