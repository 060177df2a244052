#!/usr/bin/env python3
"""The corpus benchmark: real programs from Debian packages (bench/corpus/),
each run without the agent and under `wasp run` for each analysis and each
watch engine, interleaved and repeated; prints a table of overhead ratios
and profile health (docs/corpus.md).

    python3 bench/corpus.py                        # every program, full size, 2 repetitions
    python3 bench/corpus.py --quick                # short sizes, 1 repetition
    python3 bench/corpus.py -p h2,xalan -r 3 -e deadstore,all --engines page
    python3 bench/corpus.py -e default,default@period=4ms --engines debugreg

Per program and repetition the runs go B c1 c2 B c3 c4 B ... (B: without
the agent; c: one analysis under one engine, in an order rotated from one
repetition to the next); each agent run is compared with the mean of the
baselines on either side of it, which cancels a linear drift of the
machine's speed. Reported per program and configuration: medians of the
CPU, wall and peak-RSS ratios, samples and pairs per CPU-second, armed
samples per minute, `table_full` drops as a share of samples,
`stack.no_java_frames` as a share of stack walks, and whether a
"[stack unavailable]" entry is among the top 10 of any analysis. A run
whose exit code or output digest differs from the baseline's, or that leaves
an hs_err file or no profile, is a failure, listed under the table.
Exit status 0 when every run succeeded, 1 otherwise, 2 when nothing ran.
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "corpus"))
import measure  # noqa: E402
import programs  # noqa: E402

START = time.monotonic()
ENGINES = ("debugreg", "page")
DEFAULT_EVENTS = "deadstore+silentstore+silentload"
# The targets of issue 38, checked under the table.
TARGETS = {"cpu_median": {"debugreg": 1.03, "page": 1.05}, "cpu_max": 1.10, "rss_median": 1.05,
           "table_full": 0.01, "no_java": 0.01, "page_armed_per_min": 500}


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def uptime():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def engine_works(engine):
    """None when `wasp doctor` proves the watch engine here, else its reason."""
    r = subprocess.run([measure.WASP, "doctor", "--json"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    try:
        w = json.loads(r.stdout)["watch"][engine]
    except (ValueError, KeyError):
        return None  # let the runs say
    return None if w.get("ok") else w.get("why") or "wasp doctor says it does not work"


def configs(events, engines):
    return [(e, w) for e in events for w in engines]


def split_events(ev):
    """'default@period=4ms' -> (the -e value, ['--period', '4ms']): a
    configuration may carry `wasp run` options, each after an '@'."""
    parts = ev.split("@")
    extra = []
    for opt in parts[1:]:
        key, _, value = opt.partition("=")
        extra += ["--" + key] + ([value] if value else [])
    return parts[0], extra


def label(ev):
    events, _ = split_events(ev)
    name = "default" if events == DEFAULT_EVENTS else events
    return "@".join([name] + ev.split("@")[1:])


def run_all(opts, progs, cfgs, java, javac, workdir, log):
    results = {p.name: {"baselines": [], "runs": {}} for p in progs}
    failures = []
    for rep in range(opts.repetitions):
        for prog in progs:
            if opts.budget and time.monotonic() - START > opts.budget * 60:
                log("  budget of %g min spent: %s r%d and later left out" % (opts.budget, prog.name, rep))
                results[prog.name].setdefault("left_out", []).append(rep)
                continue
            inputs = prog.prepare(javac)
            size = prog.sizes[opts.size]
            order = cfgs[rep % len(cfgs):] + cfgs[:rep % len(cfgs)]
            seq = []
            for i, c in enumerate(order):
                if i % 2 == 0:
                    seq.append(None)
                seq.append(c)
            seq.append(None)
            pending = []  # agent runs waiting for the baseline after them
            last_base = None
            for c in seq:
                if c is None:
                    b = measure.run_program(prog, java, inputs, size, workdir=workdir)
                    log("  %-10s r%d baseline        rc %d wall %6.1f s cpu %6.1f s rss %4d MiB %s"
                        % (prog.name, rep, b.rc, b.wall, b.cpu, b.rss_kib // 1024, b.digest))
                    if b.rc != 0 or b.digest is None:
                        failures.append("%s baseline r%d: rc %d, digest %s: %s"
                                        % (prog.name, rep, b.rc, b.digest, b.out[-300:]))
                    results[prog.name]["baselines"].append(vars_of(b))
                    for r, prev in pending:
                        r["base"] = mean_base(prev, b)
                    pending = []
                    last_base = b
                    if results[prog.name].get("digest") is None:
                        results[prog.name]["digest"] = b.digest
                    measure.cleanup(b)
                    continue
                ev, watch = c
                events, extra = split_events(ev)
                r = measure.run_program(prog, java, inputs, size, watch=watch, events=events,
                                        workdir=workdir, extra=extra)
                row = vars_of(r)
                row.update(events=ev, watch=watch, rep=rep)
                why = judge(r, last_base)
                if why is None:
                    rc, text, err = measure.report(r.profile)
                    if rc != 0:
                        why = "wasp report exited %d: %s" % (rc, err[-300:])
                    else:
                        rep_json = json.loads(text)
                        m = measure.metrics(rep_json, r)
                        row.update({k: v for k, v in m.items()})
                if why:
                    failures.append("%s %s/%s r%d: %s" % (prog.name, label(ev), watch, rep, why))
                    row["failed"] = why
                log("  %-10s r%d %-8s %-8s rc %d wall %6.1f s cpu %6.1f s rss %4d MiB %s%s"
                    % (prog.name, rep, label(ev)[:8], watch, r.rc, r.wall, r.cpu, r.rss_kib // 1024,
                       r.digest, ("  FAILED: " + why[:200]) if why else ""))
                results[prog.name]["runs"].setdefault("%s|%s" % (ev, watch), []).append(row)
                pending.append((row, last_base))
                if not opts.keep:
                    measure.cleanup(r)
    return results, failures


def vars_of(run):
    return {k: getattr(run, k) for k in ("rc", "wall", "cpu", "rss_kib", "digest")} | \
        {"hs_err": run.hs_err}


def mean_base(a, b):
    if a is None:
        return {"wall": b.wall, "cpu": b.cpu, "rss_kib": b.rss_kib}
    return {"wall": (a.wall + b.wall) / 2, "cpu": (a.cpu + b.cpu) / 2,
            "rss_kib": (a.rss_kib + b.rss_kib) / 2}


def judge(r, base):
    if r.timed_out:
        return "timed out"
    if r.hs_err:
        return "hs_err file left: %s" % r.hs_err[0]
    if base is not None and r.rc != base.rc:
        return "exit code %d, %d without the agent: %s" % (r.rc, base.rc, r.out[-300:])
    if base is not None and r.digest != base.digest:
        return "output digest %s, %s without the agent" % (r.digest, base.digest)
    if not r.profile or not os.path.exists(r.profile):
        return "no profile written: %s" % r.out[-300:]
    return None


def summarize(results, cfgs):
    """{(prog, cfg): row of medians} and {cfg: [cpu ratio medians]}."""
    rows, by_cfg = {}, {}
    for prog, res in results.items():
        for ev, watch in cfgs:
            runs = [r for r in res["runs"].get("%s|%s" % (ev, watch), [])
                    if "failed" not in r and "base" in r]
            if not runs:
                continue
            ratio = lambda k: median([r[k] / r["base"][k] for r in runs if r["base"][k]])  # noqa: E731
            row = {
                "n": len(runs),
                "cpu": ratio("cpu"), "wall": ratio("wall"), "rss": ratio("rss_kib"),
                "cpu_min": min(r["cpu"] / r["base"]["cpu"] for r in runs),
                "cpu_max": max(r["cpu"] / r["base"]["cpu"] for r in runs),
                "base_cpu": median([r["base"]["cpu"] for r in runs]),
                "samples_cpu": median([r["samples_per_cpu_s"] for r in runs]),
                "pairs_cpu": median([r["pairs_per_cpu_s"] for r in runs]),
                "armed_min": median([r["armed_per_min"] for r in runs]),
                "table_full": median([r["table_full_share"] for r in runs]),
                "no_java": median([r["no_java_share"] for r in runs]),
                "unavailable": sum(1 for r in runs if r["unavailable_top10"]),
                "us_sample": median([r.get("handler_us_per_sample", 0) for r in runs]),
                "self": median([r.get("self_share", 0) for r in runs]),
                "faults_armed": median([r.get("faults_per_armed", 0) for r in runs]),
            }
            rows[(prog, (ev, watch))] = row
            by_cfg.setdefault((ev, watch), []).append(row)
    return rows, by_cfg


def table(rows, cfgs, progs, skipped=()):
    head = ("| program | analyses | engine | runs | base CPU s | CPU | (min-max) | wall | RSS "
            "| samples/CPU-s | pairs/CPU-s | armed/min | table_full | no_java_frames "
            "| stack unavailable in top 10 | handler us/sample | self share | faults/armed |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for p in progs:
        if not any((p.name, c) in rows for c in cfgs) and p.name in skipped:
            continue
        for c in cfgs:
            r = rows.get((p.name, c))
            if not r:
                lines.append("| %s | %s | %s | 0 | | failed | | | | | | | | | | | | |"
                             % (p.name, label(c[0]), c[1]))
                continue
            lines.append("| %s | %s | %s | %d | %.1f | %.3fx | %.2f-%.2f | %.3fx | %.3fx | %.0f | %.1f "
                         "| %.0f | %.2f%% | %.2f%% | %s | %.1f | %.1f%% | %s |"
                         % (p.name, label(c[0]), c[1], r["n"], r["base_cpu"], r["cpu"], r["cpu_min"],
                            r["cpu_max"], r["wall"], r["rss"], r["samples_cpu"], r["pairs_cpu"],
                            r["armed_min"], 100 * r["table_full"], 100 * r["no_java"],
                            "yes (%d runs)" % r["unavailable"] if r["unavailable"] else "no",
                            r["us_sample"], 100 * r["self"],
                            "%.0f" % r["faults_armed"] if c[1] == "page" else "-"))
    return "\n".join(lines)


def targets(by_cfg):
    out = []
    for (ev, watch), rows in sorted(by_cfg.items()):
        cpu = median([r["cpu"] for r in rows])
        worst = max(rows, key=lambda r: r["cpu"])
        lim = TARGETS["cpu_median"][watch]
        tf = max(r["table_full"] for r in rows)
        nj = max(r["no_java"] for r in rows)
        rss = median([r["rss"] for r in rows])
        line = ("%s / %s: median CPU %.3fx (target <= %.2fx: %s), highest %.3fx (<= %.2fx: %s), "
                "median RSS %.3fx (<= %.2fx: %s), worst table_full %.2f%% (< 1%%: %s), "
                "worst no_java_frames %.2f%% (<= 1%%: %s)"
                % (label(ev), watch, cpu, lim, yes(cpu <= lim), worst["cpu"], TARGETS["cpu_max"],
                   yes(worst["cpu"] <= TARGETS["cpu_max"]), rss, TARGETS["rss_median"],
                   yes(rss <= TARGETS["rss_median"]), 100 * tf, yes(tf < TARGETS["table_full"]),
                   100 * nj, yes(nj <= TARGETS["no_java"])))
        if watch == "page":
            low = min(r["armed_min"] for r in rows)
            line += ", fewest armed/min %.0f (>= 500: %s)" % (low, yes(low >= TARGETS["page_armed_per_min"]))
        out.append("- " + line)
    return "\n".join(out)


def yes(ok):
    return "holds" if ok else "MISSED"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-p", "--programs", default="",
                    help="comma-separated programs (default: all: %s)"
                    % ",".join(p.name for p in programs.PROGRAMS))
    ap.add_argument("-r", "--repetitions", type=int, default=2)
    ap.add_argument("-e", "--events", default="default,all",
                    help="comma-separated analyses, each a wasp -e value with '+' "
                         "(default: default,all; default = %s), each optionally with "
                         "`wasp run` options after '@': default@period=4ms" % DEFAULT_EVENTS)
    ap.add_argument("--engines", default="debugreg,page", help="comma-separated: debugreg,page")
    ap.add_argument("--size", choices=("short", "full"), default="full")
    ap.add_argument("--quick", action="store_true", help="short sizes, 1 repetition")
    ap.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    ap.add_argument("--out", default=os.path.join(programs.ROOT, "build", "corpus.md"),
                    help="markdown output (- for none); raw results go beside it as .json")
    ap.add_argument("--keep", action="store_true", help="keep every run's directory")
    ap.add_argument("--budget", type=float, default=0, metavar="MINUTES",
                    help="start no program's runs after MINUTES (0: no limit); the table "
                         "shows what ran")
    opts = ap.parse_args()
    if opts.quick:
        opts.size, opts.repetitions = "short", 1
    names = [n for n in opts.programs.split(",") if n] or [p.name for p in programs.PROGRAMS]
    bad = [n for n in names if n not in programs.BY_NAME]
    if bad:
        ap.error("--programs: unknown %s (accepted: %s)"
                 % (", ".join(bad), ", ".join(programs.BY_NAME)))
    events = [DEFAULT_EVENTS + e[len("default"):] if e.split("@")[0] == "default" else e
              for e in opts.events.split(",") if e]
    engines = [w for w in opts.engines.split(",") if w]
    if any(w not in ENGINES for w in engines):
        ap.error("--engines: accepted values are debugreg, page")
    java = os.path.join(opts.jdk, "bin", "java")
    javac = os.path.join(opts.jdk, "bin", "javac")
    if not os.access(measure.WASP, os.X_OK):
        print("corpus: %s missing (make all first)" % measure.WASP, file=sys.stderr)
        return 2
    for w in list(engines):
        why = engine_works(w)
        if why:
            print("corpus: leaving out the %s engine: %s" % (w, why))
            engines.remove(w)
    progs = []
    for n in names:
        p = programs.BY_NAME[n]
        try:
            p.prepare(javac)
            progs.append(p)
        except programs.Missing as e:
            print("corpus: leaving out %s: %s" % (n, e))
    if not progs or not engines:
        print("corpus: nothing to run", file=sys.stderr)
        return 2
    cfgs = configs(events, engines)
    load_before = uptime()
    started = datetime.datetime.now(datetime.timezone.utc)
    workdir = tempfile.mkdtemp(prefix="wasp-corpus-")
    results, failures = run_all(opts, progs, cfgs, java, javac, workdir,
                                lambda s: print(s, flush=True))
    load_after = uptime()
    if not opts.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        print("run directories kept in %s" % workdir)
    ended = datetime.datetime.now(datetime.timezone.utc)
    rows, by_cfg = summarize(results, cfgs)
    left_out = [p for p, res in results.items() if res.get("left_out")]
    text = ["# wasp corpus run", "",
            "`%s`" % " ".join(["python3", "bench/corpus.py"] + sys.argv[1:]), "",
            "%s to %s UTC, %s, %d CPUs, JDK %s, size %s, %d repetitions; load average "
            "(1, 5, 15 min) %s before, %s after." % (
                started.strftime("%Y-%m-%d %H:%M"), ended.strftime("%H:%M"), platform.node(),
                os.cpu_count(), opts.jdk, opts.size, opts.repetitions, load_before, load_after),
            "", table(rows, cfgs, progs, left_out), "", "Targets (issue 38):", "", targets(by_cfg), ""]
    if left_out:
        text += ["Left out when the --budget was spent: %s." % ", ".join(
            "%s (repetitions %s)" % (p, ", ".join(str(r) for r in results[p]["left_out"]))
            for p in left_out), ""]
    if failures:
        text += ["Failed runs:", ""] + ["- " + f for f in failures] + [""]
    out = "\n".join(text)
    print("\n" + out)
    if opts.out != "-":
        with open(opts.out, "w") as f:
            f.write(out)
        with open(os.path.splitext(opts.out)[0] + ".json", "w") as f:
            json.dump({"results": results, "failures": failures, "load_before": load_before,
                       "load_after": load_after}, f, indent=1, default=str)
        print("written to %s (raw: %s.json)" % (opts.out, os.path.splitext(opts.out)[0]))
    if not rows:
        return 2
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
