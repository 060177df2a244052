"""Integration tests of the flame-graph report formats (docs/formats.md):
`wasp report --format collapsed` and `--format pprof` on a real profile of
the planted dead-store workload.

Not run on its own: tests/integration/run.py imports this module and calls

    formats.make_tests(sys.modules[__name__])

which returns [(name, thunk(ctx, jdk))], run once per JDK. `h` is run.py's
module; the helpers used from it: Fail, check, skip, tail, run, expectation,
analysis, enough_data, DEFAULT_SIZE, PAGE_SCALE, PAGE_TEST_BUDGET, WASP, CLASSES
and Ctx (path, report).

formats.pprof-totals: with all three pair analyses, objects and alloc in
one profile, each sample type's total in `go tool pprof -top` is the JSON
report's total of its analysis and side, and so is the default type's.

pprof is read back by `go tool pprof` (Debian golang-go): the test skips
when `go` is missing outside CI and fails when it is missing in CI (the CI
image installs it, scripts/install-deps.sh).
"""

import math
import os
import pty
import re
import shutil
import subprocess
import tempfile

H = None  # run.py's module, set by make_tests

WORKLOAD = "DeadStoreEuler"


def make_tests(h):
    """[(name, thunk(ctx, jdk))]; h is run.py's module (sys.modules[__name__])."""
    global H
    H = h
    return [
        ("formats.collapsed", t_collapsed),
        ("formats.pprof", t_pprof),
        ("formats.pprof-totals", t_pprof_totals),
        ("formats.pprof-terminal", t_pprof_terminal),
    ]


def profile(ctx, jdk, events="deadstore"):
    """A profile of the planted dead-store workload; its path."""
    out = ctx.path("formats-%s.wprof" % WORKLOAD)
    # Whichever engine proves itself; the page engine needs the tests' budget
    # and the longer run (run.py's with_mechanism) to classify enough pairs.
    size = H.DEFAULT_SIZE[WORKLOAD] * H.PAGE_SCALE
    cmd = [H.WASP, "run", "-e", events, "--watch-budget", H.PAGE_TEST_BUDGET, "-o", out,
           "-q", "--", jdk.java, "-cp", H.CLASSES, WORKLOAD, str(size)]
    r = H.run(cmd)
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    H.check(os.path.isfile(out) and os.path.getsize(out) > 0, "no profile written at %s" % out)
    rep = ctx.report(out)
    a = H.analysis(rep, "deadstore")
    H.enough_data(rep, a, "deadstore")
    H.check(len(a["pairs"]) > 0, "no deadstore pairs in the JSON report")
    return out, a


def report(fmt, prof, *extra):
    r = H.run([H.WASP, "report", "--format", fmt] + list(extra) + [prof])
    H.check(r.rc == 0, "wasp report --format %s exited %d: %s" % (fmt, r.rc, H.tail(r.err)))
    return r.out


def llround(x):
    """C's llround for the non-negative values here (Python's round() rounds half to even)."""
    return int(math.floor(x + 0.5))


def collapsed_series(text):
    """{(analysis, side): (sum of the values, lines)} of collapsed lines."""
    series = {}
    for l in text.splitlines():
        m = re.match(r"^(\w+);\[(\w+)\];(.*) (\d+)$", l)
        H.check(m, "not a collapsed line: %r" % l)
        key = (m.group(1), m.group(2))
        total, lines = series.get(key, (0, 0))
        series[key] = (total + int(m.group(4)), lines + 1)
    return series


def t_collapsed(ctx, jdk):
    """By default the watched side alone (a true total: a flame graph adds
    every line); --side trapped the other; --side all both; a bad --side
    named with its accepted values."""
    prof, a = profile(ctx, jdk)
    pairs = a["pairs"]  # all of them: --top is unset in JSON
    total = 0.0
    for p in pairs:  # the JSON's order, the order the lines are summed in
        total += p["bytes"]
    for extra, sides in (([], ["watch"]), (["--side", "trapped"], ["trap"]),
                         (["--side", "all"], ["watch", "trap"])):
        series = collapsed_series(report("collapsed", prof, *extra))
        H.check(set(series) == {("deadstore", s) for s in sides},
                "collapsed %s: series %s, expected deadstore %s"
                % (" ".join(extra) or "(default)", sorted(series), " and ".join(sides)))
        for side in sides:
            got, lines = series[("deadstore", side)]
            H.check(lines == len(pairs), "%d %s lines for %d pairs" % (lines, side, len(pairs)))
            H.check(got == llround(total), "%s lines sum to %d bytes, the JSON pairs to %.1f"
                    % (side, got, total))
    r = H.run([H.WASP, "report", "--format", "collapsed", "--side", "both", prof])
    H.check(r.rc == 2 and "--side both" in r.err and "watched, trapped or all" in r.err,
            "--side both: rc %d %r" % (r.rc, H.tail(r.err)))
    return "%d pairs, %d bytes per side" % (len(pairs), llround(total))


def go_env():
    """Environment for `go` with its caches in a temporary directory; None
    (the test skips) when go is missing outside CI."""
    go = shutil.which("go")
    if not go:
        if os.environ.get("CI"):
            raise H.Fail("go is not installed (golang-go, scripts/install-deps.sh) and CI is set")
        H.skip("go is not installed (golang-go)")
    home = tempfile.mkdtemp(prefix="wasp-go-")
    env = dict(os.environ, HOME=home, GOCACHE=os.path.join(home, "cache"), GOFLAGS="",
               GOTOOLCHAIN="local", GOPROXY="off")
    return go, env, home


def pprof(go, env, *args):
    r = H.run([go, "tool", "pprof", "-symbolize=none"] + list(args), env=env)
    H.check(r.rc == 0, "go tool pprof %s exited %d: %s" % (" ".join(args), r.rc, H.tail(r.err)))
    return r.out


def top_row(out):
    """The first row of `-top` after its column header."""
    rows = out.splitlines()
    for i, l in enumerate(rows):
        if re.match(r"^\s*flat\s+flat%", l):
            H.check(i + 1 < len(rows), "pprof -top printed no rows: %s" % H.tail(out))
            return rows[i + 1]
    raise H.Fail("pprof -top printed no table: %s" % H.tail(out))


def t_pprof(ctx, jdk):
    go, env, home = go_env()
    try:
        e = H.expectation(WORKLOAD)
        prof, _ = profile(ctx, jdk)
        out = ctx.path("formats.pb.gz")
        report("pprof", prof, "-o", out)
        with open(out, "rb") as f:
            H.check(f.read(2) == b"\x1f\x8b", "%s is not gzip" % out)
        # The planted method has the most flat dead bytes: on both sides.
        row = top_row(pprof(go, env, "-top", out))
        H.check(e["method"] in row, "pprof -top's first row is %r, expected %s" % (row.strip(), e["method"]))
        # Its watched side (the default type too), by line: the planted line.
        row = top_row(pprof(go, env, "-top", "-lines", "-sample_index=deadstore_bytes_watched",
                            out))
        want = "%s.java:%d" % (WORKLOAD, e["line"])
        H.check(e["method"] in row and want in row,
                "pprof -top -lines -tagfocus=side=watch: first row %r, expected %s %s"
                % (row.strip(), e["method"], want))
        # The raw dump round-trips the sample types and the labels.
        raw = pprof(go, env, "-raw", out)
        H.check(re.search(r"^\s*deadstore_bytes_watched/bytes\[dflt\]\s+deadstore_samples_watched/count"
                          r"\s+deadstore_bytes_trapped/bytes\s+deadstore_samples_trapped/count\s*$",
                          raw, re.M),
                "pprof -raw shows no sample types deadstore_{bytes,samples}_{watched,trapped}: %s"
                % H.tail(raw, 12))
        for side in ("watch", "trap"):
            H.check(re.search(r"analysis:\[deadstore\]", raw) and re.search(r"side:\[%s\]" % side, raw),
                    "pprof -raw shows no labels analysis:[deadstore] side:[%s]" % side)
        return "top %s" % row.strip()
    finally:
        shutil.rmtree(home, ignore_errors=True)


def json_totals(rep):
    """{sample type: the JSON report's total of that analysis, side and
    measure}, summed in the order the stacks come (the reports' order)."""
    totals = {}
    for name, a in rep["analyses"].items():
        for measure, key in (("bytes", "bytes"), ("samples", "count")):
            t = 0.0
            for p in a["pairs"]:
                t += p[key]
            for side in ("watched", "trapped"):  # a pair weighs the same on both sides
                totals["%s_%s_%s" % (name, measure, side)] = t
    if isinstance(rep.get("objects"), dict):
        site_total = access_total = 0.0
        for site in rep["objects"]["sites"]:
            site_total += site["samples"]
            for acc in site["accesses"]:
                access_total += acc["samples"]
        totals["objects_samples_allocation"] = site_total
        totals["objects_samples_access"] = access_total
    if isinstance(rep.get("alloc"), dict):
        t = 0.0
        for site in rep["alloc"]["sites"]:
            t += site["samples"]
        totals["alloc_samples_allocation"] = t
    return totals


def pprof_total(out):
    """The type and the total `pprof -top` prints ("Type: X", "... of 1830B total")."""
    t = re.search(r"^Type: (\S+)$", out, re.M)
    m = re.search(r"of (-?[\d.]+)(B?) total", out)
    H.check(t and m, "pprof -top printed no type or total: %s" % H.tail(out, 6))
    return t.group(1), float(m.group(1))


def t_pprof_totals(ctx, jdk):
    """A profile of the three pair analyses, objects and alloc: each sample
    type's total in `go tool pprof -top` equals the JSON report's total of its
    analysis, side and measure (rounded to an integer: wasp rounds on the
    running sum, so no rounding drift), and the default type's is one of them
    (the first analysis's watched bytes), not the sum of sides and analyses
    pprof printed before."""
    go, env, home = go_env()
    try:
        prof, _ = profile(ctx, jdk, "deadstore,silentstore,silentload,objects,alloc")
        rep = ctx.report(prof)
        want = json_totals(rep)
        out = ctx.path("totals.pb.gz")
        report("pprof", prof, "-o", out)
        raw = pprof(go, env, "-raw", out)
        types = re.search(r"^\s*(\w+/\w+(\[dflt\])?(\s+\w+/\w+(\[dflt\])?)*)\s*$", raw, re.M)
        H.check(types, "pprof -raw lists no sample types: %s" % H.tail(raw, 12))
        names = [t.split("/")[0] for t in types.group(1).split()]
        # Every series with evidence has its sample types; one without any
        # has none (a series is made by its stacks). Where debug registers do
        # not trap the pair analyses' page windows can spend the watch budget
        # alloc's TLAB watches need, and alloc catch nothing (docs/corpus.md,
        # Finding 15): its type is then absent, its JSON total 0.
        evidenced = {k for k, v in want.items() if v > 0}
        H.check(evidenced <= set(names) <= set(want), "sample types %s, expected %s (and no "
                "other of %s)" % (sorted(names), sorted(evidenced), sorted(want)))
        H.check(types.group(1).split()[0] == "deadstore_bytes_watched/bytes[dflt]",
                "the default sample type is %s, not deadstore_bytes_watched"
                % types.group(1).split()[0])
        for name in names:
            got_type, got = pprof_total(pprof(go, env, "-top", "-unit=B", "-sample_index=" + name,
                                              out))
            H.check(got_type == name, "-sample_index=%s showed %s" % (name, got_type))
            H.check(got == llround(want[name]), "%s: pprof's total %s, the JSON's %.3f"
                    % (name, got, want[name]))
        got_type, got = pprof_total(pprof(go, env, "-top", "-unit=B", out))
        H.check(got_type == "deadstore_bytes_watched" and
                got == llround(want["deadstore_bytes_watched"]),
                "default: pprof shows %s, total %s; the JSON's dead bytes %.3f"
                % (got_type, got, want["deadstore_bytes_watched"]))
        return "%d sample types; default %s = %d B" % (len(names), got_type, got)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def t_pprof_terminal(ctx, jdk):
    """Binary to a terminal is refused before any file is read or program run."""
    for cmd in ([H.WASP, "report", "--format", "pprof", "/nonexistent.wprof"],
                [H.WASP, "run", "--format", "pprof", "--", jdk.java, "-version"]):
        master, slave = pty.openpty()
        try:
            p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=slave,
                               stderr=subprocess.PIPE, timeout=60)
        finally:
            os.close(slave)
            os.close(master)
        err = p.stderr.decode(errors="replace")
        H.check(p.returncode == 2, "wasp %s --format pprof to a terminal exited %d: %s"
                % (cmd[1], p.returncode, H.tail(err)))
        H.check("binary" in err and "-o" in err, "wasp %s gave no reason: %s" % (cmd[1], H.tail(err)))
    return "refused by report and run"
