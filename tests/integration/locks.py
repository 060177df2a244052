"""Integration tests of the lock-activity profile (Inoue & Nakatani, Section
5.2, `wasp run -e locks`): lock acquisitions seen by sampling the
compare-and-swap on an object's header and the runtime's slow paths.

Not run on its own: tests/integration/run.py imports this module and calls

    locks.make_tests(sys.modules[__name__])

which returns [(name, thunk(ctx, jdk))] to run on every JDK. `h` is run.py's
module; the helpers used from it: Fail, check, tail, run, expectation, leaf,
where, at, checksum_of, WASP, CLASSES, Ctx.

The workload (tests/workloads/LocksHot.java) acquires three locks of distinct
classes in the ratio 6:3:1 with the same work under each, and prints the
acquisition counts; its hot acquisition is the line marked
`// WASP-EXPECT: locks`.
"""

import collections
import re

import jfr as jfr_file

HOT_CLASS = "LocksHot$HotLock"
# The hot class's share of the lock samples against its share of the
# acquisitions printed by the workload (60% by construction): the issue's
# accuracy target.
SHARE_TOLERANCE = 0.10
MIN_LOCK_SAMPLES = 200
# Contended, fewer: how long a compare-and-swap takes, and so how many
# samples land on it, depends on whether the threads run at the same time
# (measured ~1000 on an idle machine, 110-140 beside a busy loop; in the
# 1.8 s run of before, 51, 108, 115 and 129 beside a CI build and 72 once at
# load 11: hence the run sized to 5 s below, about three times as many).
MIN_CONTENDED_SAMPLES = 80
# Uncontended: at most this share of the lock samples in the slow path.
UNCONTENDED_SLOW = 0.05
# Contended (four threads on the same locks, each holding a lock for 20
# rounds of work so that a thread that arrives finds it taken, however the
# threads are scheduled): at least this many slow-path samples, and most
# acquisitions on inflated monitors (HotSpot inflates a lock when threads
# contend for it; without contention it never does). With the short hold of
# the uncontended variant, one run in three took no slow path at all (0-35
# slow samples, or ~2000: the scheduler decided).
MIN_CONTENDED_SLOW = 5
INFLATED_SHARE = 0.5
# Contended: at most this share of the lock samples with no class (issue
# 41: the class known for >= 95% of them). A slow-path sample finds its
# object through the monitor the thread announced
# (JavaThread::_current_pending_monitor) or in its registers (the first spin,
# quick_enter); measured 0% on JDK 17 and 25 (2026-11-29: 0 of 31-113 on a
# loaded machine). Before, on JDK 17, 21-45% of them were "(class not
# known)": their contexts had no compare-and-swap sample to borrow a class
# from.
CONTENDED_UNKNOWN = 0.05
# Millions of acquisitions per thread, threads, rounds of work under a lock.
ARGS = {"uncontended": ("100", "1", "1"), "contended": ("10", "2", "20")}
# At least this long a run without the agent (Ctx.sized): the uncontended
# default took 0.6 s on a fast machine and gave 136-140 lock samples of the
# 200 needed.
SECONDS = {"uncontended": 5.0, "contended": 5.0}
# Sampled every 1 ms, not at locks' own 2 ms: the hot share of runs this long
# settles near 60-66% at either period (docs/locks.md; 58.8-63.3% in 18 runs
# on 2026-11-29), 4 points or more inside the tolerance, and 1,000+ samples (+-1.5 points) keep a run from crossing it by
# chance where 500 (+-2.1) would in about one run in thirty. The contended
# variant runs at the default.
PERIOD = {"uncontended": "1ms"}

H = None


def make_tests(h):
    global H
    H = h
    return [("locks.hot", lambda c, j: t_locks(c, j, "uncontended")),
            ("locks.acquisitions", t_acquisitions),
            ("locks.contended", lambda c, j: t_locks(c, j, "contended")),
            ("locks.jfr", t_jfr),
            ("locks.synchronized-method", t_sync_method)]


def acquisitions(out):
    """{class: count} from the workload's "acquisitions: A=n B=n" line."""
    m = re.findall(r"^acquisitions: (.*)$", out, re.M)
    H.check(m, "the workload printed no acquisition counts")
    counts = dict((k, int(v)) for k, v in re.findall(r"(\S+)=(\d+)", m[-1]))
    H.check(HOT_CLASS in counts and sum(counts.values()) > 0, "bad acquisition counts: %s" % m[-1])
    return counts


# One run of a variant per JDK, shared by the tests that read it (locks.hot
# and locks.acquisitions): the run is what costs.
PROFILES = {}


def profile(ctx, jdk, variant):
    key = (id(ctx), jdk.home, variant)
    if key not in PROFILES:
        PROFILES[key] = run_profile(ctx, jdk, variant)
    return PROFILES[key]


def run_profile(ctx, jdk, variant):
    workload = "LocksHot"
    out = ctx.path("%s-%s.wprof" % (workload, variant))
    args = list(ARGS[variant])
    if variant in SECONDS:
        args = ctx.sized(jdk, [], workload, args, SECONDS[variant])
    period = ["--period", PERIOD[variant]] if variant in PERIOD else []
    cmd = [H.WASP, "run", "-e", "locks"] + period + ["-o", out, "-q", "--", jdk.java, "-cp",
                                                     H.CLASSES, workload] + args
    r = H.run(cmd)
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    H.check(H.checksum_of(r.out) == ctx.baseline(jdk, [], workload, args),
            "checksum differs from the run without the agent")
    rep = ctx.report(out)
    locks = rep.get("locks")
    H.check(isinstance(locks, dict), "the report has no locks section (has: %s)" % ", ".join(sorted(rep)))
    return rep, locks, acquisitions(r.out)


def t_locks(ctx, jdk, variant):
    rep, locks, counts = profile(ctx, jdk, variant)
    # Counters that stayed 0 are not written.
    mark, monitor = (rep["counters"].get(k, 0) for k in ("locks.mark_cas", "locks.monitor_cas"))
    inflated = monitor / float(max(1, mark + monitor))
    samples, slow = locks["samples"], locks["slow"]
    classes = locks["classes"]
    ranked = ", ".join("%s %.0f%% (slow %.0f)" % (c["class"] or "?", 100 * c["share"], c["slow"])
                       for c in classes[:4])
    fns = ", ".join("%s %.0f" % (f["function"], f["samples"]) for f in locks["slow_functions"][:4])
    summary = ("%.0f lock samples (%.0f acquire, %.0f slow, %.0f release; %.0f%% on inflated monitors); "
               "%s; slow: %s" % (samples, locks["acquire"], slow, locks["release"], 100 * inflated, ranked,
                                 fns or "none"))
    need = MIN_CONTENDED_SAMPLES if variant == "contended" else MIN_LOCK_SAMPLES
    H.check(samples >= need, "only %.0f lock samples (need >= %d): %s" % (samples, need, summary))
    H.check(classes, "no lock class: %s" % summary)
    top = classes[0]
    if variant == "contended":
        # Not ranked: under contention a lock's samples measure what waiting
        # for it costs, not how often it is taken (the hot lock's holder
        # yields, so the others' waits move around).
        H.check(slow >= MIN_CONTENDED_SLOW, "only %.0f slow-path samples with %s threads on the "
                "same locks (need >= %d): %s" % (slow, ARGS[variant][1], MIN_CONTENDED_SLOW, summary))
        H.check(inflated >= INFLATED_SHARE, "contended locks were not inflated: %s" % summary)
        unknown = sum(c["share"] for c in classes if not c["class"])
        H.check(unknown <= CONTENDED_UNKNOWN, "%.0f%% of the lock samples have no class (expected "
                "<= %.0f%%): %s" % (100 * unknown, 100 * CONTENDED_UNKNOWN, summary))
        return summary
    H.check(top["class"] == HOT_CLASS, "#1 is not %s: %s" % (HOT_CLASS, summary))
    known = counts[HOT_CLASS] / float(sum(counts.values()))
    H.check(abs(top["share"] - known) <= SHARE_TOLERANCE,
            "%s has %.1f%% of the lock samples, %.1f%% of the acquisitions (tolerance %.0f points): %s"
            % (HOT_CLASS, 100 * top["share"], 100 * known, 100 * SHARE_TOLERANCE, summary))
    H.check(slow <= UNCONTENDED_SLOW * samples and inflated <= UNCONTENDED_SLOW,
            "without contention %.0f of %.0f lock samples in the slow path, %.0f%% on inflated monitors "
            "(expected <= %.0f%%): %s" % (slow, samples, 100 * inflated, 100 * UNCONTENDED_SLOW, summary))
    e = H.expectation("LocksHot")
    H.check(e["analysis"] == "locks", "LocksHot's marker is for %r" % e["analysis"])
    H.check(top["contexts"], "%s has no context" % HOT_CLASS)
    leaf = H.leaf(top["contexts"][0])
    H.check(H.at(leaf, e["method"], e["line"]), "%s's top context is at %s, expected %s:%d: %s"
            % (HOT_CLASS, H.where(leaf), e["method"], e["line"], summary))
    return "%s #1 with %.1f%% (known %.1f%%) at %s; %s" % (HOT_CLASS, 100 * top["share"], 100 * known,
                                                         H.where(leaf), summary)


# ---- locks.acquisitions: acquisitions estimated from acquiring samples ----
#
# The uncontended run of locks.hot (LocksHot, one thread, 100 million
# acquisitions at its size, --period 1ms): locks.acquisitions, the acquiring
# samples x the period / the cost of one compare-and-swap the agent measured
# at start-up (meta locks_cas_ns), against the acquisitions the workload
# counted: their ratio must lie in ACQ_RATIO.
#
# Measured 2026-11-29 (2-core AMD EPYC VM at a load of 2-12 from other jobs,
# 36 runs of this test, 370-950 acquiring samples, c 2.4-3.0 ns): JDK 17
# 0.67-0.88 (20 runs, mean 0.77, sd 0.069), JDK 25 0.69-0.82 (16, mean 0.76,
# sd 0.043); all: mean 0.767, sd 0.059. The estimate is low by about a
# fifth: a compare-and-swap in compiled code costs the sampler a little less
# than one in a loop of them. The bounds are 4.2 and 4.8 sd from that mean.
# Broken estimates: counting the release samples too gives ~1.53 (sd ~0.12,
# 4.1 sd above the upper bound; the exact check below catches it anyway);
# timing an acquire and a release as one compare-and-swap ~0.38 (sd ~0.03,
# 4.7 sd below); ignoring the period or the cost, orders of magnitude off;
# lock samples unweighted when the sampler raised the worker's period
# (1 ms to 2 ms: one run in ten here) gave 0.47.
# In CI the estimate runs lower than in any of those runs, on both JDKs:
# 0.63, 0.66 (JDK 17, 25; one CI run) and 0.61, 0.63 (the next), 795-1,294
# acquiring samples, c 2.55-3.01 ns; beside a CI run here 0.67-0.88 (8
# runs), with two busy loops besides 0.71-0.80 (4). Against the CI runs
# (mean 0.633, sd 0.021, about the spread of ~1,000 samples) the lower bound
# of 0.52 was 5.4 of their sd away but 1.9 of the 36 runs' sd: 0.50, the
# lowest that stays 4 sd above the c-doubled estimate (0.38, sd 0.03), puts
# it 6.3 and 2.3 away. (The unweighted one, 0.47, is a failure of the runs
# whose period was raised only, which neither bound could catch for sure.)
# Where debug registers do not trap (2026-11-30, a Firecracker guest on AMD
# EPYC, c 5.8-7.0 ns) the same test gives 0.97-1.22 (JDK 17, 7 runs; one CI
# run failed at 1.19 against the old upper bound of 1.05) and 0.86, 0.90
# (JDK 25): over both JDKs mean 1.04, sd 0.13. How many samples a
# compare-and-swap draws, against the loop that times it, is the machine's:
# this kind's timer interrupts land on it more. The upper bound 1.60 is 4.3
# of this kind's sd above its mean; counting the release samples too gives
# ~2.1 here (the exact check catches it on either kind). The lower bound
# stays 0.50, 4.1 sd under this kind's mean; a doubled c (~0.52 here) is
# caught on the other kind only.
# Since lightweight locking's lock-stack samples count as acquiring and
# releasing (2026-12-01, docs/locks.md), JDK 25 on the AMD KVM guest gives
# 0.76 and 1.04 in two runs (was 0.69-0.82); JDK 17, which has no lock
# stack, 0.69.
# JDK 17 has since run lower on this kind (2026-12-01): CI gave 0.46 (a
# failure at 0.50), 0.58 and 0.52; by hand 0.53, 0.53, 0.59, 0.71 and,
# with -XX:-EliminateLocks (C2's lock coarsening ruled out: the counted
# acquisitions are then all real), 0.74, 0.56, 0.47, 0.58: mean 0.57, sd
# 0.085, the acquiring samples 795-1,207 for the same 6e8 acquisitions.
# Why it drifted from 0.77 is not known (a note on the issue). The lower
# bound is 0.40, 2 of that sd under the mean; a doubled c gives half the
# ratio (~0.29, sd ~0.04), 2.7 of its sd under the bound, and the exact
# check below catches any change of the arithmetic.
ACQ_RATIO = (0.40, 1.60)


def t_acquisitions(ctx, jdk):
    rep, locks, counts = profile(ctx, jdk, "uncontended")
    truth = float(sum(counts.values()))
    cas_ns = rep["meta"].get("locks_cas_ns")
    est = locks.get("acquisitions")
    H.check(isinstance(cas_ns, (int, float)) and 1 <= cas_ns <= 500,
            "meta locks_cas_ns is %r (expected 1-500 ns, the agent's calibration)" % (cas_ns,))
    H.check(isinstance(est, (int, float)), "locks.acquisitions is %r" % (est,))
    by_class = dict((c["class"], c.get("acquisitions")) for c in locks["classes"])
    ratio = est / truth
    raised = rep["meta"].get("period_max_us")
    classes = ", ".join("%s %.3g (counted %.3g)" % (k, by_class.get(k) or 0, v) for k, v in sorted(counts.items()))
    summary = ("%.3g acquisitions estimated from %.0f acquiring samples (weighted%s) at %.2f ns a "
               "compare-and-swap, %.3g counted: %.2fx; %s" % (
                   est, locks["acquire"], ", period raised to %s us" % raised if raised else "", cas_ns,
                   truth, ratio, classes))
    # The arithmetic exactly: acquiring samples only, the period in ns over the cost.
    expected = locks["acquire"] * rep["meta"]["period_us"] * 1000.0 / cas_ns
    H.check(abs(est - expected) <= 1e-6 * expected, "locks.acquisitions is %.6g, not acquire x period_us x "
            "1000 / locks_cas_ns = %.6g: %s" % (est, expected, summary))
    H.check(ACQ_RATIO[0] <= ratio <= ACQ_RATIO[1], "the estimate is %.2fx the acquisitions counted "
            "(expected %.2f-%.2fx): %s" % (ratio, ACQ_RATIO[0], ACQ_RATIO[1], summary))
    # Each class's by the same factor, and they add up to the whole.
    for c in locks["classes"]:
        H.check(abs(c["acquisitions"] - c["acquire"] * expected / locks["acquire"]) <= 1e-6 * expected,
                "%s: %.6g acquisitions from %.0f acquiring samples: %s" % (c["class"], c["acquisitions"],
                                                                          c["acquire"], summary))
    return summary


# ---- locks.jfr: blocked time beside JDK Flight Recorder's (issue 41) ----
#
# tests/workloads/LocksBlocked.java blocks a waiter thread on three locks for
# 3 : 1 : 2 units of the holder's sleep: two monitors (LongHold, ShortHold)
# and a ReentrantLock (the waiter parks, blocker ReentrantLock$NonfairSync),
# and prints the blocked time it measured itself (the truth; sleeps overshoot,
# so it comes out near 44 : 23 : 33%). One run has both wasp (-e locks) and
# JFR (-XX:StartFlightRecording with a copy of JFR's default settings whose
# jdk.JavaMonitorEnter and jdk.ThreadPark thresholds are 0 ms instead of
# 20 ms); JFR's file is read with `jfr print --json`, each event's duration
# summed by monitorClass / parkedClass. Shares are of the three planted
# classes' blocked time.
#
# Measured (2026-11-29, 100 rounds of 5 ms units, ~5 s a run, looks every
# 10 ms): see BLOCKED_MEASURED below; the margin is the 10 points,
# more than 4 sd of the spread seen (wasp's shares within 0-3 points of the
# truth, sd ~1.5; a class-blind profile, equal thirds, is 11-17 points off
# and one ranking by lock samples instead puts the monitors by their slow-path
# CPU, which is noise here).
BLOCKED_ARGS = ("100", "5")
BLOCKED_CLASSES = ("LocksBlocked$LongHold", "LocksBlocked$ShortHold",
                   "java.util.concurrent.locks.ReentrantLock$NonfairSync")
BLOCKED_MARGIN = 0.10
BLOCKED_MIN_SAMPLES = 200  # measured 326
# At most this share of the blocked samples with no class (the issue: the
# class known for >= 95% of lock samples under contention).
BLOCKED_UNKNOWN = 0.05
JFR_THRESHOLDS = {"jdk.JavaMonitorEnter": "0 ms", "jdk.ThreadPark": "0 ms"}


def blocked_truth(out):
    m = re.findall(r"^blocked-ns: (.*)$", out, re.M)
    H.check(m, "the workload printed no blocked times")
    t = dict((k, float(v) / 1e9) for k, v in re.findall(r"(\S+)=(\d+)", m[-1]))
    H.check(set(t) == set(BLOCKED_CLASSES) and sum(t.values()) > 0, "bad blocked times: %s" % m[-1])
    return t


def jfr_blocked(jdk, rec):
    """{class: seconds} of the recording's monitor-enter and park events."""
    out = collections.Counter()
    values = jfr_file.events(H, jdk, rec, sorted(JFR_THRESHOLDS))
    for v in values:
        cls = v.get("monitorClass") if "monitorClass" in v else v.get("parkedClass")
        out[jfr_file.class_name(cls)] += jfr_file.seconds(v["duration"])
    return out, len(values)


def shares(by):
    total = sum(by.get(k, 0) for k in BLOCKED_CLASSES)
    return dict((k, by.get(k, 0) / total if total > 0 else 0) for k in BLOCKED_CLASSES)


def ranking(by):
    return sorted(BLOCKED_CLASSES, key=lambda k: -by.get(k, 0))


def t_jfr(ctx, jdk):
    out, rec = ctx.path("LocksBlocked.wprof"), ctx.path("LocksBlocked.jfr")
    settings = jfr_file.settings(H, jdk, ctx.path("locks-0ms.jfc"), JFR_THRESHOLDS)
    r = jfr_file.run_beside(H, ctx, jdk, ["-e", "locks"], settings, "LocksBlocked", list(BLOCKED_ARGS),
                            out, rec)
    truth = blocked_truth(r.out)
    rep = ctx.report(out)
    locks = rep.get("locks")
    H.check(isinstance(locks, dict) and isinstance(locks.get("blocked"), dict),
            "the report has no locks.blocked")
    b = locks["blocked"]
    wasp = collections.Counter()
    for c in b["classes"]:
        wasp[c["class"]] += c["seconds"]
    unknown = sum(c["samples"] for c in b["classes"] if not c["class"])
    jfr, nevents = jfr_blocked(jdk, rec)
    ws, js, ts = shares(wasp), shares(jfr), shares(truth)
    summary = "%.0f blocked samples (%.0f looks, %.0f ms of CPU), %.2f s (truth %.2f s, JFR %.2f s in " \
              "%d events); %s" % (
                  b["samples"], b["looks"], b["cpu_ms"], sum(wasp.get(k, 0) for k in BLOCKED_CLASSES),
                  sum(truth.values()), sum(jfr.get(k, 0) for k in BLOCKED_CLASSES), nevents,
                  ", ".join("%s %.1f%% (JFR %.1f%%, truth %.1f%%)" % (k.split(".")[-1], 100 * ws[k],
                                                                     100 * js[k], 100 * ts[k])
                            for k in BLOCKED_CLASSES))
    H.check(b["samples"] >= BLOCKED_MIN_SAMPLES, "only %.0f blocked samples (need >= %d): %s"
            % (b["samples"], BLOCKED_MIN_SAMPLES, summary))
    H.check(unknown <= BLOCKED_UNKNOWN * b["samples"], "%.0f of %.0f blocked samples have no class: %s"
            % (unknown, b["samples"], summary))
    for k in BLOCKED_CLASSES:
        for who, other in (("the truth", ts), ("JFR", js)):
            H.check(abs(ws[k] - other[k]) <= BLOCKED_MARGIN, "wasp's blocked share of %s is %.1f points "
                    "from %s's: %s" % (k, 100 * abs(ws[k] - other[k]), who, summary))
    H.check(ranking(wasp) == ranking(jfr) == ranking(truth), "rankings by blocked time: wasp %s, JFR %s, "
            "truth %s: %s" % (ranking(wasp), ranking(jfr), ranking(truth), summary))
    # The summary's first locks finding is the longest wait, at the waiting
    # line, said to use no CPU.
    found = [a for a in rep["summary"]["analyses"] if a["analysis"] == "locks"]
    first = found[0]["findings"][0] if found and found[0]["findings"] else {}
    H.check(first.get("waiting") is True and ranking(truth)[0].split(".")[-1] in first.get("what", "")
            and first.get("cpu_share") is None and first.get("file") == "LocksBlocked.java",
            "the summary's first locks finding is not the longest wait (%s): %s" % (ranking(truth)[0], first))
    return summary


# ---- locks.synchronized-method: a synchronized method's monitor at its first line ----
#
# LocksSyncMethod: three threads on one instance's synchronized method. Its
# monitor is taken before the method's first bytecode (bci -1 in compiled
# frames): the lock samples and the blocked time must be at the method's
# first line, the marker, in one context each. Before the fix (jvm.c,
# wasp_jvm_line) 98.5% of the lock samples had no line, and the blocked
# time was split 59:41 between no line and the marker's line.
SYNC_ARGS = ("10000000", "3")
SYNC_MIN_SAMPLES = 150  # measured ~550 (1,100 at twice the calls)
SYNC_MIN_BLOCKED = 80   # measured ~400
SYNC_AT_LINE = 0.80     # measured 0.98 of the samples and of the blocked time; broken 0.0 and <= 0.6


def t_sync_method(ctx, jdk):
    workload = "LocksSyncMethod"
    out = ctx.path("%s.wprof" % workload)
    r = H.run([H.WASP, "run", "-e", "locks", "-o", out, "-q", "--", jdk.java, "-cp", H.CLASSES,
               workload] + list(SYNC_ARGS))
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    H.check(H.checksum_of(r.out) == ctx.baseline(jdk, [], workload, list(SYNC_ARGS)),
            "checksum differs from the run without the agent")
    e = H.expectation(workload)
    locks = ctx.report(out).get("locks") or {}
    mine = [c for c in locks.get("classes", []) if c["class"] == workload]
    H.check(mine, "no lock class %s: %s" % (workload, [c["class"] for c in locks.get("classes", [])]))
    k = mine[0]
    at = sum(c["samples"] for c in k["contexts"] if H.at(H.leaf(c), e["method"], e["line"]))
    said = "%.0f lock samples, %.0f at %s:%d (%s)" % (
        k["samples"], at, e["method"], e["line"],
        ", ".join("%s %.0f" % (H.where(H.leaf(c)), c["samples"]) for c in k["contexts"][:4]))
    H.check(k["samples"] >= SYNC_MIN_SAMPLES, "only %s" % said)
    H.check(at >= SYNC_AT_LINE * k["samples"], "the lock samples are not at the method's first line: %s"
            % said)
    blocked = [c for c in (locks.get("blocked") or {}).get("classes", []) if c["class"] == workload]
    H.check(blocked and blocked[0]["samples"] >= SYNC_MIN_BLOCKED, "too little blocked time on %s: %s"
            % (workload, blocked[0] if blocked else "none"))
    b = blocked[0]
    first = b["contexts"][0]
    said += "; blocked %.2f s in %.0f samples, %.2f s at %s" % (b["seconds"], b["samples"],
                                                                first["seconds"], H.where(H.leaf(first)))
    H.check(H.at(H.leaf(first), e["method"], e["line"]) and first["seconds"] >= SYNC_AT_LINE * b["seconds"],
            "the blocked time is not in one context at the method's first line: %s" % said)
    return said
