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

and, after the plain run that ends a repetition, an untimed reference run
(unless --no-reference): JFR alone with jdk.ObjectAllocationSample's throttle
at 1,000,000/s and no stack traces, so that it records (nearly) every TLAB
refill and allocation outside a TLAB: JFR's own method with far less noise,
against which both sides' top 5 are also put.

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
failure, listed under the tables. Each side's top 5 is also put against its
own in the other runs (wasp: its runs alone and beside JFR; JFR likewise):
the spread that a disagreement has to be judged against. Prints markdown; --out writes it and the
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
EVENTS = ["jdk.ObjectAllocationSample", "jdk.JavaMonitorEnter", "jdk.ThreadPark", "jdk.ObjectAllocationOutsideTLAB"]
AGENT_WAYS = ("wasp", "jfr", "both")
# The reference run (--reference): JFR sampling every TLAB refill it can (the
# throttle far above the refill rate), without stack traces; not timed.
# It also records every allocation outside a TLAB (bytes wasp cannot see).
REFERENCE = {("jdk.ObjectAllocationSample", "throttle"): "1000000/s",
             ("jdk.ObjectAllocationSample", "stackTrace"): "false",
             ("jdk.ObjectAllocationOutsideTLAB", "enabled"): "true",
             ("jdk.ObjectAllocationOutsideTLAB", "stackTrace"): "false"}
SETTINGS_OF = {"jfr": "locks", "both": "locks", "ref": "ref"}
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


def top_dict(by, n=30):
    return dict((k, by[k]) for k in ranked(by)[:n])


def wasp_side(r):
    """What wasp's profile of run r says: alloc {class: estimated bytes} and
    catches, blocked {class: seconds} and samples."""
    rc, text, err = measure.report(r.profile)
    if rc != 0:
        raise H.Fail("wasp report exited %d: %s" % (rc, err[-300:]))
    report = json.loads(text)
    a = report.get("alloc") or {}
    b = (report.get("locks") or {}).get("blocked") or {}
    return {"alloc": summed((c["class"], c.get("bytes") or 0) for c in a.get("classes", [])),
            "n_alloc": a.get("catches", 0),
            "blocked": summed((c["class"], c["seconds"]) for c in b.get("classes", [])),
            "n_blocked": b.get("samples", 0)}


def jfr_side(r, jdk):
    """The same of run r's JFR recording: jdk.ObjectAllocationSample weights
    and samples; JavaMonitorEnter and ThreadPark durations and events, parks
    with no blocker or on a Condition left out."""
    alloc, blocked, outside = [], [], []
    for v in jfr_file.events(H, jdk, os.path.join(r.dir, "rec.jfr"), EVENTS):
        if "weight" in v:
            alloc.append((jfr_file.class_name(v.get("objectClass")), float(v["weight"])))
            continue
        if "allocationSize" in v:  # jdk.ObjectAllocationOutsideTLAB (the reference run)
            outside.append((jfr_file.class_name(v.get("objectClass")), float(v["allocationSize"])))
            continue
        cls = jfr_file.class_name(v.get("monitorClass") if "monitorClass" in v else v.get("parkedClass"))
        if cls and not cls.endswith("$ConditionObject"):
            blocked.append((cls, jfr_file.seconds(v["duration"])))
    return {"alloc": summed(alloc), "n_alloc": len(alloc), "blocked": summed(blocked), "n_blocked": len(blocked),
            "outside": summed(outside)}


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
    if way in SETTINGS_OF:
        prog = Recorded(prog, settings[SETTINGS_OF[way]])
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
    if way in SETTINGS_OF and not os.path.exists(os.path.join(r.dir, "rec.jfr")):
        return "no JFR recording written"
    return None


def sides(r, way, jdk):
    """{"wasp": ..., "jfr": ...}: what each profiler of run r says (top 30 kept)."""
    out = {}
    if way in ("wasp", "both"):
        out["wasp"] = wasp_side(r)
    if way in SETTINGS_OF:
        out["jfr"] = jfr_side(r, jdk)
    for side in out.values():
        side["alloc_total"], side["blocked_total"] = sum(side["alloc"].values()), sum(side["blocked"].values())
        side["outside_total"] = sum(side.get("outside", {}).values())
        for k in ("alloc", "blocked", "outside"):
            side[k] = top_dict(side.get(k, {}))
    return out


def run_program(prog, opts, jdk, settings, workdir, log):
    java = jdk.java
    inputs = prog.prepare(os.path.join(jdk.home, "bin", "javac"))
    size = prog.sizes[opts.size]
    res = {"plain": [], "runs": [], "failures": []}

    def run(way, rep, base):
        r = one_run(prog, way, java, inputs, size, settings, workdir)
        row = {"way": way, "rep": rep, "wall": r.wall, "cpu": r.cpu}
        why = judge(r, base, way) if base else None
        if why is None and way != "plain":
            try:
                row["sides"] = sides(r, way, jdk)
            except (H.Fail, ValueError, KeyError) as e:
                why = "reading the profiles: %s" % e
        if base is None and (r.rc != 0 or r.digest is None):
            why = "rc %d, digest %s: %s" % (r.rc, r.digest, r.out[-300:])
        if why:
            row["failed"] = why
            res["failures"].append("%s %s r%d: %s" % (prog.name, way, rep, why))
        log("  %-10s %-5s r%d  rc %d wall %6.1f s cpu %6.1f s%s%s"
            % (prog.name, way, rep, r.rc, r.wall, r.cpu, brief(row), ("  FAILED: " + why[:200]) if why else ""))
        if not opts.keep:
            measure.cleanup(r)
        return r, row

    def plain(rep):
        b, row = run("plain", rep, None)
        res["plain"].append(row)
        for row in res["runs"]:
            if row.get("after") is None:
                row["after"] = len(res["plain"]) - 1
        return b

    last = plain(0)
    for rep in range(opts.repetitions):
        order = AGENT_WAYS[rep % 3:] + AGENT_WAYS[:rep % 3]
        for way in order:
            _, row = run(way, rep, last)
            row.update(before=len(res["plain"]) - 1, after=None)
            res["runs"].append(row)
        last = plain(rep + 1)
        if opts.reference:
            _, row = run("ref", rep, last)
            res["refs"] = res.get("refs", []) + [row]
    return res


def brief(row):
    s = row.get("sides", {})
    return "".join("  %s %.1f GB in %d, blocked %.2f s in %d" % (k, v["alloc_total"] / 1e9, v["n_alloc"],
                                                                 v["blocked_total"], v["n_blocked"])
                   for k, v in sorted(s.items()))


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
    allw = [[x[i] for n in names for x in ratios(results[n], w)] for w in AGENT_WAYS for i in (0, 1)]
    lines.append("| median of all | | " + " | ".join("%.2fx" % corpus.median(xs) if xs else "-" for xs in allw)
                 + " |")
    return "\n".join(lines)


def short(name):
    return name.rsplit(".", 1)[-1]


def top_cell(c, side):
    i = 0 if side == "wasp" else 1
    return ", ".join("%s %.0f%%" % (short(k), 100 * c["shares"][k][i]) for k in c[side + "_top"])


def of_side(res, what, side, ways):
    """(rep, way, {class: value}) of each run of ways with that side."""
    return [(r["rep"], r["way"], r["sides"][side][what]) for r in res["runs"] + res.get("refs", [])
            if r["way"] in ways and side in r.get("sides", {})]


def with_ref(res, rep, by, what):
    """The top-TOP overlap of by with the reference run of the same repetition."""
    ref = [v for rp, _, v in of_side(res, what, "jfr", ("ref",)) if rp == rep]
    return "%d/%d" % (compare(by, ref[0])["overlap"], TOP) if ref else "-"


def reference_cell(res, rep):
    ref = [r["sides"]["jfr"] for r in res.get("refs", []) if r["rep"] == rep and "sides" in r]
    if not ref:
        return "-"
    c = compare(ref[0]["alloc"], {})
    out = ranked(ref[0]["outside"])[:2]
    return "%d samples: %s; outside TLABs %.0f%% of the bytes%s" % (
        ref[0]["n_alloc"], top_cell(c, "wasp"), 100 * ref[0]["outside_total"] / (ref[0]["alloc_total"] or 1),
        " (%s)" % ", ".join("%s %.0f%%" % (short(k), 100 * ref[0]["outside"][k] / (ref[0]["alloc_total"] or 1))
                            for k in out) if out else "")


def alloc_table(results, names):
    lines = ["| program | rep | catches / samples | GB wasp / JFR | wasp top %d (share of bytes) | JFR top %d "
             "| overlap | places apart (most) | worst share gap | wasp / JFR vs reference | reference top %d |"
             % (TOP, TOP, TOP), "|---|---|---|---|---|---|---|---|---|---|---|"]
    for n in names:
        res = results[n]
        for r in res["runs"]:
            if r["way"] != "both" or "sides" not in r:
                continue
            w, j = r["sides"]["wasp"], r["sides"]["jfr"]
            a = compare(w["alloc"], j["alloc"])
            lines.append("| %s | %d | %.0f / %d | %.1f / %.1f | %s | %s | %d/%d | %s | %.0f points | %s / %s | %s |"
                         % (n, r["rep"], w["n_alloc"], j["n_alloc"], w["alloc_total"] / 1e9, j["alloc_total"] / 1e9,
                            top_cell(a, "wasp"), top_cell(a, "jfr"), a["overlap"], TOP,
                            "-" if a["max_apart"] is None else a["max_apart"], a["worst_points"],
                            with_ref(res, r["rep"], w["alloc"], "alloc"), with_ref(res, r["rep"], j["alloc"], "alloc"),
                            reference_cell(res, r["rep"])))
    return "\n".join(lines) + self_agreement(results, names, "alloc")


def self_agreement(results, names, what):
    """How far each side's own top TOP moved from run to run (wasp: its runs
    alone and beside JFR; JFR's: likewise): the sampling noise the
    comparison stands on. Median and range of the pairs' overlaps."""
    cells = []
    for n in names:
        part = []
        for side, ways in (("wasp", ("wasp", "both")), ("jfr", ("jfr", "both"))):
            tops = [ranked(v)[:TOP] for _, _, v in of_side(results[n], what, side, ways) if v]
            ov = [len(set(a) & set(b)) for i, a in enumerate(tops) for b in tops[i + 1:]]
            if ov:
                part.append("%s %s (%d-%d)" % ("wasp" if side == "wasp" else "JFR", corpus.median(ov), min(ov),
                                               max(ov)))
        if part:
            cells.append("%s %s" % (n, ", ".join(part)))
    return ("\n\nEach side's top %d against its own in the other runs (overlap of %d, median (min-max) over "
            "the pairs of runs): %s." % (TOP, TOP, "; ".join(cells))) if cells else ""


def locks_table(results, names, least):
    lines = ["| program | rep | wasp blocked s (samples) / JFR s (events) | wasp top (share of blocked time) "
             "| JFR top | same order | worst share gap |", "|---|---|---|---|---|---|---|"]
    quiet = []
    for n in names:
        for r in results[n]["runs"]:
            if r["way"] != "both" or "sides" not in r:
                continue
            w, j = r["sides"]["wasp"], r["sides"]["jfr"]
            if max(w["blocked_total"], j["blocked_total"]) < least:
                quiet.append("%s r%d (wasp %.3f s, JFR %.3f s in %d events)"
                             % (n, r["rep"], w["blocked_total"], j["blocked_total"], j["n_blocked"]))
                continue
            k = compare(w["blocked"], j["blocked"])
            lines.append("| %s | %d | %.2f (%.0f) / %.2f (%d) | %s | %s | %s | %.0f points |"
                         % (n, r["rep"], w["blocked_total"], w["n_blocked"], j["blocked_total"], j["n_blocked"],
                            top_cell(k, "wasp"), top_cell(k, "jfr"), "yes" if k["same_order"] else "no",
                            k["worst_points"]))
    text = "\n".join(lines)
    if quiet:
        text += "\n\nUnder %.2f s blocked on both sides (no contention to rank): %s." % (least, "; ".join(quiet))
    return text


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
    ap.add_argument("--no-reference", dest="reference", action="store_false",
                    help="leave out the untimed reference run (JFR sampling every TLAB refill) of each repetition")
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
    settings = {"locks": jfr_file.settings(H, jdk, os.path.join(workdir, "locks-0ms.jfc"), THRESHOLDS),
                "ref": jfr_file.settings(H, jdk, os.path.join(workdir, "reference.jfc"), THRESHOLDS, REFERENCE)}
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
            "", locks_table(results, ran, opts.min_blocked), ""] + \
        (["Failed runs:", ""] + ["- %s" % f for f in failures] + [""] if failures else [])
    print("\n" + "\n".join(text))
    if opts.out != "-":
        raw = json.dumps({"results": results, "failures": failures}, indent=1)
        for path, content in ((opts.out, "\n".join(text)), (os.path.splitext(opts.out)[0] + ".json", raw)):
            with open(path, "w") as f:
                f.write(content)
        print("written to %s (raw results beside it)" % opts.out)
    return 1 if failures else (0 if ran else 2)


if __name__ == "__main__":
    sys.exit(main())
