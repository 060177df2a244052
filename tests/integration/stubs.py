"""Integration tests of calling contexts inside JVM stubs (issue 11).

Not run on its own: tests/integration/run.py imports this module and calls

    stubs.make_tests(sys.modules[__name__])

which returns [(name, thunk(ctx, jdk))] to run on every JDK and watchpoint
engine. `h` is run.py's module; the helpers used from it: Fail, check, tail,
run, expectation, checksum_of, counter, where, at, MECHANISM, WASP, and Ctx
(profile, path, baseline).

The workloads put their planted waste in code C2 hands to generated stubs:
DeadStoreFill's fill loop becomes arrayof_jint_fill, SilentStoreCopy's
System.arraycopy a jlong arraycopy stub, SilentLoadMismatch's Arrays.equals
the vectorizedMismatch stub. The top pair's watched context (and
for the copy, the trap's too) must be the leaf [jvm stub] frame followed by the
Java method and line of the `// WASP-EXPECT` marker, and nearly every captured
context must have Java frames: before the walk from a stub's caller was fixed,
the copy lost 68% of its contexts' stacks and both top pairs read
"[stack unavailable: unknown Java frame]".
"""

import json

# Share of captured contexts (armed samples and traps) counted
# stack.no_java_frames. Measured with the old walk (page engine, JDK 17): 2.3-2.4%
# on DeadStoreFill, 68% on SilentStoreCopy, 63% on SilentLoadMismatch; with the
# walk from the stub's caller 0-0.2% (a context or two in ~600 in some runs:
# the 1% bound leaves room for them and still fails the old walk). The
# debug-register runs capture only 80-320 contexts, where one or two lost is
# 1-2%: NO_JAVA_FEW of them always pass (the old walk would lose dozens of
# the MIN_CONTEXTS at least).
NO_JAVA_MAX = 0.01
NO_JAVA_FEW = 2
MIN_CONTEXTS = 50
MIN_SAMPLES = 100
MIN_PAIRS = 20
# The stub's caller at no line (JDK 25: C2's leaf call to a fill stub, whose
# next debug record is the return's poll, without a position): 1.2-58% of
# DeadStoreFill's pairs' bytes under the stub in ten JDK 25 runs before the
# profile's writer placed it by the method's records, 0.1-5% on JDK 17;
# none since.
UNPLACED_MAX = 0.01

JDK_PACKAGES = ("java.", "jdk.", "sun.")

STUB_TESTS = [
    # (test name, workload, size argument at scale 1, JVM options)
    # OptimizeFill (the fill loop becomes arrayof_jint_fill) is C2's default
    # on some x86 machines only: off on JDK 17 and 25 on an AMD EPYC guest
    # with AVX2, where the loop stayed in reset() and the test failed there
    # every run. Asked for, so every machine runs the stub.
    ("stubs.fill.deadstore", "DeadStoreFill", 600, ["-XX:+OptimizeFill"]),
    ("stubs.arraycopy.silentstore", "SilentStoreCopy", 1000, []),
    # 10000: at 5000 the page engine classified 18-29 pairs (MIN_PAIRS 20).
    ("stubs.mismatch.silentload", "SilentLoadMismatch", 10000, []),
]

H = None  # run.py's module, set by make_tests


def make_tests(h):
    """[(name, thunk(ctx, jdk))]; h is run.py's module (sys.modules[__name__])."""
    global H
    H = h
    return [(name, lambda c, j, w=wl, n=size, o=opts: t_stub(c, j, w, n, o))
            for name, wl, size, opts in STUB_TESTS]


def report_by_line(ctx, profile):
    r = H.run([H.WASP, "report", "--format", "json", "--by", "line", profile])
    H.check(r.rc == 0, "wasp report --by line exited %d: %s" % (r.rc, H.tail(r.err)))
    try:
        return json.loads(r.out)
    except ValueError as e:
        raise H.Fail("wasp report --by line printed no JSON (%s): %s" % (e, H.tail(r.out)))


def describe(context):
    frames = (context or {}).get("frames") or []
    return " <- ".join("%s:%s" % (f.get("method"), f.get("line")) for f in reversed(frames)) or "(none)"


def check_under_stub(side, context, method, line):
    """The context's leaf is a [jvm stub] over Java frames, and the first frame
    under it outside the JDK (Arrays.equals calls the stub through
    ArraysSupport) is method:line."""
    frames = (context or {}).get("frames") or []
    H.check(len(frames) >= 2 and frames[-1].get("kind") == "stub" and frames[-2].get("kind") == "java",
            "top pair's %s context is not a stub frame over Java frames: %s" % (side, describe(context)))
    i = len(frames) - 2
    while i > 0 and (frames[i].get("method") or "").startswith(JDK_PACKAGES):
        i -= 1
    H.check(H.at(frames[i], method, line), "top pair's %s context has %s under the stub %s, expected %s:%d"
            % (side, H.where(frames[i]), frames[-1].get("method"), method, line))


def t_stub(ctx, jdk, workload, size, jvm_args):
    args = [str(size * H.MECHANISM["scale"])]
    e = H.expectation(workload)
    an_name = e["analysis"]
    r, _ = ctx.profile(jdk, an_name, workload, args, jvm_args=jvm_args)
    profile = last_profile(ctx, workload)
    H.check(H.checksum_of(r.out) == ctx.baseline(jdk, jvm_args, workload, args),
            "checksum differs from the run without the agent")
    rep = report_by_line(ctx, profile)
    samples = H.samples_due(rep)  # under the page engine, paced out included
    H.check(samples >= MIN_SAMPLES, "only %d samples (need >= %d)" % (samples, MIN_SAMPLES))
    a = rep["analyses"].get(an_name) or {}
    H.check(a.get("pairs_classified", 0) >= MIN_PAIRS, "only %s %s pairs classified (need >= %d)"
            % (a.get("pairs_classified"), an_name, MIN_PAIRS))
    pairs = a.get("pairs") or []
    H.check(pairs, "no %s pairs reported" % an_name)
    top = pairs[0]
    check_under_stub("watch", top.get("watch"), e["method"], e["line"])
    trap = (top.get("trap") or {}).get("frames") or []
    if e["trap_line"] is not None and trap and trap[-1].get("kind") == "stub":
        check_under_stub("trap", top.get("trap"), e["trap_method"], e["trap_line"])
    else:
        # A trap in the JDK's Java code around the stub (JDK 25 finishes some
        # mismatches in ArraysSupport itself): the first frame outside the
        # JDK must be the expected one.
        i = len(trap) - 1
        while i > 0 and (trap[i].get("method") or "").startswith(JDK_PACKAGES):
            i -= 1
        H.check(trap and H.at(trap[i], e["trap_method"], e["trap_line"]),
                "top pair's trap context is %s, expected %s:%d"
                % (describe(top.get("trap")), e["trap_method"], e["trap_line"]))
    unplaced = unplaced_share(pairs)
    H.check(unplaced <= UNPLACED_MAX,
            "%.1f%% of the weight of pairs watched under a stub has the stub's caller at no line "
            "(need <= %.0f%%)" % (100 * unplaced, 100 * UNPLACED_MAX))
    # A context is captured for each armed sample and each trap.
    captures = H.counter(rep, "armed") + H.counter(rep, "trapped")
    lost = rep["counters"].get("stack.no_java_frames", 0)
    share = lost / max(captures, 1)
    H.check(captures >= MIN_CONTEXTS, "only %d contexts captured (need >= %d)" % (captures, MIN_CONTEXTS))
    H.check(share <= NO_JAVA_MAX or lost <= NO_JAVA_FEW,
            "%.1f%% of contexts have no Java frames (stack.no_java_frames %d of %d armed samples "
            "and traps; need <= %.1f%% or <= %d)" % (100 * share, lost, captures,
                                                     100 * NO_JAVA_MAX, NO_JAVA_FEW))
    causes = sum(v for k, v in rep["counters"].items() if k.startswith("stack.no_java_frames."))
    H.check(causes == lost, "stack.no_java_frames.<cause> counters sum to %d, stack.no_java_frames is %d"
            % (causes, lost))
    return "%d samples, %.0f pairs, %d contexts, %.1f%% without Java frames, top pair %s" % (
        samples, a.get("pairs_classified", 0), captures, 100 * share, describe(top.get("watch")))


def unplaced_share(pairs):
    """Of the bytes of the pairs whose watch context ends in a stub, the
    share whose frame under the stub has no line (a stub's caller the walk
    could not place: watch/context.c, mark_caller)."""
    under, unplaced = 0.0, 0.0
    for p in pairs:
        frames = (p.get("watch") or {}).get("frames") or []
        if len(frames) < 2 or frames[-1].get("kind") != "stub" or frames[-2].get("kind") != "java":
            continue
        under += p.get("bytes", 0)
        if (frames[-2].get("line") or -1) < 0:
            unplaced += p.get("bytes", 0)
    return unplaced / under if under else 0.0


def last_profile(ctx, workload):
    """The profile ctx.profile just wrote (its path numbering is Ctx.path's)."""
    return "%s/%03d-%s.wprof" % (ctx.tmp, ctx.counter, workload)
