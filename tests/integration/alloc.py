"""Integration tests of the object-creation profile from sampled header
stores (Inoue & Nakatani, Section 5.1; `wasp run -e alloc`): allocated
classes and allocation sites with no allocation hook.

Not run on its own: tests/integration/run.py imports this module and calls

    alloc.make_tests(sys.modules[__name__])

which returns [(name, thunk(ctx, jdk))] to run on every JDK. `h` is run.py's
module; the helpers used from it: Fail, check, tail, run, expectation, leaf,
where, at, checksum_of, WASP, CLASSES.

The workload (tests/workloads/AllocMix.java) allocates a few classes in
known, different proportions, the dominant one at the line marked
`// WASP-EXPECT: alloc`, and prints what it allocated:
"allocations: Class=count ...". That is the reference profile; the sampled
one is compared with it by the overlap metric of the paper's Section 7.2:
the sum over classes of the smaller of the two shares.
"""

import re

# The paper measured 80-99% overlap against the collector's counts; the
# issue's target is >= 90%. Sampling creations by the bytes they occupy
# (a watched byte in the TLAB, docs/alloc.md) gives 96-99% on both engines
# (100-1000 x the creations needed here); the time-sampled class-word stores it
# replaced gave 70-95% by machine, and a profile that knew the four classes but
# not their counts (equal shares) would score 70%; unweighted by size
# (Medium and int[] are twice Small's 16 bytes), 85%.
MIN_OVERLAP = 0.90
# With fewer, the shares of the two smallest classes (13% and 7%) are too
# noisy for the overlap to mean much: a sampled creation per ms of CPU, less
# what the page engine's budget refuses on a slow guest.
MIN_CREATIONS = 500
# More than the default work: millions of steps.
ARGS = ("200",)
# At least this long a run without the agent (Ctx.sized).
SECONDS = 8.0
ENGINES = ("debugreg", "page")
PERIOD_US = {"debugreg": 8000, "page": 1000}

H = None


def make_tests(h):
    global H
    H = h
    return [("alloc.mix.%s" % e, (lambda e: lambda c, j: t_alloc(c, j, "AllocMix", e))(e))
            for e in ENGINES]


def reference(out):
    """{class: count} from the workload's "allocations: ..." line."""
    m = re.findall(r"^allocations: (.*)$", out, re.M)
    H.check(len(m) == 1, "the workload printed no \"allocations:\" line")
    counts = dict((k, float(v)) for k, v in re.findall(r"(\S+)=(\d+)", m[0]))
    H.check(counts and sum(counts.values()) > 0, "no allocation counts in %r" % m[0])
    return counts


def overlap(a, b):
    """Section 7.2: sum over classes of min(share in a, share in b)."""
    ta, tb = sum(a.values()), sum(b.values())
    return sum(min(a.get(k, 0) / ta, b.get(k, 0) / tb) for k in set(a) | set(b))


def t_alloc(ctx, jdk, workload, engine):
    """At the defaults but for the engine: each one's budget as shipped."""
    why = H.engine_verdict(jdk, engine)
    if why:
        H.skip("the %s engine does not work here: %s" % (engine, why))
    out = ctx.path("%s.wprof" % workload)
    args = ctx.sized(jdk, [], workload, list(ARGS), SECONDS)
    cmd = [H.WASP, "run", "-e", "alloc", "--watch", engine, "-o", out, "-q", "--", jdk.java,
           "-cp", H.CLASSES, workload] + args
    r = H.run(cmd)
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    H.check(H.checksum_of(r.out) == ctx.baseline(jdk, [], workload, args),
            "checksum differs from the run without the agent")
    ref = reference(r.out)
    rep = ctx.report(out)
    a = rep.get("alloc")
    H.check(isinstance(a, dict), "the report has no alloc section (has: %s)" % ", ".join(sorted(rep)))
    H.check(a["samples"] >= MIN_CREATIONS, "only %.0f sampled creations (need >= %d)"
            % (a["samples"], MIN_CREATIONS))
    # The workload's classes only: the JVM allocates a few of its own
    # (strings at start-up), which are not in the reference.
    sampled = dict((c["class"], c["samples"]) for c in a["classes"] if c["class"] in ref)
    ranked = ", ".join("%s %.1f%%" % (c["class"], 100 * c["share"]) for c in a["classes"][:6])
    dominant = max(ref, key=ref.get)
    top = a["classes"][0] if a["classes"] else {}
    H.check(top.get("class") == dominant, "#1 is %s, expected %s (ranked: %s)"
            % (top.get("class"), dominant, ranked))
    ov = overlap(sampled, ref) if sampled else 0.0
    shares = ", ".join("%s %.1f%% (allocated %.1f%%)" % (
        k, 100 * sampled.get(k, 0) / max(sum(sampled.values()), 1), 100 * ref[k] / sum(ref.values()))
        for k in sorted(ref, key=ref.get, reverse=True))
    H.check(ov >= MIN_OVERLAP, "overlap with the allocated counts is %.1f%%, expected >= %.0f%% (%s)"
            % (100 * ov, 100 * MIN_OVERLAP, shares))
    # The period is the analysis's choice: 8 ms on debug registers, the
    # common 1 ms on pages (docs/alloc.md, step 6).
    period = rep["meta"].get("period_us")
    H.check(period == PERIOD_US[engine], "sampled every %s us, expected %d with %s"
            % (period, PERIOD_US[engine], engine))
    # Each catch also weighs by the share of its window's TLAB bytes the
    # chain covered (docs/alloc.md, step 5): AllocMix allocates faster than
    # a chain that ends at its TLAB's end covers, so the share is partial.
    window = rep["counters"].get("alloc.window_bytes", 0)
    covered = rep["counters"].get("alloc.covered_bytes", 0)
    H.check(window > 0 and 0 < covered < window, "the chains covered %d of %d bytes allocated in "
            "the windows (expected a part)" % (covered, window))
    e = H.expectation(workload)
    H.check(e["analysis"] == "alloc", "%s's marker is for %r" % (workload, e["analysis"]))
    sites = [s for s in a["sites"] if s["class"] == dominant]
    H.check(sites, "no allocation site of %s" % dominant)
    leaf = H.leaf(sites[0])
    H.check(H.at(leaf, e["method"], e["line"]), "%s's top allocation site is at %s, expected %s:%d"
            % (dominant, H.where(leaf), e["method"], e["line"]))
    return "%.0f sampled creations, overlap %.1f%%; %s; %s #1 at %s" % (
        a["samples"], 100 * ov, shares, dominant, H.where(leaf))
