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

import collections
import re

import jfr as jfr_file

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
            for e in ENGINES] + [("alloc.jfr", t_jfr), ("alloc.outside", t_outside),
                                 ("alloc.outside-gc", t_outside_gc),
                                 ("alloc.pages", t_pages),
                                 ("alloc.beside-pairs", t_beside_pairs)]


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
    # By creations: the classes are listed by bytes (a["ranked_by"]), where
    # AllocMix's Small (8 x 16 bytes) and Medium (4 x 32) tie.
    by_count = sorted(a["classes"], key=lambda c: c["samples"], reverse=True)
    ranked = ", ".join("%s %.1f%%" % (c["class"], 100 * c["share"]) for c in by_count[:6])
    dominant = max(ref, key=ref.get)
    top = by_count[0] if by_count else {}
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


# ---- alloc.jfr: estimated bytes beside JDK Flight Recorder's (issue 41) ----
#
# tests/workloads/AllocBytes.java allocates Small (16 bytes), Medium (64) and
# long[126] (1024) at random in the proportions 64 : 48 : 6: by bytes
# 10 : 30 : 60, by count 54 : 41 : 5. One run has both wasp (-e alloc) and
# JFR (-XX:StartFlightRecording, settings=default: jdk.ObjectAllocationSample
# throttled to 150 a second); JFR's file is read with the JDK's own `jfr print
# --json`, each sample's `weight` (bytes since the thread's last sample)
# summed by class.
#
# Measured with 120 million steps (948-1093 catches, 560-930 JFR samples,
# 10-18 s a test), 8 runs a JDK, page engine: wasp's byte shares were 0-5
# points off the truth but for one run at 10.1 (sd 2.9 points over the 48
# shares); its total (TLAB bytes) 1-3% under the truth, JFR's 0-3% under.
# JFR's shares scattered far more: long[] 21-55% on JDK 17, 46-76% on JDK 25;
# Small 21-61% on JDK 17. At 60 million steps (600 catches) wasp's worst
# share was 19 points off and JFR's 28 (5 runs a JDK). So the shares' margin
# is 15 points: 5 sd from the truth and 10 sd from a profile ranked by count
# (Small 54%: 44 points off). JFR's ranking is reported, not asserted: with
# its default settings it was two places from wasp's (and the truth's) in 4
# of 14 runs on JDK 17, never on JDK 25 (docs/alloc.md, "Beside JDK Flight
# Recorder", says why); the top-3 sets always agreed.
JFR_ARGS = ("120",)
JFR_SIZES = {"AllocBytes$Small": 16, "AllocBytes$Medium": 64, "long[]": 1024}
JFR_SHARE_MARGIN = 0.15
JFR_TOTAL_MARGIN = 0.10   # measured: wasp 1-3% and JFR 0-3% under
JFR_MIN_CATCHES = 500     # measured 948-1174
JFR_MIN_SAMPLES = 200     # JFR's, measured 560-1049


def jfr_bytes(jdk, path):
    """{class: summed weight} of the recording's jdk.ObjectAllocationSample
    events, classes named as wasp names them ("long[]", "a.b.C")."""
    out = collections.Counter()
    samples = jfr_file.events(H, jdk, path, ["jdk.ObjectAllocationSample"])
    for v in samples:
        out[jfr_file.class_name(v["objectClass"])] += float(v["weight"])
    return out, len(samples)


def ranks(by_class):
    return dict((c, i + 1) for i, c in enumerate(sorted(by_class, key=by_class.get, reverse=True)))


def t_jfr(ctx, jdk):
    engine = next((e for e in ENGINES if not H.engine_verdict(jdk, e)), None)
    if not engine:
        H.skip("no watchpoint engine works here")
    out, rec = ctx.path("AllocBytes.wprof"), ctx.path("AllocBytes.jfr")
    r = jfr_file.run_beside(H, ctx, jdk, ["-e", "alloc", "--watch", engine], "default", "AllocBytes",
                            list(JFR_ARGS), out, rec)
    counts = reference(r.out)
    truth = dict((k, counts[k] * JFR_SIZES[k]) for k in JFR_SIZES)
    total = sum(truth.values())
    a = ctx.report(out).get("alloc")
    H.check(isinstance(a, dict) and a.get("bytes") is not None, "the report has no alloc bytes")
    H.check(a["ranked_by"] == "bytes", "alloc ranked by %r, expected bytes" % a["ranked_by"])
    H.check(a["catches"] >= JFR_MIN_CATCHES, "only %.0f catches (need >= %d)"
            % (a["catches"], JFR_MIN_CATCHES))
    wasp = dict((c["class"], c["bytes"]) for c in a["classes"])
    jfr, nsamples = jfr_bytes(jdk, rec)
    H.check(nsamples >= JFR_MIN_SAMPLES, "JFR recorded %d allocation samples (expected >= %d)"
            % (nsamples, JFR_MIN_SAMPLES))
    for who, by in (("wasp", wasp), ("JFR", jfr)):
        t = sum(by.get(k, 0) for k in truth)
        H.check(abs(t / total - 1) <= JFR_TOTAL_MARGIN, "%s's bytes of the workload's classes: "
                "%.2f GB, allocated %.2f GB" % (who, t / 1e9, total / 1e9))
    share = lambda by: dict((k, by.get(k, 0) / sum(by.get(c, 0) for c in truth)) for k in truth)
    ws, js = share(wasp), share(jfr)
    shares = ", ".join("%s %.1f%% (JFR %.1f%%, allocated %.1f%%)" % (k, 100 * ws[k], 100 * js[k],
                       100 * truth[k] / total) for k in sorted(truth, key=truth.get, reverse=True))
    for k in truth:
        H.check(abs(ws[k] - truth[k] / total) <= JFR_SHARE_MARGIN,
                "wasp's byte share of %s is %.0f points off (%s)"
                % (k, 100 * abs(ws[k] - truth[k] / total), shares))
    H.check(a["classes"][0]["class"] == "long[]", "wasp's #1 by bytes is %s, expected long[] (%s)"
            % (a["classes"][0]["class"], shares))
    top_w = sorted(wasp, key=wasp.get, reverse=True)[:3]
    top_j = sorted(jfr, key=jfr.get, reverse=True)[:3]
    H.check(set(top_w) == set(top_j), "top 3 by bytes: wasp %s, JFR %s" % (top_w, top_j))
    rw, rj = ranks(ws), ranks(js)
    apart = max(abs(rw[k] - rj[k]) for k in truth)
    return "%.0f catches, %d JFR samples; %s; ranks %s apart" % (
        a["catches"], nsamples, shares, "at most one place" if apart <= 1 else "%d places" % apart)


# ---- alloc.outside: objects allocated outside TLABs (issue 41) ----
#
# AllocBytes with "large" adds an int[2097152] (8 MiB) every 131072 steps,
# which HotSpot allocates outside any TLAB (JFR's
# jdk.ObjectAllocationOutsideTLAB listed all 160 of a 20-million-step run,
# JDK 25): by bytes int[] 43.6%, long[] 33.8%, Medium 16.9%, Small 5.6%.
# The TLAB watches never see the int[]s; JVMTI's allocation samples do
# (docs/alloc.md, "Outside TLABs"). Before them wasp's int[] share was 0.
#
# Measured 2026-11-29 with 120 million steps (engine as found: debugreg),
# 6 runs on JDK 25 and 3 on JDK 17: every share within 3.7 points of the
# truth (worst: long[] 30.1% for 33.8%, Medium 20.0% for 16.9%; sd of the
# 36 deviations ~1.7 points, the TLAB classes' noise as in alloc.jfr);
# int[] 42.7-43.9% (43.6%), its bytes 8.05-8.06 GB of 8.05 in every run (each
# 8 MiB array is sampled with chance 1 - e^-16 at 512 KiB: 960 of 960), its
# outside share 99.96-100.00%. So the shares' margin is 10 points (the
# issue's; 6 sd, and 33 points from the 43.6 a profile without outside bytes misses
# on int[]), int[]'s bytes' 10%.
OUTSIDE_ARGS = ("120", "large")
OUTSIDE_SIZES = dict(JFR_SIZES, **{"int[]": 8 * 1024 * 1024 + 16})
OUTSIDE_SHARE_MARGIN = 0.10
OUTSIDE_BYTES_MARGIN = 0.10
OUTSIDE_MIN_SHARE = 0.95  # of int[]'s bytes, outside TLABs (measured 99.99%)


def bytes_run(ctx, jdk, workload, args):
    """`wasp run -e alloc` of workload (the first engine that works here),
    its output checked against a run without the agent: the allocation
    counts it printed, the report's alloc section (with bytes) and counters."""
    engine = next((e for e in ENGINES if not H.engine_verdict(jdk, e)), None)
    if not engine:
        H.skip("no watchpoint engine works here")
    out = ctx.path("%s.wprof" % workload)
    r = H.run([H.WASP, "run", "-e", "alloc", "--watch", engine, "-o", out, "-q", "--", jdk.java,
               "-cp", H.CLASSES, workload] + args)
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    H.check(H.checksum_of(r.out) == ctx.baseline(jdk, [], workload, args),
            "checksum differs from the run without the agent")
    rep = ctx.report(out)
    a = rep.get("alloc")
    H.check(isinstance(a, dict) and a.get("bytes") is not None, "the report has no alloc bytes")
    return reference(r.out), a, rep["counters"]


def t_outside(ctx, jdk):
    counts, a, c = bytes_run(ctx, jdk, "AllocBytes", list(OUTSIDE_ARGS))
    truth = dict((k, counts[k] * OUTSIDE_SIZES[k]) for k in OUTSIDE_SIZES)
    total = sum(truth.values())
    by = dict((c["class"], c) for c in a["classes"])
    wasp = dict((k, by[k]["bytes"] if k in by else 0) for k in truth)
    wt = sum(wasp.values())
    shares = ", ".join("%s %.1f%% (allocated %.1f%%)" % (k, 100 * wasp[k] / wt, 100 * truth[k] / total)
                       for k in sorted(truth, key=truth.get, reverse=True))
    for k in truth:
        H.check(abs(wasp[k] / wt - truth[k] / total) <= OUTSIDE_SHARE_MARGIN,
                "wasp's byte share of %s is %.0f points off (%s)"
                % (k, 100 * abs(wasp[k] / wt - truth[k] / total), shares))
    H.check(abs(wasp["int[]"] / truth["int[]"] - 1) <= OUTSIDE_BYTES_MARGIN,
            "int[]: %.2f GB estimated, %.2f GB allocated" % (wasp["int[]"] / 1e9, truth["int[]"] / 1e9))
    outside = by["int[]"].get("outside_tlab")
    H.check(outside is not None and outside >= OUTSIDE_MIN_SHARE,
            "int[]'s bytes outside TLABs: %r, expected >= %.0f%%" % (outside, 100 * OUTSIDE_MIN_SHARE))
    H.check(a["classes"][0]["class"] == "int[]", "#1 by bytes is %s, expected int[] (%s)"
            % (a["classes"][0]["class"], shares))
    return "%s; int[] %.2f of %.2f GB, %.2f%% outside TLABs; %d JVMTI samples, %d outside, %.1f us each" % (
        shares, wasp["int[]"] / 1e9, truth["int[]"] / 1e9, 100 * outside, c.get("alloc.outside_events", 0),
        c.get("alloc.outside_samples", 0),
        c.get("alloc.outside_ns", 0) / 1e3 / max(c.get("alloc.outside_events", 0), 1))


# ---- alloc.outside-gc: outside TLABs, with a collection every few windows ----
#
# InterpretedArrays under -Xint creates 600,000 int[4096] (16,400 bytes
# each: 9.84 GB) in a 256 MiB heap: most of them outside TLABs (HotSpot's
# gc+tlab log: 8,447 slow allocations and 38 refills between two
# collections, ~90% of the bytes) and a young collection every ~30 ms, so a
# quarter of the 8 ms alloc windows span one. A collection zeroes the TLAB
# refill counts, and such a window's TLAB bytes come from the thread's
# allocated bytes, which hold the outside ones too: they were counted twice
# until 2026-12-01 (int[] 11.9-12.4 GB, +21-26%; the TLAB bytes 3.2-3.8 GB
# where 1.0 were). Since, the window leaves out what the thread's own
# allocation samples estimate was outside (docs/alloc.md, "Outside TLABs"):
# 9.91-9.95 GB (+0.7-1.1%) in 2 runs (JDK 25, debug registers), 9.52 on JDK
# 17; with page protection 9.98-10.02 (JDK 25) and 9.24-9.42 (JDK 17). Within
# OUTSIDE_BYTES_MARGIN (10%): the double count fails it by 11 points and
# more (JDK 17: 11.70 GB). The run samples every 8 ms on either engine (the
# page engine's own 1 ms windows span fewer collections: there the double
# count was 9.76 GB, which a test cannot tell from right).
OUTSIDE_GC_PERIOD = "8ms"
OUTSIDE_GC_ARGS = ("600",)
OUTSIDE_GC_JVM = ["-Xint", "-XX:+AlwaysPreTouch", "-Xms256m", "-Xmx256m"]
OUTSIDE_GC_BYTES = 600000 * (16 + 4096 * 4)


def t_outside_gc(ctx, jdk):
    engine = next((e for e in ENGINES if not H.engine_verdict(jdk, e)), None)
    if not engine:
        H.skip("no watchpoint engine works here")
    out = ctx.path("InterpretedArrays-alloc.wprof")
    r = H.run([H.WASP, "run", "-e", "alloc", "--watch", engine, "--period", OUTSIDE_GC_PERIOD, "-o",
               out, "-q", "--", jdk.java] + OUTSIDE_GC_JVM + ["-cp", H.CLASSES, "InterpretedArrays"] + list(OUTSIDE_GC_ARGS))
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    rep = ctx.report(out)
    a, c = rep.get("alloc") or {}, rep.get("counters") or {}
    by = dict((k["class"], k) for k in a.get("classes") or [])
    H.check("int[]" in by and by["int[]"].get("bytes"), "the report has no int[] bytes")
    got = by["int[]"]["bytes"]
    note = "int[] %.2f GB of %.2f allocated, %.0f%% outside TLABs; TLAB bytes %.2f GB, outside %.2f GB (%s)" % (
        got / 1e9, OUTSIDE_GC_BYTES / 1e9, 100 * (by["int[]"].get("outside_tlab") or 0),
        c.get("alloc.window_bytes", 0) / 1e9, c.get("alloc.outside_bytes", 0) / 1e9, engine)
    H.check(abs(got / OUTSIDE_GC_BYTES - 1) <= OUTSIDE_BYTES_MARGIN, "int[]'s bytes are off: %s" % note)
    return note


# ---- alloc.pages: an object holding several picked boundaries (issue 41) ----
#
# tests/workloads/AllocPages.java creates, slowly, a Small (16 bytes) every
# step and an int[16380] (65,536 bytes, 16 pages) every 4,096: by bytes half
# and half. At that rate the chains pick boundaries densely, so an array
# often holds several picks; each is a pick of the array and must count.
# Before 2026-11-29 the chain stopped at the first pick below the TLAB's
# top and the array counted once: int[] came out at 19.5% (JDK 17) and
# 26.3% (JDK 25) of the bytes. Counting every pick (2026-11-29, debug
# registers, a loaded machine): 43.8-49.4% in 7 runs on both JDKs (mean
# 45.4, sd ~2; 5 points under: the arrays that open a TLAB, which no chain
# watches, docs/alloc.md "Limits"). So int[] must be at least 36%,
# halfway: 4.7 sd from the measured mean and 10 points above the broken
# runs; and at most 60% (the truth's 50 plus the same margin).
# Where debug registers do not trap (2026-11-30, a Firecracker guest; page
# protection watches the boundaries) JDK 17 gave 34.9-48.8% in 6 runs (mean
# 42.3, sd 4.8; 34.9 in a CI run): the lower bound is 30%, 2.6 of that sd
# under its mean, 3.7 points above the worst broken run (26.3) — a weaker
# margin than the 4 sd asked for, which this spread cannot give against
# those runs.
PAGES_ARGS = ("1",)
PAGES_SECONDS = 8.0
PAGES_SIZES = {"AllocPages$Small": 16, "int[]": 65536}
PAGES_SHARE_RANGE = (0.30, 0.60)


def t_pages(ctx, jdk):
    args = ctx.sized(jdk, [], "AllocPages", list(PAGES_ARGS), PAGES_SECONDS)
    counts, a, c = bytes_run(ctx, jdk, "AllocPages", args)
    truth = dict((k, counts[k] * PAGES_SIZES[k]) for k in PAGES_SIZES)
    by = dict((c["class"], c.get("bytes") or 0) for c in a["classes"])
    wasp = dict((k, by.get(k, 0)) for k in truth)
    wt, tt = sum(wasp.values()) or 1, sum(truth.values())
    share, true_share = wasp["int[]"] / wt, truth["int[]"] / tt
    detail = "int[] %.1f%% of the bytes (allocated %.1f%%), %.0f catches, %d picks in an allocated object" % (
        100 * share, 100 * true_share, a["catches"], c.get("alloc.boundary_passed", 0))
    # The case under test happened: picks fell in arrays already allocated.
    H.check(c.get("alloc.boundary_passed", 0) > 0, "no pick fell in an allocated object (%s)" % detail)
    low, high = PAGES_SHARE_RANGE
    H.check(low <= share <= high, "int[]'s byte share is %.1f%%, expected %.0f-%.0f%% (%s)"
            % (100 * share, 100 * low, 100 * high, detail))
    return detail


# ---- alloc.beside-pairs: alloc's share of the watch budget (Finding 15) ----
#
# Page protection, at the default budget: AllocMix under -e all (the pair
# analyses, replicas and alloc watching) and under -e alloc alone, each as
# long as alloc.mix's runs. Under one budget ledger a thread's pair windows,
# thousands of faults a sample, spent what alloc's TLAB watches needed:
# alloc caught 90-136 creations beside them against 1,895-2,149 alone
# (JDK 17, a Firecracker guest, 3 runs each: 0.047-0.063 of alone; at half
# the size 0.097-0.118). With a share for each analysis that watches (a
# fifth each under -e all): 0.233-0.313 in 7 runs, JDK 17 and 25 (mean
# 0.27, sd 0.03). BESIDE_LEAST is 4.3 of that sd under its mean and 0.08
# over the worst run under one ledger.
BESIDE_SECONDS = 8.0
BESIDE_LEAST = 0.14


def beside_run(ctx, jdk, events, args):
    out = ctx.path("AllocMix-%s.wprof" % events)
    r = H.run([H.WASP, "run", "-e", events, "--watch", "page", "-o", out, "-q", "--", jdk.java,
               "-cp", H.CLASSES, "AllocMix"] + args)
    H.check(r.rc == 0, "wasp run -e %s exited %d: %s" % (events, r.rc, H.tail(r.err)))
    a = ctx.report(out).get("alloc")
    H.check(isinstance(a, dict), "-e %s: the report has no alloc section" % events)
    return a, reference(r.out)


def t_beside_pairs(ctx, jdk):
    """alloc under -e all on page protection catches its share of creations
    (the pair analyses' windows do not spend its budget), and ranks the
    dominant class first."""
    args = ctx.sized(jdk, [], "AllocMix", list(ARGS), BESIDE_SECONDS)
    alone, _ = beside_run(ctx, jdk, "alloc", args)
    beside, ref = beside_run(ctx, jdk, "all", args)
    ratio = beside["samples"] / max(alone["samples"], 1)
    note = "%.0f sampled creations under -e all, %.0f under -e alloc (%.3f)" % (
        beside["samples"], alone["samples"], ratio)
    H.check(alone["samples"] >= MIN_CREATIONS // 2, "too few creations alone to compare: %s" % note)
    H.check(ratio >= BESIDE_LEAST, "alloc beside the pair analyses caught under %.2f of its "
            "creations alone: %s" % (BESIDE_LEAST, note))
    dominant = max(ref, key=ref.get)
    top = max(beside["classes"], key=lambda c: c["samples"]) if beside["classes"] else {}
    H.check(top.get("class") == dominant, "under -e all #1 is %s, expected %s (%s)"
            % (top.get("class"), dominant, note))
    return note
