#!/usr/bin/env python3
"""A corpus program's exact allocation census beside wasp's and JFR's byte
shares, class by class (issue 41; docs/alloc.md, "Beside JFR on real
programs"): who is right where the two profilers disagree.

    python3 bench/alloc_census.py -p batik,jfreechart -r 3
    python3 bench/alloc_census.py -p batik --jdk /usr/lib/jvm/temurin-25-jdk-amd64 --show 'char[]'

Per program (bench/corpus/programs.py, its short size unless --size):

  census  bench/AllocCensus.java under Epsilon with -XX:-UseTLAB: every object
          the program allocated, by class, with its bytes (no TLAB, so no
          filler arrays among them); kept in build/census/ and reused
  wasp    R runs of `wasp run -q -e alloc` alone (the estimated bytes by class)
  jfr     R runs with JFR's default recording alone (jdk.ObjectAllocationSample
          weights summed by class), interleaved with wasp's; --no-jfr leaves
          them out

Prints one table a program: the census's top classes by bytes, and every
class in a run's top 5, with each run's share of the bytes; under it, each
run's top-5 overlap with the census's top 5 and the overlap of the byte
shares (the sum over classes of the smaller share, Inoue and Nakatani's
Section 7.2 metric). wasp's share of a class's bytes outside TLABs is shown
in brackets. Every run must print the census run's digest.
"""

import argparse
import collections
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import alloc_overlap  # noqa: E402  (histogram class names as wasp spells them)
import jfr_corpus  # noqa: E402  (the corpus's programs, runs and JFR reading)

measure, programs, jfr_file = jfr_corpus.measure, jfr_corpus.programs, jfr_corpus.jfr_file
TOP = 5
CENSUS_DIR = os.path.join(programs.ROOT, "build", "census")
BENCH_CLASSES = os.path.join(programs.ROOT, "build", "bench")


def census_command(prog, java, inputs, size, out, heap):
    """The program's java command with its heap flags replaced by Epsilon's
    without TLABs, and AllocCensus before its main class."""
    cmd = prog.command(java, inputs, size, out)
    rest = [a for a in cmd[1:] if a not in programs.HEAP]
    cp = rest.index("-cp")
    classpath, args = rest[cp + 1], rest[cp + 2:]
    first = next(i for i, a in enumerate(args) if not a.startswith("-"))  # the main class
    return ([java, "-XX:+UnlockExperimentalVMOptions", "-XX:+UseEpsilonGC", "-XX:-UseTLAB",
             "-Xmx%s" % heap, "-Dcensus.out=%s" % os.path.join(out, "census.txt"),
             "-cp", classpath + ":" + BENCH_CLASSES] + args[:first] + ["AllocCensus"] + args[first:])


def census_bytes(path):
    """{class: bytes} of a GC.class_histogram, names as wasp spells them."""
    by = collections.Counter()
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*\d+:\s+\d+\s+(\d+)\s+(\S+)", line)
            if m:
                by[jfr_corpus.normalize(alloc_overlap.java_name(m.group(2)))] += int(m.group(1))
    return by


def take_census(prog, jdk, inputs, size, heap, log):
    """The census of prog at size: (path, digest), from build/census/ when taken before."""
    os.makedirs(CENSUS_DIR, exist_ok=True)
    tag = "%s-%s-jdk%s" % (prog.name, size, re.sub(r"\D", "", os.path.basename(jdk.home))[:2])
    path = os.path.join(CENSUS_DIR, tag + ".txt")
    if os.path.exists(path) and os.path.exists(path + ".digest"):
        with open(path + ".digest") as f:
            return path, f.read().strip()
    src = os.path.join(HERE, "AllocCensus.java")
    if not os.path.exists(os.path.join(BENCH_CLASSES, "AllocCensus.class")):
        subprocess.run([os.path.join(jdk.home, "bin", "javac"), "--release", "17", "-d", BENCH_CLASSES, src],
                       check=True)
    out = tempfile.mkdtemp(prefix="census-%s-" % prog.name)
    cmd = census_command(prog, jdk.java, inputs, size, out, heap)
    r = subprocess.run(cmd, cwd=out, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    digest = prog.digest(r.stdout, out)
    if not os.path.exists(os.path.join(out, "census.txt")) or digest is None:
        raise RuntimeError("census of %s failed (rc %d): %s" % (prog.name, r.returncode, r.stdout[-500:]))
    os.replace(os.path.join(out, "census.txt"), path)
    with open(path + ".digest", "w") as f:
        f.write(digest + "\n")
    log("  census of %s: %s" % (prog.name, path))
    return path, digest


def wasp_run_side(r):
    """wasp's {class: bytes}, {class: outside share} and counters of run r."""
    rc, text, err = measure.report(r.profile)
    if rc != 0:
        raise RuntimeError("wasp report exited %d: %s" % (rc, err[-300:]))
    rep = json.loads(text)
    a = rep.get("alloc") or {}
    by, outside = collections.Counter(), collections.Counter()
    for c in a.get("classes", []):
        name = jfr_corpus.normalize(c["class"])
        by[name] += c.get("bytes") or 0
        outside[name] += (c.get("bytes") or 0) * (c.get("outside_tlab") or 0)
    counters = dict((k, v) for k, v in (rep.get("counters") or {}).items() if k.startswith("alloc."))
    return {"bytes": by, "outside": outside, "catches": a.get("catches") or 0, "counters": counters,
            "cpu_seconds": (rep.get("meta") or {}).get("cpu_seconds")}


def shares(by):
    total = sum(by.values()) or 1
    return dict((k, v / total) for k, v in by.items())


def overlap(a, b):
    return sum(min(a.get(k, 0), b.get(k, 0)) for k in set(a) | set(b))


def run_all(prog, opts, jdk, log):
    inputs = prog.prepare(os.path.join(jdk.home, "bin", "javac"))
    size = prog.sizes[opts.size]
    path, digest = take_census(prog, jdk, inputs, size, opts.census_heap, log)
    res = {"census": census_bytes(path), "census_path": path, "runs": []}
    workdir = tempfile.mkdtemp(prefix="wasp-alloc-census-")
    ways = ["wasp"] + ([] if opts.no_jfr else ["jfr"])
    for rep in range(opts.repetitions):
        for way in ways[rep % len(ways):] + ways[:rep % len(ways)]:
            if way == "wasp":
                r = measure.run_program(prog, jdk.java, inputs, size, watch="auto", events="alloc",
                                        workdir=workdir)
            else:
                r = measure.run_program(jfr_corpus.Recorded(prog, "default"), jdk.java, inputs, size,
                                        workdir=workdir)
            if r.rc != 0 or r.digest != digest:
                raise RuntimeError("%s %s r%d: rc %d, digest %s (census %s): %s"
                                   % (prog.name, way, rep, r.rc, r.digest, digest, r.out[-300:]))
            if way == "wasp":
                side = wasp_run_side(r)
            else:
                j = jfr_corpus.jfr_side(r, jdk)
                side = {"bytes": collections.Counter(j["alloc"]), "catches": j["n_alloc"]}
            side.update(way=way, rep=rep, cpu=r.cpu, wall=r.wall)
            res["runs"].append(side)
            log("  %-10s %-4s r%d  %.2f GB in %d samples, cpu %.1f s"
                % (prog.name, way, rep, sum(side["bytes"].values()) / 1e9, side["catches"], r.cpu))
            if not opts.keep:
                measure.cleanup(r)
    return res


def table(name, res, show):
    census = shares(res["census"])
    top = sorted(census, key=lambda k: -census[k])
    rows = top[:10] + [k for r in res["runs"] for k in sorted(r["bytes"], key=lambda k: -r["bytes"][k])[:TOP]]
    rows += [k for k in show if k not in rows]
    rows = list(dict.fromkeys(rows))
    heads = ["%s r%d" % (r["way"], r["rep"]) for r in res["runs"]]
    lines = ["### %s (census: %.3f GB, %s)" % (name, sum(res["census"].values()) / 1e9, res["census_path"]), "",
             "| class | census | " + " | ".join(heads) + " |", "|---" * (2 + len(heads)) + "|"]
    for k in rows:
        cells = []
        for r in res["runs"]:
            s = shares(r["bytes"]).get(k, 0)
            out = r.get("outside", {}).get(k, 0) / (r["bytes"].get(k) or 1)
            cells.append("%.1f%%%s" % (100 * s, " (%.0f%% out)" % (100 * out) if out > 0.005 else ""))
        lines.append("| %s | %.1f%% | %s |" % (k, 100 * census.get(k, 0), " | ".join(cells)))
    lines.append("| top-%d overlap with the census | | %s |" % (TOP, " | ".join(
        "%d" % len(set(top[:TOP]) & set(sorted(r["bytes"], key=lambda k: -r["bytes"][k])[:TOP]))
        for r in res["runs"])))
    lines.append("| overlap of byte shares | | %s |" % " | ".join(
        "%.1f%%" % (100 * overlap(census, shares(r["bytes"]))) for r in res["runs"]))
    lines.append("| GB (samples) | %.3f | %s |" % (sum(res["census"].values()) / 1e9, " | ".join(
        "%.3f (%d)" % (sum(r["bytes"].values()) / 1e9, r["catches"]) for r in res["runs"])))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-p", "--programs", required=True, help="comma-separated corpus programs")
    ap.add_argument("-r", "--repetitions", type=int, default=2)
    ap.add_argument("--size", choices=("short", "full"), default="short")
    ap.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    ap.add_argument("--wasp", default=os.path.join(programs.ROOT, "build"),
                    help="the build directory whose bin/wasp to run")
    ap.add_argument("--census-heap", default="6g", help="Epsilon's -Xmx for the census (it frees nothing)")
    ap.add_argument("--no-jfr", action="store_true", help="wasp's runs only")
    ap.add_argument("--show", default="", help="comma-separated classes to show whatever their rank")
    ap.add_argument("--out", default="-", help="also write the markdown here, the raw results beside it (.json)")
    ap.add_argument("--keep", action="store_true", help="keep every run's directory")
    opts = ap.parse_args()
    names = [n for n in opts.programs.split(",") if n]
    bad = [n for n in names if n not in programs.BY_NAME]
    if bad:
        ap.error("--programs: unknown %s (known: %s)" % (", ".join(bad), ", ".join(programs.BY_NAME)))
    measure.WASP = os.path.join(os.path.abspath(opts.wasp), "bin", "wasp")
    jdk = jfr_file.jdk_at(opts.jdk)
    started, load = datetime.datetime.now(datetime.timezone.utc), jfr_corpus.corpus.uptime()
    results = dict((n, run_all(programs.BY_NAME[n], opts, jdk, lambda s: print(s, flush=True))) for n in names)
    text = ["`%s`" % " ".join(["python3", "bench/alloc_census.py"] + sys.argv[1:]), "",
            "%s UTC, JDK %s, wasp %s; load average %s before, %s after." % (
                started.strftime("%Y-%m-%d %H:%M"), opts.jdk, measure.WASP, load, jfr_corpus.corpus.uptime()), ""]
    for n in names:
        text += [table(n, results[n], [s for s in opts.show.split(",") if s]), ""]
    print("\n".join(text))
    if opts.out != "-":
        with open(opts.out, "w") as f:
            f.write("\n".join(text))
        with open(os.path.splitext(opts.out)[0] + ".json", "w") as f:
            json.dump(results, f, indent=1, default=dict)
    return 0


if __name__ == "__main__":
    sys.exit(main())
