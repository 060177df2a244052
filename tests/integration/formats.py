"""Integration tests of the flame-graph report formats (docs/formats.md):
`wasp report --format collapsed` and `--format pprof` on a real profile of
the planted dead-store workload.

Not run on its own: tests/integration/run.py imports this module and calls

    formats.make_tests(sys.modules[__name__])

which returns [(name, thunk(ctx, jdk))], run once per JDK. `h` is run.py's
module; the helpers used from it: Fail, check, skip, tail, run, expectation,
analysis, enough_data, DEFAULT_SIZE, PAGE_SCALE, PAGE_TEST_BUDGET, WASP, CLASSES
and Ctx (path, report).

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
        ("formats.pprof-terminal", t_pprof_terminal),
    ]


def profile(ctx, jdk):
    """A dead-store profile of the planted workload; its path."""
    out = ctx.path("formats-%s.wprof" % WORKLOAD)
    # Whichever engine proves itself; the page engine needs the tests' budget
    # and the longer run (run.py's with_mechanism) to classify enough pairs.
    size = H.DEFAULT_SIZE[WORKLOAD] * H.PAGE_SCALE
    cmd = [H.WASP, "run", "-e", "deadstore", "--watch-budget", H.PAGE_TEST_BUDGET, "-o", out,
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


def t_collapsed(ctx, jdk):
    prof, a = profile(ctx, jdk)
    pairs = a["pairs"]  # all of them: --top is unset in JSON
    lines = report("collapsed", prof).splitlines()
    sums, counts = {}, {}
    for l in lines:
        m = re.match(r"^(\w+);\[(\w+)\];(.*) (\d+)$", l)
        H.check(m, "not a collapsed line: %r" % l)
        key = (m.group(1), m.group(2))
        sums[key] = sums.get(key, 0) + int(m.group(4))
        counts[key] = counts.get(key, 0) + 1
    H.check(set(sums) == {("deadstore", "watch"), ("deadstore", "trap")},
            "collapsed series %s, expected deadstore watch and trap" % sorted(sums))
    total = 0.0
    for p in pairs:  # the JSON's order, the order the lines are summed in
        total += p["bytes"]
    for side in ("watch", "trap"):
        H.check(counts[("deadstore", side)] == len(pairs), "%d %s lines for %d pairs"
                % (counts[("deadstore", side)], side, len(pairs)))
        H.check(sums[("deadstore", side)] == llround(total), "%s lines sum to %d bytes, the JSON "
                "pairs to %.1f" % (side, sums[("deadstore", side)], total))
    return "%d lines, %d bytes per side" % (len(lines), llround(total))


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
        row = top_row(pprof(go, env, "-top", "-sample_index=bytes", out))
        H.check(e["method"] in row, "pprof -top's first row is %r, expected %s" % (row.strip(), e["method"]))
        # Its watch side, by line: the planted line.
        row = top_row(pprof(go, env, "-top", "-lines", "-sample_index=bytes", "-tagfocus=side=watch",
                            out))
        want = "%s.java:%d" % (WORKLOAD, e["line"])
        H.check(e["method"] in row and want in row,
                "pprof -top -lines -tagfocus=side=watch: first row %r, expected %s %s"
                % (row.strip(), e["method"], want))
        # The raw dump round-trips the sample types and the labels.
        raw = pprof(go, env, "-raw", out)
        H.check(re.search(r"^\s*bytes/bytes(\[dflt\])?\s+samples/count", raw, re.M),
                "pprof -raw shows no sample types bytes/bytes samples/count: %s" % H.tail(raw, 12))
        for side in ("watch", "trap"):
            H.check(re.search(r"analysis:\[deadstore\]", raw) and re.search(r"side:\[%s\]" % side, raw),
                    "pprof -raw shows no labels analysis:[deadstore] side:[%s]" % side)
        return "top %s" % row.strip()
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
