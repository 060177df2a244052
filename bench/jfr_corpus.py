#!/usr/bin/env python3
"""wasp's allocation and lock profiles beside JDK Flight Recorder's on the
corpus's real programs (issue 41; the tables in docs/alloc.md and
docs/locks.md, "Beside JFR on real programs").

    python3 bench/jfr_corpus.py                      # all ten programs, short size, 2 repetitions
    python3 bench/jfr_corpus.py -p h2,lucene -r 3 --wasp /tmp/jfrwt/build

Each program (bench/corpus/programs.py: its class path, inputs and digest)
runs four ways, per repetition in the order P x y z, then P once more after
the last repetition (P: without agent; x y z the other three, rotated from
one repetition to the next):

  plain  no agent, no recording
  wasp   `wasp run -q -e alloc+locks --watch auto`
  jfr    -XX:StartFlightRecording with a copy of the JDK's default.jfc whose
         jdk.JavaMonitorEnter and jdk.ThreadPark thresholds are 0 ms (as
         locks.jfr has it; jdk.ObjectAllocationSample keeps its default, 150
         a second)
  both   wasp and that recording in the same run

Each agent run's CPU and wall time are divided by the mean of the plain runs
on either side of it. From each `both` run: wasp's `alloc.classes` (estimated
bytes) beside JFR's jdk.ObjectAllocationSample weights summed by class, top 5
of each (overlap, rank differences), and wasp's `locks.blocked.classes`
beside JFR's JavaMonitorEnter and ThreadPark durations summed by monitor /
blocker class (parks with no blocker or on a Condition left out of JFR's side,
as wasp leaves them out), when either side saw at least --min-blocked
seconds. Class names are compared after normalize(): JFR's array descriptors
spelled as wasp spells them (jfr.class_name) and hidden classes' addresses
dropped ("X$$Lambda/0x..." and "X$$Lambda$14/0x..." are both "X$$Lambda").
A run whose exit code or output digest differs from the plain run's is a
failure, listed under the tables. Prints markdown; --out writes it and the
raw results (.json beside it).
"""

import argparse
import collections
import datetime
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "corpus"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "integration"))
import jfr as jfr_file  # noqa: E402  (reading JFR files, shared with alloc.jfr and locks.jfr)
import measure  # noqa: E402
import programs  # noqa: E402

# bench/corpus.py (uptime, median), by its path: tests/integration has a corpus.py too.
_spec = importlib.util.spec_from_file_location("corpus_bench", os.path.join(HERE, "corpus.py"))
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)
H = jfr_file.Standalone()
THRESHOLDS = {"jdk.JavaMonitorEnter": "0 ms", "jdk.ThreadPark": "0 ms"}
EVENTS = ["jdk.ObjectAllocationSample", "jdk.JavaMonitorEnter", "jdk.ThreadPark"]
AGENT_WAYS = ("wasp", "jfr", "both")
TOP = 5


class Recorded:
    """A corpus program whose java command also records with JFR, into
    rec.jfr in the run's own directory."""
    def __init__(self, prog, settings):
        self.prog, self.settings = prog, settings

    def __getattr__(self, name):
        return getattr(self.prog, name)

    def command(self, java, inputs, size, out):
        cmd = self.prog.command(java, inputs, size, out)
        flag = "-XX:StartFlightRecording=filename=%s,settings=%s" % (os.path.join(out, "rec.jfr"),
                                                                     self.settings)
        return cmd[:1] + [flag] + cmd[1:]


def normalize(name):
    """A class name as both sides are compared: hidden classes without their
    address and counter (lambdas: "X$$Lambda")."""
    name = re.sub(r"\$\$Lambda[^\[]*", "$$Lambda", name)
    return re.sub(r"[./+]0x[0-9a-fA-F]+", "", name)


def summed(pairs):
    out = collections.Counter()
    for name, value in pairs:
        if name:
            out[normalize(name)] += value
    return out


def wasp_side(report):
    """({class: estimated bytes}, catches, {class: blocked seconds}, blocked samples)."""
    a = report.get("alloc") or {}
    b = (report.get("locks") or {}).get("blocked") or {}
    return (summed((c["class"], c.get("bytes") or 0) for c in a.get("classes", [])), a.get("catches", 0),
            summed((c["class"], c["seconds"]) for c in b.get("classes", [])), b.get("samples", 0))


def jfr_side(jdk, rec):
    """({class: summed weight}, samples, {class: blocked seconds}, events) of
    a recording; parks with no blocker or on a Condition are left out."""
    alloc, blocked, n_alloc, n_blocked = [], [], 0, 0
    for v in jfr_file.events(H, jdk, rec, EVENTS):
        if "weight" in v:
            alloc.append((jfr_file.class_name(v.get("objectClass")), float(v["weight"])))
            n_alloc += 1
            continue
        cls = jfr_file.class_name(v.get("monitorClass") if "monitorClass" in v else v.get("parkedClass"))
        if not cls or cls.endswith("$ConditionObject"):
            continue
        blocked.append((cls, jfr_file.seconds(v["duration"])))
        n_blocked += 1
    return summed(alloc), n_alloc, summed(blocked), n_blocked


def ranked(by):
    return sorted(by, key=lambda k: (-by[k], k))


def compare(wasp, jfr):
    """Top TOP of each side: overlap, rank places apart of the shared ones,
    and both sides' shares (of each side's total) of the union."""
    tw, tj = ranked(wasp)[:TOP], ranked(jfr)[:TOP]
    shared = [k for k in tw if k in tj]
    apart = dict((k, abs(tw.index(k) - tj.index(k))) for k in shared)
    sw, sj = sum(wasp.values()) or 1, sum(jfr.values()) or 1
    shares = dict((k, (wasp.get(k, 0) / sw, jfr.get(k, 0) / sj)) for k in set(tw) | set(tj))
    return {"wasp_top": tw, "jfr_top": tj, "overlap": len(shared),
            "max_apart": max(apart.values()) if apart else None,
            "within_one": sum(1 for d in apart.values() if d <= 1), "shares": shares,
            "worst_points": max((100 * abs(a - b) for a, b in shares.values()), default=0.0),
            "same_order": tw == tj}


def one_run(prog, way, java, inputs, size, settings, workdir):
    if way in ("jfr", "both"):
        prog = Recorded(prog, settings)
    if way in ("wasp", "both"):
        return measure.run_program(prog, java, inputs, size, watch="auto", events="alloc+locks",
                                   workdir=workdir)
    return measure.run_program(prog, java, inputs, size, workdir=workdir)


def judge(r, base, way):
    if r.timed_out:
        return "timed out"
    if r.hs_err:
        return "hs_err file left: %s" % r.hs_err[0]
    if r.rc != base.rc or r.digest != base.digest:
        return "rc %d digest %s, without agent rc %d digest %s: %s" % (r.rc, r.digest, base.rc, base.digest,
                                                                      r.out[-300:])
    if way in ("wasp", "both") and not os.path.exists(r.profile or ""):
        return "no profile written"
    if way in ("jfr", "both") and not os.path.exists(os.path.join(r.dir, "rec.jfr")):
        return "no JFR recording written"
    return None


def side_by_side(r, jdk):
    rc, text, err = measure.report(r.profile)
    if rc != 0:
        raise H.Fail("wasp report exited %d: %s" % (rc, err[-300:]))
    w_alloc, catches, w_blocked, blocked_samples = wasp_side(json.loads(text))
    j_alloc, samples, j_blocked, events = jfr_side(jdk, os.path.join(r.dir, "rec.jfr"))
    return {"alloc": compare(w_alloc, j_alloc), "catches": catches, "jfr_samples": samples,
            "wasp_bytes": sum(w_alloc.values()), "jfr_bytes": sum(j_alloc.values()),
            "locks": compare(w_blocked, j_blocked), "blocked_samples": blocked_samples,
            "jfr_events": events, "wasp_blocked_s": sum(w_blocked.values()),
            "jfr_blocked_s": sum(j_blocked.values())}


def run_program(prog, opts, jdk, settings, workdir, log):
    java = jdk.java
    inputs = prog.prepare(os.path.join(jdk.home, "bin", "javac"))
    size = prog.sizes[opts.size]
    res = {"plain": [], "runs": [], "failures": []}
    last = None

    def plain():
        b = one_run(prog, "plain", java, inputs, size, settings, workdir)
        log("  %-10s plain          rc %d wall %6.1f s cpu %6.1f s" % (prog.name, b.rc, b.wall, b.cpu))
        if b.rc != 0 or b.digest is None:
            res["failures"].append("%s plain: rc %d, digest %s: %s" % (prog.name, b.rc, b.digest, b.out[-300:]))
        res["plain"].append({"wall": b.wall, "cpu": b.cpu})
        for row in res["runs"]:
            if row.get("after") is None:
                row["after"] = len(res["plain"]) - 1
        measure.cleanup(b)
        return b

    last = plain()
    for rep in range(opts.repetitions):
        order = AGENT_WAYS[rep % 3:] + AGENT_WAYS[:rep % 3]
        for way in order:
            r = one_run(prog, way, java, inputs, size, settings, workdir)
            row = {"way": way, "rep": rep, "wall": r.wall, "cpu": r.cpu, "before": len(res["plain"]) - 1,
                   "after": None}
            why = judge(r, last, way)
            if why is None and way == "both":
                try:
                    row.update(side_by_side(r, jdk))
                except (H.Fail, ValueError, KeyError) as e:
                    why = "reading the profiles: %s" % e
            if why:
                row["failed"] = why
                res["failures"].append("%s %s r%d: %s" % (prog.name, way, rep, why))
            log("  %-10s %-5s r%d       rc %d wall %6.1f s cpu %6.1f s%s%s"
                % (prog.name, way, rep, r.rc, r.wall, r.cpu, brief(row), ("  FAILED: " + why[:200]) if why else ""))
            res["runs"].append(row)
            if not opts.keep:
                measure.cleanup(r)
        last = plain()
    return res


def brief(row):
    if "alloc" not in row:
        return ""
    a, k = row["alloc"], row["locks"]
    return ("  alloc top-%d overlap %d, apart <= %s; blocked wasp %.2f s JFR %.2f s"
            % (TOP, a["overlap"], a["max_apart"], row["wasp_blocked_s"], row["jfr_blocked_s"]))


def ratios(res, way):
    """Per run of way, (cpu, wall) over the mean of the plain runs either side."""
    out = []
    for r in res["runs"]:
        if r["way"] != way or "failed" in r:
            continue
        base = [res["plain"][i] for i in (r["before"], r["after"]) if i is not None]
        out.append((r["cpu"] / (sum(b["cpu"] for b in base) / len(base)),
                    r["wall"] / (sum(b["wall"] for b in base) / len(base))))
    return out


def cost_table(results, names):
    lines = ["| program | plain CPU / wall | wasp CPU | wasp wall | JFR CPU | JFR wall | both CPU | both wall |",
             "|---|---|---|---|---|---|---|---|"]
    for n in names:
        res = results[n]
        cells = ["%s" % n, "%.1f / %.1f s" % (corpus.median([p["cpu"] for p in res["plain"]]),
                                              corpus.median([p["wall"] for p in res["plain"]]))]
        for way in AGENT_WAYS:
            rs = ratios(res, way)
            for i in (0, 1):
                xs = [x[i] for x in rs]
                cells.append("%.2fx (%.2f-%.2f)" % (corpus.median(xs), min(xs), max(xs)) if xs else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def short(name):
    return name.rsplit(".", 1)[-1] if "[" not in name else name.split(".")[-1]


def top_cell(c, side):
    i = 0 if side == "wasp" else 1
    return ", ".join("%s %.0f%%" % (short(k), 100 * c["shares"][k][i]) for k in c[side + "_top"])


def alloc_table(results, names):
    lines = ["| program | rep | wasp catches / JFR samples | GB wasp / JFR | wasp top %d (share of bytes) | JFR top %d "
             "| overlap | places apart (most) | worst share gap |" % (TOP, TOP), "|---|---|---|---|---|---|---|---|---|"]
    for n in names:
        for r in results[n]["runs"]:
            if r["way"] != "both" or "alloc" not in r:
                continue
            a = r["alloc"]
            lines.append("| %s | %d | %.0f / %d | %.1f / %.1f | %s | %s | %d/%d | %s | %.0f points |"
                         % (n, r["rep"], r["catches"], r["jfr_samples"], r["wasp_bytes"] / 1e9, r["jfr_bytes"] / 1e9,
                            top_cell(a, "wasp"), top_cell(a, "jfr"),
                            a["overlap"], TOP, "-" if a["max_apart"] is None else a["max_apart"],
                            a["worst_points"]))
    return "\n".join(lines) + self_agreement(results, names, "alloc")


def self_agreement(results, names, what):
    """How far each side's own top TOP moved between repetitions (the
    sampling noise the comparison above stands on)."""
    cells = []
    for n in names:
        tops = [r[what] for r in results[n]["runs"] if r["way"] == "both" and what in r
                and r[what]["wasp_top"] and r[what]["jfr_top"]]
        if len(tops) < 2:
            continue
        pairs = [(a, b) for i, a in enumerate(tops) for b in tops[i + 1:]]
        cells.append("%s wasp %s, JFR %s" % (n, "/".join(str(len(set(a["wasp_top"]) & set(b["wasp_top"])))
                                                        for a, b in pairs),
                                             "/".join(str(len(set(a["jfr_top"]) & set(b["jfr_top"])))
                                                      for a, b in pairs)))
    return ("\n\nEach side's top %d against its own in another repetition (overlap of %d): %s."
            % (TOP, TOP, "; ".join(cells))) if cells else ""


def locks_table(results, names, least):
    lines = ["| program | rep | wasp blocked s (samples) / JFR s (events) | wasp top (share of blocked time) "
             "| JFR top | same order | worst share gap |", "|---|---|---|---|---|---|---|"]
    quiet = []
    for n in names:
        for r in results[n]["runs"]:
            if r["way"] != "both" or "locks" not in r:
                continue
            if max(r["wasp_blocked_s"], r["jfr_blocked_s"]) < least:
                quiet.append("%s r%d (wasp %.3f s, JFR %.3f s in %d events)"
                             % (n, r["rep"], r["wasp_blocked_s"], r["jfr_blocked_s"], r["jfr_events"]))
                continue
            k = r["locks"]
            lines.append("| %s | %d | %.2f (%.0f) / %.2f (%d) | %s | %s | %s | %.0f points |"
                         % (n, r["rep"], r["wasp_blocked_s"], r["blocked_samples"], r["jfr_blocked_s"],
                            r["jfr_events"], top_cell(k, "wasp"), top_cell(k, "jfr"),
                            "yes" if k["same_order"] else "no", k["worst_points"]))
    text = "\n".join(lines)
    if quiet:
        text += "\n\nUnder %.2f s blocked on both sides (no contention to rank): %s." % (least, "; ".join(quiet))
    return text + self_agreement(results, names, "locks")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-p", "--programs", default="", help="comma-separated (default: all: %s)"
                    % ",".join(p.name for p in programs.PROGRAMS))
    ap.add_argument("-r", "--repetitions", type=int, default=2)
    ap.add_argument("--size", choices=("short", "full"), default="short")
    ap.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    ap.add_argument("--wasp", default=os.path.join(programs.ROOT, "build"),
                    help="the build directory whose bin/wasp (and lib/libwasp.so) to run")
    ap.add_argument("--min-blocked", type=float, default=0.05, metavar="SECONDS",
                    help="compare lock rankings only where a side saw this much blocked time")
    ap.add_argument("--out", default=os.path.join(programs.ROOT, "build", "jfr_corpus.md"),
                    help="markdown output (- for none); raw results beside it as .json")
    ap.add_argument("--keep", action="store_true", help="keep every run's directory")
    opts = ap.parse_args()
    names = [n for n in opts.programs.split(",") if n] or [p.name for p in programs.PROGRAMS]
    bad = [n for n in names if n not in programs.BY_NAME]
    if bad:
        ap.error("--programs: unknown %s" % ", ".join(bad))
    measure.WASP = os.path.join(os.path.abspath(opts.wasp), "bin", "wasp")
    if not os.access(measure.WASP, os.X_OK):
        sys.exit("jfr_corpus: %s missing" % measure.WASP)
    jdk = jfr_file.jdk_at(opts.jdk)
    workdir = tempfile.mkdtemp(prefix="wasp-jfr-corpus-")
    settings = jfr_file.settings(H, jdk, os.path.join(workdir, "locks-0ms.jfc"), THRESHOLDS)
    load_before, started, t0 = corpus.uptime(), datetime.datetime.now(datetime.timezone.utc), time.monotonic()
    results, failures = {}, []
    for n in names:
        try:
            results[n] = run_program(programs.BY_NAME[n], opts, jdk, settings, workdir,
                                     lambda s: print(s, flush=True))
            failures += results[n]["failures"]
        except programs.Missing as e:
            print("jfr_corpus: leaving out %s: %s" % (n, e))
    ran = [n for n in names if n in results]
    if not opts.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    text = ["# wasp beside JFR on the corpus", "",
            "`%s`" % " ".join(["python3", "bench/jfr_corpus.py"] + sys.argv[1:]), "",
            "%s UTC, %.0f min, %d CPUs, JDK %s, size %s, %d repetitions, wasp %s; load average (1, 5, 15 min) "
            "%s before, %s after." % (started.strftime("%Y-%m-%d %H:%M"), (time.monotonic() - t0) / 60,
                                      os.cpu_count(), opts.jdk, opts.size, opts.repetitions, measure.WASP,
                                      load_before, corpus.uptime()),
            "", "## Cost (ratios to the mean of the plain runs either side; median (min-max))", "",
            cost_table(results, ran), "", "## Allocation: top %d classes by bytes, from the runs with both" % TOP,
            "", alloc_table(results, ran), "", "## Blocked time by monitor / blocker class, from the runs with both",
            "", locks_table(results, ran, opts.min_blocked), ""]
    if failures:
        text += ["Failed runs:", ""] + ["- " + f for f in failures] + [""]
    out = "\n".join(text)
    print("\n" + out)
    if opts.out != "-":
        with open(opts.out, "w") as f:
            f.write(out)
        with open(os.path.splitext(opts.out)[0] + ".json", "w") as f:
            json.dump({"results": results, "failures": failures}, f, indent=1)
        print("written to %s" % opts.out)
    return 1 if failures else (0 if ran else 2)


if __name__ == "__main__":
    sys.exit(main())
