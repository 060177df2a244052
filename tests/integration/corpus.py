"""Smoke tests on real programs (issue 38; the corpus is bench/corpus/,
docs/corpus.md): three corpus programs at their short size, each under
`wasp run -e all` with each watch engine at its default budget, as a user
runs them.

Not run on its own: tests/integration/run.py imports this module and calls

    corpus.make_tests(sys.modules[__name__])

which returns [(name, thunk(ctx, jdk))], run once per JDK. `h` is run.py's
module; used from it: check, skip, tail, engine_verdict, TIMEOUT.

Each test asserts that the profiled program exits as it does without the
agent and produces the same output (the drivers' checksums, or a digest of
the files the program wrote), that no hs_err file is left, that the profile
renders as text and as JSON, that `table_full` drops are under 1% of the
samples, and that no entry whose stack is "[stack unavailable: ...]" ranks
above an entry with a stack among the top 10 of any list (wasp ranks them
last: they sum places the walk could not tell apart). A program whose Debian package is missing SKIPs
(scripts/install-deps.sh installs them).
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "bench", "corpus"))
import measure  # noqa: E402
import programs  # noqa: E402
import repeat  # noqa: E402

H = None  # run.py's module, set by make_tests

# Three programs of different kinds, each 3-8 s at the short size: a parser
# generator (one thread, many small objects), an XSLT processor and a search
# engine (two searching threads, memory-mapped index files).
SMOKE = ("sablecc", "xalan", "lucene")
ENGINES = ("debugreg", "page")
TABLE_FULL_MAX = 0.01  # issue 38: under 1% of samples dropped for want of room

_baselines = {}


# Attach, dump and detach on a JVM running a real program over and over
# (bench/corpus_attach.py is the benchmark of all of them): one program.
ATTACHED = "xalan"
# Each session's profile has at least this many samples: a busy thread
# sampled every 1-8 ms for 2 s or a round of xalan (3-5 s) gives 250-2,700.
MIN_SESSION_SAMPLES = 100


def make_tests(h):
    global H
    H = h
    return ([("corpus.%s.%s" % (p, e), lambda c, j, p=p, e=e: t_smoke(c, j, p, e))
             for p in SMOKE for e in ENGINES] +
            [("corpus.attach.%s" % ATTACHED, lambda c, j: t_attach(c, j, ATTACHED))])


def prepared(prog, jdk):
    try:
        return prog.prepare(os.path.join(jdk.home, "bin", "javac"))
    except programs.Missing as e:
        H.skip(str(e))


def baseline(ctx, jdk, prog, inputs):
    """The program's run without the agent (once per JDK and program)."""
    key = (jdk.home, prog.name)
    if key not in _baselines:
        b = measure.run_program(prog, jdk.java, inputs, prog.sizes["short"], workdir=ctx.tmp,
                                timeout=H.TIMEOUT)
        H.check(b.rc == 0 and b.digest is not None,
                "%s without the agent: exit %d, output digest %s: %s"
                % (prog.name, b.rc, b.digest, H.tail(b.out)))
        _baselines[key] = b
    return _baselines[key]


def t_smoke(ctx, jdk, name, engine):
    why = H.engine_verdict(jdk, engine)
    if why:
        H.skip("the %s engine does not work here: %s" % (engine, why))
    prog = programs.BY_NAME[name]
    inputs = prepared(prog, jdk)
    base = baseline(ctx, jdk, prog, inputs)
    r = measure.run_program(prog, jdk.java, inputs, prog.sizes["short"], watch=engine,
                            events="all", workdir=ctx.tmp, timeout=H.TIMEOUT)
    H.check(not r.timed_out, "timed out after %.0f s" % r.wall)
    H.check(not r.hs_err, "the JVM left %s" % ", ".join(r.hs_err))
    H.check(r.rc == base.rc, "exit code %d under wasp, %d without: %s"
            % (r.rc, base.rc, H.tail(r.out)))
    H.check(r.digest == base.digest, "output changed under wasp: %s, %s without"
            % (r.digest, base.digest))
    H.check(os.path.isfile(r.profile), "no profile written: %s" % H.tail(r.out))
    rc, text, err = measure.report(r.profile, "text")
    H.check(rc == 0 and text.strip(), "wasp report exited %d: %s" % (rc, H.tail(err)))
    rc, text, err = measure.report(r.profile, "json")
    H.check(rc == 0, "wasp report --format json exited %d: %s" % (rc, H.tail(err)))
    m = measure.metrics(json.loads(text), r)
    H.check(m["watch"] == engine, "watch engine %r, asked for %s" % (m["watch"], engine))
    H.check(m["samples"] > 0, "no samples taken")
    H.check(m["table_full_share"] < TABLE_FULL_MAX,
            "%d of %d samples dropped for a full table (%.1f%%, limit %.0f%%)"
            % (m["table_full"], m["samples"], 100 * m["table_full_share"], 100 * TABLE_FULL_MAX))
    H.check(not m["unavailable_top10"], "a stack-unavailable entry among the top 10: %s"
            % "; ".join(m["unavailable_top10"][:3]))
    if not ctx.keep:
        measure.cleanup(r)
    return ("%d samples, %d pairs, %d armed, table_full %d, no_java_frames %d of %d walks; "
            "CPU %.1f s (%.1f s without), same output"
            % (m["samples"], m["pairs"], m["armed"], m["table_full"], m["no_java_frames"],
               m["stack_walks"], r.cpu, base.cpu))


def session_profile(ctx, path, events, what):
    """The session's profile reads, has samples and names its analyses."""
    rep = ctx.report(path)
    samples = rep["counters"].get("samples", 0)
    H.check(samples >= MIN_SESSION_SAMPLES, "%s: %d samples (need >= %d)"
            % (what, samples, MIN_SESSION_SAMPLES))
    named = rep["meta"].get("events", "").split("+")
    for e in events.split(","):
        H.check(e in named, "%s: meta events %r lacks %s" % (what, "+".join(named), e))
    return samples


def t_attach(ctx, jdk, name):
    """Three sessions on one JVM running a real program round after round
    (bench/corpus/Repeat.java): `attach -d 2 -e all`; `attach -e
    objects,replicas`, a dump after a whole round, a detach; `attach -d 2 -e
    fields,locks`. Each profile must read with samples; the
    JVM must end normally when asked, with every round's checksum as the run
    without the agent gave it: the sessions left the program's results as
    they were."""
    prog = programs.BY_NAME[name]
    inputs = prepared(prog, jdk)
    base = baseline(ctx, jdk, prog, inputs)
    jvm = repeat.RepeatJvm(prog, jdk.java, inputs, prog.sizes["short"], ctx.tmp)
    pid = str(jvm.p.pid)
    samples = []
    try:
        H.check(jvm.next_round(H.TIMEOUT), "the first round never ended: %s" % jvm.tail())
        for k, events in ((0, "all"), (2, "fields,locks")):
            prof = ctx.path("%s-attach%d.wprof" % (name, k))
            r = H.run([H.WASP, "attach", "-q", "-d", "2", "-e", events, "-o", prof, pid])
            H.check(r.rc == 0, "attach -d 2 -e %s exited %d: %s" % (events, r.rc, H.tail(r.err)))
            what = "session %d (-e %s)" % (k, events)
            samples.append(session_profile(ctx, prof, "deadstore,objects,locks"
                                           if events == "all" else events, what))
            if k == 0:
                prof = ctx.path("%s-attach1.wprof" % name)
                dump = ctx.path("%s-attach1.dump.wprof" % name)
                r = H.run([H.WASP, "attach", "-q", "-e", "objects,replicas", "-o", prof, pid])
                H.check(r.rc == 0, "attach -e objects,replicas exited %d: %s"
                        % (r.rc, H.tail(r.err)))
                # The dump after a whole round (the first one ends part-way).
                for _ in range(2):
                    H.check(jvm.next_round(H.TIMEOUT), "no round ended while attached")
                r = H.run([H.WASP, "dump", "-q", "-o", dump, pid])
                H.check(r.rc == 0, "wasp dump exited %d: %s" % (r.rc, H.tail(r.err)))
                r = H.run([H.WASP, "detach", "-q", pid])
                H.check(r.rc == 0, "wasp detach exited %d: %s" % (r.rc, H.tail(r.err)))
                dumped = session_profile(ctx, dump, "objects,replicas", "the dump")
                samples.append(session_profile(ctx, prof, "objects,replicas", "session 1"))
                H.check(samples[-1] >= dumped, "the session's profile has fewer samples (%d) "
                        "than its dump (%d)" % (samples[-1], dumped))
        rc = jvm.stop(H.TIMEOUT)
    finally:
        if jvm.p.poll() is None:
            jvm.kill()
    H.check(rc == 0, "the JVM exited %s after the sessions: %s" % (rc, H.tail(jvm.stderr_text())))
    sums = jvm.checksums()
    wrong = [c for c in sums if c != base.digest]
    H.check(len(sums) >= 3 and not wrong, "%d of %d rounds' checksums differ from the run "
            "without the agent (%s): %s" % (len(wrong), len(sums), base.digest, wrong[:2]))
    return "%d rounds, each as without the agent; samples by session %s" % (
        len(sums), ", ".join(map(str, samples)))
