"""Integration tests of the report's summary, its first screen (issue 40;
docs/findings.md, report_summary.c).

Not run on its own: tests/integration/run.py imports this module and calls

    summary.make_tests(sys.modules[__name__])

which returns [(name, thunk(ctx, jdk))], run per JDK. `h` is run.py's module.

- summary.<analysis>: a planted workload profiled with its analysis; the
  summary's first finding for that analysis (text: the line after its
  heading; JSON: summary.analyses[].findings[0]) is at the planted line (the
  `// WASP-EXPECT:` marker, run.py's expectation()), and the summary comes
  before the detail.
  For the workloads whose planted code can be timed without the agent
  (TRUTH), the first finding's CPU share is also checked against that
  truth: the code's share of the program's threads' CPU time, measured by
  running the workload with the code and without it (the workloads'
  -Dwasp.truth.repeat, no agent).
- summary.html: the page (headless Chromium, as report_html.py) shows the
  summary first: its heading is the page's first h2, before the detail's
  sections; its first finding is at the planted line; how it was measured
  is folded.
- summary.thread: ThreadsTwo's two named threads, one storing dead
  (DeadStoreEuler's line), one loading silently (SilentLoadSearch's),
  recorded by wasp run --thread (which implies --threads): each stack's root
  is its thread, digits folded ("[thread storer-#]"); wasp report --thread
  keeps one thread's evidence: the storer's summary has the dead store first
  and none of the search's loads, the loader's the search's load first and
  no dead store, as the report wasp run --thread printed;
  --thread on a profile without threads is refused, naming the option.
- summary.few-samples: a run sampled every 200 ms: every finding resting on
  fewer than the summary's threshold says so ("few samples: N"), in the JSON
  and on its text line.
"""

import collections
import json
import os
import re
import statistics

H = None  # run.py's module, set by make_tests

# (analysis, workload, its arguments, extra `wasp run` options). Sizes as the
# analyses' own tests use them at the debug registers' scale; AllocBytes at
# alloc.jfr's size (~1000 catches; alloc ranks by bytes, long[] 53-65% of
# them in 10 runs against Medium's 26-40%: AllocMix's leaders tie by bytes). LocksHot at its default work and locks.py's 1 ms period: at 40
# million acquisitions the lock samples were 42-66, the hot lock 50-69% of
# them against the warm one's ~30%, too close to be sure which leads.
CASES = [
    ("deadstore", "DeadStoreEuler", [], []),
    ("silentstore", "SilentStoreRefresh", [], []),
    ("silentstore", "SilentStoreIS", [], []),
    ("silentload", "SilentLoadSearch", [], []),
    ("silentload", "TableScan", [], []),
    ("objects", "ObjectsStride", [], ["--alloc-rate", "50000"]),
    ("objects", "TableScan", [], ["--alloc-interval", "0"]),
    ("replicas", "ReplicaKMeans", [], ["--alloc-interval", "0"]),
    ("replicas", "ReplicaRing", [], []),
    ("alloc", "AllocRing", [], []),
    ("alloc", "AllocBytes", ["120"], []),
    ("locks", "LocksHot", ["100", "1", "1"], ["--period", "1ms"]),
]

# summary.few-samples: one sample per 200 ms of CPU time on DeadStoreEuler's
# ~2.8 s of CPU (JVM start-up included): ~14 samples (28 at 100 ms, seen on
# JDK 17), so no finding can rest on the 30 the summary asks; each armed
# watch finds a dead store about half the time, but a run arms 4-13 (JDK 25,
# five runs) and one classified 2 pairs, neither dead: no finding, nothing
# to check, about one run in twenty. Up to FEW_TRIES runs (one in 8,000
# then).
FEW_PERIOD = "200ms"
FEW_TRIES = 3


# The CPU-share truth (issue 40): the planted code's share of the program's
# CPU measured without the agent, (T(1) - T(0)) / T(1), T(R) the program's
# threads' CPU time with the code run R times (ThreadMXBean, the workloads'
# -Dwasp.truth.repeat; wasp's denominator, the samples due or, for the pair
# analyses, every sample counted, is the profiled threads' CPU too; where the
# workload prints its CPU before main(), (T(1) - T(0)) / (T(1) - B(1)), as
# wasp samples nothing before its agent starts). Per analysis: (how wasp's share relates to the truth,
# the truth's standard deviation, the least and the most ratio of wasp's
# share to it). Measured on JDK 25, two cores shared with other test runs
# (load 3-6):
#
# "loop": the finding's code is the loop. A hot-object site's cost is the
# samples at the accesses to its objects, and ObjectsStride's walk is those
# accesses (cache misses on the big array). Truth in 16 runs 0.954-0.973
# (sd 0.005); wasp 0.930-0.959 in 6 runs, its interval holding the truth in
# 4 of them and missing it by 0.003 and 0.006 in the others. The check was
# the truth within wasp's interval widened by 4 sd of the truth (0.02). But
# the accesses are most of the loop and not all of it (its index arithmetic,
# header and poll are not accesses), and the truth rises with load (the
# loop's misses slow, the rest does not) where wasp's share does not: in 10
# runs (2026-11-29; one CI run, six beside other test runs, three with two
# busy loops besides) truth 0.943-0.972, wasp 0.936-0.959, their ratio
# 0.981-1.010 (mean 0.995, sd 0.009); the truth's room above wasp's
# interval was 0.013-0.039 (mean 0.026, sd 0.008: 3.2 sd), 0.013-0.025 in
# the busy-loop runs, and 0.004-0.007 for the twice longer loop, whose
# truth nears 1 (0.972-0.982, wasp 0.949-0.961). Now as "body": wasp's
# share at least 0.9 of the truth (10 sd under the ratios' mean) and not
# over the truth by more than 4 of its sd (0.02; the lowest end of wasp's
# interval was 0.003-0.037 under the truth, 4.1 sd from that): a share of
# the sampled memory (99.9%) still fails wherever the truth is under 0.977.
# Where debug registers do not trap (a Firecracker guest, 2026-11-30) the
# medians' truth came out 0.913-0.940 in 6 runs (T0, 0.12-0.17 s of mostly
# start-up, moved it) and a CI run's wasp interval started 0.031 over it:
# its truth is from the least CPU of the runs each way (TRUTH_BY_LEAST), as
# T0 has no JIT modes to choose among and what moves it is added time. That
# still failed a CI run by 0.001 (the truth 0.918, wasp's interval from
# 0.939): the JVM's start-up on the main thread before main() (0.08-0.14 s
# there) is in T1 and T0 and not in wasp's samples, which begin with the
# agent's sampler, so it lowered the truth alone, more on a slow start. Now
# ObjectsStride prints its CPU before main() (BEFORE_MAIN: "truth:
# cpu-ns-before-main N"), the truth's denominator leaves it out, and the
# power the start-up gave comes from work of the program's own: a tenth of
# the main thread's CPU in arithmetic that touches no object (its spin()).
# Since (2026-11-30, the Firecracker guest, 10 runs, JDK 25 and 17): truth
# 0.900-0.926, wasp 0.878-0.904, a ratio 0.957-0.984 (mean 0.973, sd
# 0.008: least 0.9 is 9 sd under it), wasp's interval's low end 0.035-0.060
# under the truth (mean 0.045, sd 0.008: the 0.02 over it that fails is 8
# sd away); a share of the sampled memory (99.3-99.8% here) fails by 0.05
# and more.
#
# "line": a pair's cost is the samples taken in the code of its line
# (docs/findings.md: every sample counted at its PC, mapped through the
# compiled code's debug information, section CPUL). DeadStoreEuler's first
# sweep is its line 48 (the loop's header, line 47, holds under 1%): truth
# 0.282-0.478 in 17 runs (sd 0.04; 0.33-0.38 unloaded), 0.216-0.430 in 6
# more on a machine running other tests; wasp 0.305-0.333 in 7 runs,
# intervals +-0.018. The check: the truth within wasp's interval widened by
# 4 sd of the truth (0.16). The truth's spread is too wide here for this
# check to catch the older estimate (0.150-0.246) every time: summary.
# silentload does.
#
# "line" too, the loops of their own (issue 40's test: a CPU share within its
# interval of the loop's time). The sd is that of wasp's share less the
# truth, which moves more than the truth alone (2026-11-30, the Firecracker
# guest, page protection; JDK 25 and 17):
# SilentStoreRefresh's refresh (one line: a copy of a table into a cache
# that holds it already, then reads of the cache about as long): truth
# 0.459-0.524 in 8 runs, wasp 0.472-0.526 (intervals +-0.025), wasp less the
# truth -0.018 to +0.061 (sd 0.03), the truth outside wasp's interval by at
# most 0.042. Then (the same machine kind, a day later) JDK 17's truth moved
# 0.37-0.66 within one test's pairs (the copy loop compiled one way or
# another from one run to the next) and 2 of 5 runs failed; since, the
# refresh's cost is measured within each run, as LocksHot's lock is ("truth:
# part-ns": the rounds in ten chunks, each followed by the same rounds
# without the refresh): truth 0.463-0.511 in 6 runs (JDK 17 and 25), and
# the profile runs at a 10% watch budget (WATCH_BUDGET): wasp 0.444-0.553
# (intervals +-0.05), the truth outside wasp's interval by at most 0.031. AllocRing's fill (one line: 256 new long[126] into a ring; the
# rest of a round arithmetic), run with a pre-touched heap (JVM_OPTS): truth
# 0.587-0.619 in 7 runs, wasp 0.589-0.667 (intervals +-0.015), wasp less the
# truth +0.001 to +0.080 (mean 0.025, sd 0.027), outside the interval by at
# most 0.065. Widened by 4 x 0.03 = 0.12: SilentStoreIS's kind of share
# (twice the truth) and AllocBytes's (half of it) fail by 0.1 and more, as
# does the share of the whole program.
#
# "body": the finding's line is its loop's body, and the loop's header is a
# line of its own (its compare, increment and safepoint poll), so the line
# is most of the loop's cost and not more. SilentLoadSearch's search is the
# whole program: truth 0.965-0.980 in 19 runs (sd 0.004); wasp's line
# 0.875-0.953 in 6 runs (intervals +-0.01), a ratio 0.89-0.98 (mean 0.935,
# sd 0.027; the header's share, 0.02-0.10, moves with the compiled loop's
# shape): least 0.8, 4 sd under the mean. The older estimate, 0.16-0.41 of
# the loop, fails it by far.
#
# "lock": a lock's cost is the samples at its compare-and-swaps (acquiring
# and releasing); the truth is what the lock costs, measured within each run
# without the agent: LocksHot's worker runs its steps in ten chunks, each
# followed by the same steps with hot()'s work done without the lock, and
# the difference of the two is the lock's (the workload's "truth: part-ns").
# Both halves of a difference run milliseconds apart, so a neighbour's load
# moves both: the truth was 0.500-0.527 in 12 runs (JDK 17 and 25, 2026-11-30,
# four beside two busy loops; single runs 0.435-0.531), where measured
# across two runs, with the lock and without it, its medians had moved
# 0.12-0.50 under load. wasp 0.460-0.511, under the truth by 0.010-0.055
# (mean 0.033, sd 0.013; intervals +-0.025): the lock's fences hold up the
# instructions after the compare-and-swap, where a sample then lands
# (docs/findings.md, "Locks"). Within the interval widened by 4 x 0.03:
# here the truth was past the interval's end by 0.009 on average (sd 0.013);
# the Intel guests, whose debug registers trap, were not measured against
# this truth, and against the older one gave ratios of 0.76-0.93, under a
# truth of ~0.4 by up to 0.1, which 0.12 past the interval's end covers.
# The AMD EPYC KVM guest whose debug registers trap (perf sampler,
# 2026-12-01): JDK 25's truth 0.34-0.40; wasp counted only the
# compare-and-swaps then, 0.195-0.244 (a CI failure, 0.14 past the
# interval's end): lightweight locking's lock-stack checks and push held a
# third as many samples again (docs/locks.md). Counted since: 0.269-0.306
# in 6 runs against truths of 0.354-0.376, the truth past the interval's
# end by 0.023-0.079 (mean 0.05, sd 0.028): a quarter of what is left is
# the lock sequences' joins (`xor` and `jne` after the exit), which no
# rule tells from other code. So the truth may lie past the interval's end
# by 4 sd of the truth plus LOCK_SHADOW (0.04): 0.16, 4 sd of that spread
# above its mean. JDK 17 there (stack locking, no lock stack): 0.27 against
# 0.28. Counting none, or the acquisitions alone (0.13-0.15), still fails.
LOCK_SHADOW = 0.04
# Counting the acquisitions alone (half of it), every lock's samples (0.8 of
# the CPU here) or none still fails by 0.05 and more.
# "ahead": SilentStoreIS's planted line is one line of straight code, and
# its truth is what taking it away saves: the program with it and without
# it (-Dwasp.truth.repeat=0 keeps the constructor's values), 0.100-0.119 in
# 10 runs (sd 0.006), 0.090-0.141 in 6 more on a busy machine. wasp's share
# is twice that, 0.222-0.245 in 7 runs (a ratio 1.6-2.5 against the truths
# of the same runs, 1.9-2.4 against the first 10). Not the debug
# information (as this note said until 2026-11-30): the samples by line
# (JSON summary.hot_lines, JDK 25, page protection) give randlc's other
# lines their own samples (line 76 22%, 78 16%, 68 and 69 7% each), and
# with the planted line moved into a method of its own, inlined, its share
# stayed 0.25-0.31 against truths of 0.08-0.11. The line is a division and
# its loads on the loop's critical dependency chain, and a timer sample
# lands on the instruction that holds retirement up, so the line is charged
# with the chain's wait on it; taking it away still leaves randlc's later
# lines loading the constants it stored, on the same chain, which costs
# part of what the line did. So the line's cost is more than what the fix
# saves (docs/findings.md): the check pins the ratio, least 1.1 and most
# 2.7, so that a change shows here.
#
# "creation": an allocation site's cost is the samples at its creating
# line (the TLAB bump, the header, the zeroing inlined there), a part of
# what the creations cost: AllocBytes's long[] creations, the truth the
# program with them and without them (-Dwasp.truth.repeat=0 stores one
# array made before the run: a pool of arrays, one per ring slot, cost as
# much in cache misses as the creations and measured ~0). In 21 runs (JDK
# 17 and 25; 12 by hand, 9 of this test): truth 0.085-0.31 (mean 0.225, sd
# 0.054); wasp 0.065-0.16 (mean 0.097, sd 0.021, intervals +-0.03; 0.059
# in a 22nd), a ratio 0.24-0.83, and 1.29 in one run whose truth run without the
# creations was slowed (T0 3.30 s against 2.6-3.1). The rest is outside the
# line: profiled with -Dwasp.truth.repeat=1 and 0 (JDK 25), the program
# took 68 samples more with the creations, 33 at the line, 27 in compiled
# code the debug information did not map then (cpu.unmapped, 30 against 3:
# C2's out-of-line G1 barrier slow paths of the stores into the ring,
# counted since at the code they jump back to) and 11 in the runtime
# (cpu.not_compiled, 25 against 14: TLAB refills); the loop's other lines
# moved within their noise. Again (JDK 17, 2 ms, 2026-11-29): 266 more, 133
# at the line and 157 at line 52's Small creations, whose header stores meet
# more cache misses while the TLAB moves 2.5 times as fast. Not more than the truth's 4 sd above it (most
# 1: a share of the whole program, ~1, fails by 10 sd of the truth), and
# at least 0.05 of it (0.011 at the mean truth, 4.1 sd of wasp's spread
# under its mean; a share of 0, or "CPU not measured", fails).
#
# "readers": a replica's cost is the samples at the line that creates its
# objects and the lines where they were accessed (the places of its
# comparisons' contexts, births adding no line: docs/findings.md); the truth is the code that reads the copies,
# ReplicaKMeans's update passes (-Dwasp.truth.repeat=0 leaves them out; the
# program's threads: main and the pool's two workers). In 21 runs (JDK 17
# and 25; 12 by hand, 9 of this test): truth 0.45-0.63 (mean 0.53, sd
# 0.042); wasp 0.20-0.30 (mean 0.25, sd 0.032, intervals +-0.015), a ratio
# 0.36-0.63 (mean 0.48, sd 0.08; JDK 17 lower than 25): the compared lines
# are those that load result[] (update's lines 77 and 82) and those the
# debug information places assign's stores at, not the arithmetic of the
# first pass's other lines (79 and 81), which HotSpot places apart. Least
# 0.2 (0.11 at the mean truth, 4.5 sd of wasp's spread under its mean),
# most 1 (the whole program fails by 6 sd of the truth). Where debug
# registers do not trap (a Firecracker guest, page protection) the lines
# were only those of the few trapped comparisons until 2026-11-30 (the
# births' were 99.5%), and wasp's ratio fell to 0.095-0.15 in 2 runs of 5;
# with the sampled accesses' places (replicas.places) there: wasp
# 0.215-0.259 against truths 0.313-0.374, a ratio 0.59-0.82 in 5 runs (JDK
# 17 and 25). Since 2026-12-01 the creating line counts too, and wasp's
# allocation callback no longer does (samples.in_wasp): wasp 0.29-0.37
# against truths 0.50-0.58, a ratio 0.58-0.70 in 6 runs (JDK 17 and 25).
#
# ReplicaRing, "line": the replicas' loop of their own (issue 40's test: a
# CPU share within its interval of the code's time): a line that makes a
# 256 KiB copy of a template and a line that reads it, the rest of a round
# arithmetic, the truth within each run ("truth: part-ns", as
# SilentStoreRefresh), the heap pre-touched (JVM_OPTS). 2026-12-01, the AMD
# EPYC KVM guest whose debug registers trap, beside a CI run: JDK 25 truth
# 0.381-0.418, wasp 0.366-0.436 (intervals +-0.028), wasp less the truth
# -0.027 to +0.028 in 8 runs (mean 0, sd 0.022), the truth inside wasp's
# interval in all; JDK 17 (not run by CI: the summary tests run on the
# newest JDK) truth 0.588-0.600, wasp 0.614-0.643, past the interval's end
# by at most 0.033 (the JVM's memset of the copies, under a watch). Counted
# wrong it fails: the copying line alone gave 0.20-0.30, the reading line
# alone 0.19-0.22 (JDK 25); until the replicas handler kept accesses'
# places per site, the reads of the tracked copies, outnumbered by the
# untracked ones', went unseen in 1 run of 3 and wasp gave 0.15-0.23.
#
# TableScan, "line", for objects and for silent loads: a table allocated
# once and summed whole each round on one line, every load silent, the rest
# of a round arithmetic, the truth within each run. 2026-12-01 (the same
# machine, debug registers): JDK 25 truth 0.513-0.519, wasp's silent loads
# 0.497-0.516 and hot object 0.484-0.526 (intervals +-0.023 and +-0.033),
# wasp less the truth -0.035 to +0.008 in 6 runs; JDK 17 truth 0.480-0.483,
# wasp 0.459-0.497: the truth inside wasp's interval in all 10. The loops'
# ratios, ObjectsStride's 0.96-0.98 and SilentLoadSearch's 0.89-0.98, are
# their index arithmetic and loop header, which the findings' code leaves
# out and their loops' time holds. Under page protection (forced here) the
# silent loads' share was 0.505 at the test budget of 50% (35% of the CPU
# in the kernel, which the perf sampler does not see) and 0.43-0.49 at 10%
# against truths of 0.48-0.52; at 10% as SilentStoreRefresh (WATCH_BUDGET),
# whose stores' faults raised its share on the Firecracker guests.
TRUTH_PAIRS = 3
TRUTH_BY_LEAST = {"ObjectsStride"}
# The JVM options a workload runs with, in its profile and its truth runs.
# AllocRing's heap is written once at start-up: on our Firecracker guests a
# first write to the heap's memory cost more than the creation (in the kernel,
# which the perf sampler does not see, and in user time, from 0.24 to 0.52 of
# the program's in one test's pairs); summary.kernel runs it without.
JVM_OPTS = {"AllocRing": ["-XX:+AlwaysPreTouch", "-Xms256m", "-Xmx256m"],
            "ReplicaRing": ["-XX:+AlwaysPreTouch", "-Xms256m", "-Xmx256m"]}

# By workload: (kind, the truth's sd, least, most).
TRUTH = {
    "ObjectsStride": ("loop", 0.005, 0.9, 1),
    "DeadStoreEuler": ("line", 0.04, None, None),
    "SilentStoreRefresh": ("line", 0.03, None, None),
    "SilentLoadSearch": ("body", 0.004, 0.8, 1),
    "LocksHot": ("lock", 0.03, None, None),
    "SilentStoreIS": ("ahead", 0.006, 1.1, 2.7),
    "AllocRing": ("line", 0.03, None, None),
    "AllocBytes": ("creation", 0.054, 0.05, 1),
    "ReplicaKMeans": ("readers", 0.042, 0.2, 1),
    "ReplicaRing": ("line", 0.025, None, None),
    "TableScan": ("line", 0.025, None, None),
}


def case_name(analysis, workload):
    """summary.<analysis> for an analysis's first case, summary.<workload>.<analysis>
    for the others (-k summary.<analysis> picks the first alone)."""
    first = next(w for a, w, _, _ in CASES if a == analysis)
    return "summary.%s" % (analysis if workload == first else workload + "." + analysis)


Times = collections.namedtuple("Times", "cpu before user user_before part")


def program_cpu(ctx, jdk, workload, args, repeat, jvm=()):
    """Times (seconds) of the workload's threads (main, and LocksHot's
    workers), run without the agent, its planted loop run `repeat` times:
    their CPU time and, where the workload prints them (AllocRing,
    ObjectsStride...), the main thread's CPU time before main() ran (else 0),
    both in user time alone (else None) and the planted code's own CPU time,
    measured within the run (LocksHot: "truth: part-ns"; else None)."""
    cmd = [jdk.java] + list(jvm) + ["-Dwasp.truth.repeat=%d" % repeat, "-cp", H.CLASSES,
                                    workload] + list(args)
    r = H.run(cmd)
    H.check(r.rc == 0, "%s exited %d: %s" % (" ".join(cmd), r.rc, H.tail(r.err)))

    def line(what):
        m = re.search(r"^truth: %s (\d+)$" % what, r.err, re.M)
        return int(m.group(1)) / 1e9 if m else None
    cpu = line("cpu-ns")
    H.check(cpu is not None, "%s printed no truth line: %s" % (workload, H.tail(r.err)))
    return Times(cpu, line("cpu-ns-before-main") or 0.0, line("user-ns"), line("user-ns-before-main"),
                 line("part-ns"))




def check_truth(ctx, jdk, analysis, workload, args, first):
    """wasp's CPU share of the first finding against the truth (TRUTH).
    Returns a note of both."""
    kind, sd, least, most = TRUTH[workload]
    jvm = JVM_OPTS.get(workload, ())
    first_run = program_cpu(ctx, jdk, workload, args, 1, jvm)
    if first_run.part is not None:
        # Measured within each run (the planted code and its twin without
        # the inefficiency, interleaved): the median of TRUTH_PAIRS runs.
        runs = [first_run] + [program_cpu(ctx, jdk, workload, args, 1, jvm)
                              for _ in range(TRUTH_PAIRS - 1)]
        shares = sorted(r.part / r.cpu for r in runs)
        truth = statistics.median(shares)
        detail = "median of %d runs %s, CPU %.2f s" % (
            len(runs), "/".join("%.3f" % x for x in shares), statistics.median(r.cpu for r in runs))
    else:
        # Three pairs, interleaved, and the medians: one pair's difference moved
        # with a neighbour's load (DeadStoreEuler's truth once 0.110, T0 2.19 s
        # against 2.46 s, where 17 runs had given 0.216-0.478).
        runs1, runs0 = [first_run], [program_cpu(ctx, jdk, workload, args, 0, jvm)]
        for _ in range(TRUTH_PAIRS - 1):
            runs1.append(program_cpu(ctx, jdk, workload, args, 1, jvm))
            runs0.append(program_cpu(ctx, jdk, workload, args, 0, jvm))
        t1s, t0s = [r.cpu for r in runs1], [r.cpu for r in runs0]
        pick = min if workload in TRUTH_BY_LEAST else statistics.median
        t1, t0 = pick(t1s), pick(t0s)
        before = statistics.median(r.before for r in runs1)
        truth = (t1 - t0) / (t1 - before)
        pairs = sorted((a - b) / (a - before) for a, b in zip(t1s, t0s))
        detail = "%s T1 %.2f s, T0 %.2f s%s; pairs %.3f-%.3f" % (
            pick.__name__, t1, t0, ", before main %.2f s" % before if before else "", pairs[0], pairs[-1])
    share, lo, hi = first["cpu_share"], first["cpu_low"], first["cpu_high"]
    H.check(share is not None, "the %s finding has no CPU share (truth %.3f: %s)" % (analysis, truth, detail))
    note = "CPU %.3f (%.3f-%.3f), truth %.3f (%s)" % (share, lo, hi, truth, detail)
    H.check(kind not in ("line", "body", "ahead", "creation") or first.get("cpu_estimate") is False,
            "the %s finding's CPU share is an estimate: the profile has no samples by line" % analysis)
    if kind in ("line", "lock"):
        shadow = LOCK_SHADOW if kind == "lock" else 0.0
        H.check(lo - 4 * sd <= truth <= hi + 4 * sd + shadow,
                "the CPU share is not the %s's: %s; 4 sd of the truth is %.3f%s" % (
                    kind, note, 4 * sd, ", and %.2f more above" % shadow if shadow else ""))
    else:
        H.check(lo <= most * (truth + 4 * sd),
                "the CPU share is over %g times the truth's: %s" % (most, note))
        H.check(share >= least * truth,
                "the CPU share is under %.2f of the truth's: %s" % (least, note))
    return note


def make_tests(h):
    global H
    H = h
    tests = [(case_name(a, w), (lambda a, w, args, extra: lambda c, j: t_first(c, j, a, w, args, extra))(
        a, w, args, extra)) for a, w, args, extra in CASES]
    return tests + [("summary.html", t_html), ("summary.few-samples", t_few_samples),
                    ("summary.thread", t_thread), ("summary.calls", t_calls),
                    ("summary.interpreted", t_interpreted),
                    ("summary.interpreted-runtime", t_interpreted_runtime),
                    ("summary.c1-runtime", t_c1_runtime),
                    ("summary.exceptions", t_exceptions),
                    ("summary.kernel", t_kernel)]


# SilentStoreRefresh's share is its refresh line's, whose stores the page
# engine's watches fault on: at PAGE_TEST_BUDGET (50%) its runs took
# 97,000-186,000 faults, 44-56% of the CPU in the kernel, and the refresh's
# share rose with them, 0.45 to 0.65 against a truth of 0.46-0.50 (JDK 25,
# 2026-11-30: each fault's return replays the store with its TLB entry and
# cache line cold, at the refresh's instructions). At 10% (a fifth of the
# faults, 8% in the kernel) the pair is still found first.
WATCH_BUDGET = {"SilentStoreRefresh": "10%", "TableScan": "10%"}


def watching(analysis, workload):
    """The budget the page engine's tests run with (run.py's PAGE_TEST_BUDGET,
    or WATCH_BUDGET's), for the analyses that watch memory: where the debug
    registers do not trap the page engine's default 2% arms a few samples a
    run, and a window on DeadStoreEuler's set-up stores took the top pair
    about once in 14 runs."""
    if analysis not in ("deadstore", "silentstore", "silentload"):
        return []
    return ["--watch-budget", WATCH_BUDGET.get(workload, H.PAGE_TEST_BUDGET)]


def profile(ctx, jdk, events, workload, args, extra, tag=None, jvm=None):
    """wasp run (the JVM options `jvm`, else JVM_OPTS's); returns (profile
    path, JSON report, text report)."""
    out = ctx.path("%s.wprof" % (tag or workload))
    jvm = JVM_OPTS.get(workload, []) if jvm is None else jvm
    cmd = [H.WASP, "run", "-e", events] + list(extra) + ["-o", out, "-q", "--", jdk.java] + \
        list(jvm) + ["-cp", H.CLASSES, workload] + list(args)
    r = H.run(cmd)
    with open(out + ".log", "w") as f:
        f.write("$ %s\n--- stdout\n%s\n--- stderr\n%s" % (" ".join(cmd), r.out, r.err))
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    rep = ctx.report(out)
    t = H.run([H.WASP, "report", out])
    H.check(t.rc == 0, "wasp report exited %d: %s" % (t.rc, H.tail(t.err)))
    return out, rep, t.out


def summary_of(rep, analysis):
    s = rep.get("summary")
    H.check(isinstance(s, dict), "the JSON report has no summary (has: %s)" % ", ".join(sorted(rep)))
    for a in s.get("analyses") or []:
        if a.get("analysis") == analysis:
            return s, a
    raise H.Fail("the summary has no %s (has: %s)" % (analysis, ", ".join(
        a.get("analysis") for a in s.get("analyses") or [])))


def text_findings(text, title):
    """The summary's finding lines under the heading `title`, and where the
    detail starts (the line "DETAIL"), as (lines, index of the heading,
    index of DETAIL)."""
    lines = text.splitlines()
    H.check("DETAIL" in lines, "the text report has no DETAIL line: %s" % H.tail(text, 20))
    detail = lines.index("DETAIL")
    start = [i for i, l in enumerate(lines) if l.startswith("SUMMARY:")]
    H.check(start and start[0] < detail, "the text report has no SUMMARY before its detail")
    H.check(title in lines[start[0]:detail], "the summary has no heading %r" % title)
    head = lines.index(title, start[0])
    found = []
    for l in lines[head + 1:detail]:
        if not re.match(r"  \d+\. ", l):
            break
        found.append(l)
    return found, head, detail


def where(f):
    return "%s:%s" % (f.get("file"), f.get("line"))


def t_first(ctx, jdk, analysis, workload, args, extra):
    """The planted line is the summary's first finding of its analysis, in
    JSON and text, and the summary precedes the detail."""
    e = H.expectation(workload, analysis)
    _, rep, text = profile(ctx, jdk, analysis, workload, args, list(extra) + watching(analysis, workload))
    s, a = summary_of(rep, analysis)
    H.check(a.get("findings"), "no %s finding in the summary (detail: %s)" % (analysis, H.tail(text, 30)))
    first = a["findings"][0]
    planted = "%s.java:%d" % (workload, e["line"])
    H.check(where(first) == planted and first.get("method") == e["method"],
            "the first %s finding is at %s in %s, expected %s in %s (the others: %s)"
            % (analysis, where(first), first.get("method"), planted, e["method"],
               ", ".join(where(f) for f in a["findings"][1:]) or "none"))
    lines, head, detail = text_findings(text, a["title"])
    H.check(lines, "no finding line under %r in the text summary" % a["title"])
    H.check("(%s)" % planted in lines[0] and lines[0].startswith("  1. %s(" % e["method"]),
            "the text summary's first %s line does not name %s: %r" % (analysis, planted, lines[0]))
    # Its cost in CPU: a share and its interval, or said not measured (a
    # profile without its figure: an older wasp's allocations).
    cpu = re.search(r"; (<?\d+\.\d)% of CPU \((<?\d+\.\d)\u2013(<?\d+\.\d)%\)", lines[0])
    if first.get("cpu_share") is None:
        H.check("CPU not measured" in lines[0], "no CPU figure and no word of it: %r" % lines[0])
    else:
        H.check(cpu, "the first line has no \"N%% of CPU (L\u2013H%%)\": %r" % lines[0])
        H.check(first["cpu_low"] <= first["cpu_share"] <= first["cpu_high"],
                "the CPU share %.4f is outside its interval %.4f-%.4f"
                % (first["cpu_share"], first["cpu_low"], first["cpu_high"]))
    # The detail (the analysis's own section) comes after the summary.
    H.check(head < detail < len(text.splitlines()) - 1, "nothing after the summary")
    truth = check_truth(ctx, jdk, analysis, workload, args, first) if workload in TRUTH else ""
    return "%s; %s%s" % (lines[0].strip()[:110], "%.0f samples" % first["samples"],
                         "; " + truth if truth else "")


# summary.calls: the place's line with the code it calls (docs/findings.md,
# "With the code it calls"). SilentStoreCalls's planted loop calls
# ArrayList.set, kept out of line, where all its stores and most of its time
# are; the truth is the loop's share of the program's CPU (with it and
# without it, no agent). Measured (2026-11-29, three runs each, debug
# registers, the defaults): truth 0.180-0.228; the line alone 0.007-0.028
# (JDK 17) and 0.087-0.108 (JDK 25); with the calls 0.110-0.132 (JDK 17)
# and 0.182-0.220 (JDK 25). The part the calls add, (with - line) / truth:
# 0.50-0.61 and 0.41-0.62 (mean 0.52, sd 0.08): at least CALLS_LEAST, 4 sd
# under it, which the line alone (0) or no estimate fails. A lower bound:
# its interval's low end not above the truth by more than 4 sd of the
# truth (0.015 a run): 0.95 of it at most seen; an estimate from the share
# of all armed samples under the place (100%: only the called code has
# stores) fails it by far.
CALLS_LEAST = 0.2
CALLS_TRUTH_SD = 0.015
CALLS_JVM = ["-XX:CompileCommand=quiet", "-XX:CompileCommand=dontinline,java/util/ArrayList.set"]


# summary.interpreted: samples in the interpreter count at the line it runs
# (docs/findings.md). DeadStoreEuler under -Xint, every method interpreted:
# its first sweep's lines (47, 48) against the truth, the program with the
# sweep and without it (also -Xint). Measured (2026-11-29, loaded machine,
# three runs each): wasp 0.354-0.370 (JDK 17) and 0.348-0.371 (JDK 25) of
# ~1,700-2,100 samples (sd ~0.011); truth (median of three pairs)
# 0.371-0.394 and 0.375-0.389, single pairs 0.29-0.445 (sd ~0.045, of the
# median ~0.03). Within XINT_TOLERANCE, 4 sd of the two together; the
# frame's saved bytecode index (every sample at line 45) or no count in the
# interpreter (0) fails by far.
# The truth is from the least CPU of XINT_TRUTH_RUNS runs each way, not the
# medians: interpreted, the program has no JIT modes, and what moves its CPU
# is only added time. Where debug registers do not trap (a Firecracker
# guest, 2026-11-30) a CI run's medians gave a truth of 0.171: the run
# without the sweep took 0.90-0.94 s in 2 of 10 runs where the others took
# 0.62-0.76 s; its least of 4 was 0.62-0.68 in every batch of 4 there.
XINT_STEPS = "15"
XINT_TOLERANCE = 0.13
XINT_TRUTH_RUNS = 4


def t_interpreted(ctx, jdk):
    """DeadStoreEuler's first sweep, interpreted, holds its share of the
    samples at its lines in summary.hot_lines."""
    out = ctx.path("DeadStoreEuler-Xint.wprof")
    r = H.run([H.WASP, "run", "-e", "deadstore", "-o", out, "-q", "--", jdk.java, "-Xint", "-cp",
               H.CLASSES, "DeadStoreEuler", XINT_STEPS])
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    rep = H.run([H.WASP, "report", "--format", "json", "--top", "100", out])
    H.check(rep.rc == 0, "wasp report exited %d: %s" % (rep.rc, H.tail(rep.err)))
    lines = json.loads(rep.out)["summary"]["hot_lines"]
    share = sum(l["share"] for l in lines
                if l["method"] == "DeadStoreEuler.calculateDamping" and l["line"] in (47, 48))
    t1s, t0s = [], []
    for _ in range(XINT_TRUTH_RUNS):
        t1s.append(program_cpu(ctx, jdk, "DeadStoreEuler", [XINT_STEPS], 1, ["-Xint"])[0])
        t0s.append(program_cpu(ctx, jdk, "DeadStoreEuler", [XINT_STEPS], 0, ["-Xint"])[0])
    t1, t0 = min(t1s), min(t0s)
    truth = (t1 - t0) / t1
    top = ", ".join("%s:%s %.3f" % (l["method"].split(".")[-1], l["line"], l["share"]) for l in lines[:4])
    note = "lines 47-48 %.3f, truth %.3f; top %s" % (share, truth, top)
    H.check(abs(share - truth) <= XINT_TOLERANCE, "the interpreted sweep's share is not its own: %s" % note)
    return note


# summary.interpreted-runtime: samples in the runtime the interpreter called
# count at the line of the call (docs/findings.md). InterpretedArrays under
# -Xint creates an int[4096] at its planted line, which the runtime zeroes
# (memset) while the thread's frame anchor has no pc yet; the truth is the
# program with the creations and without them (also -Xint), the least CPU
# of XINT_TRUTH_RUNS runs each way. Profiled with -e locks, which adds no
# work to the line (the pair analyses' watchpoints on memset's stores
# raised its share to 0.87, alloc's allocation sampling to 0.67). Measured
# (2026-12-01, the AMD EPYC guest whose debug registers trap, perf
# sampler): wasp 0.509-0.553 (JDK 25, 3 runs) and 0.519-0.534 (JDK 17, 2
# runs) of ~900 samples (binomial sd ~0.017); single truth pairs
# 0.465-0.558 (JDK 25). wasp less the truth in the test's own runs: +0.024,
# +0.032 (JDK 25), -0.064 (JDK 17), -0.072 (a CI run, loaded): sd ~0.05,
# more than the sibling's, since the truth is a difference of two runs
# whose creations miss the cache by how busy the machine is. So within
# XINT_RUNTIME_TOLERANCE, 4.4 of that sd; before the anchor's pc was filled
# in for the one-frame walk those samples were at no line (cpu.in_native)
# and the line held 0.024, 0.45 and more under the truth: it fails by 4 sd
# beyond the bound.
XINT_RUNTIME_TOLERANCE = 0.22
XINT_RUNTIME_ARGS = ["600"]
XINT_RUNTIME_JVM = ["-Xint", "-XX:+AlwaysPreTouch", "-Xms256m", "-Xmx256m"]
# summary.c1-runtime: the same through C1's runtime blob. CompiledArrays
# under -XX:TieredStopAtLevel=1 creates an int[200000] at its planted line
# (C1's new_type_array blob, which saves the registers in a frame of its
# own, then the runtime's memset) and an int[1][] on the next. Measured
# (2026-12-01, as above): truth 0.997-1.003 (the program with the arrays and
# with one made before the run: nearly all of it is the zeroing); wasp
# 0.950-0.957 (JDK 25) and 0.946 (JDK 17), the rest at the next line while
# the method is not yet published to the code map (up to 250 ms: at 30,000
# arrays, half as long a run, 0.894-0.916). Within XINT_TOLERANCE; before
# the walk went from the call that led to the blob, the planted line held
# 0.004 and the next 0.978, which fails by far. The truth is the zeroing
# alone, steady: the least of 2 runs each way (wasp less the truth -0.040
# to -0.055 in 4 runs, one of them CI's: 0.13 is 12 of its sd past them).
C1_RUNTIME_ARGS = ["60000"]
C1_TRUTH_RUNS = 2
C1_RUNTIME_JVM = ["-XX:TieredStopAtLevel=1", "-XX:+AlwaysPreTouch", "-Xms256m", "-Xmx256m"]


def runtime_line(ctx, jdk, workload, jvm, args, what, tolerance, truth_runs=XINT_TRUTH_RUNS):
    """The workload's samples at its planted line (summary.hot_lines, run
    with -e locks) against the truth, the program with its creations and
    without them (the least CPU of truth_runs runs each way)."""
    e = H.expectation(workload)
    out = ctx.path("%s-runtime.wprof" % workload)
    r = H.run([H.WASP, "run", "-e", "locks", "-o", out, "-q", "--", jdk.java] + jvm +
              ["-cp", H.CLASSES, workload] + args)
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    rep = H.run([H.WASP, "report", "--format", "json", "--top", "100", out])
    H.check(rep.rc == 0, "wasp report exited %d: %s" % (rep.rc, H.tail(rep.err)))
    doc = json.loads(rep.out)
    lines = doc["summary"]["hot_lines"]
    share = sum(l["share"] for l in lines if l["method"] == e["method"] and l["line"] == e["line"])
    runs = {1: [], 0: []}
    for _ in range(truth_runs):
        for repeat in (1, 0):
            runs[repeat].append(program_cpu(ctx, jdk, workload, args, repeat, jvm))
    t1 = min(runs[1], key=lambda t: t.cpu)
    t0 = min(r.cpu for r in runs[0])
    truth = (t1.cpu - t0) / (t1.cpu - t1.before)
    counters = doc.get("counters") or {}
    top = ", ".join("%s:%s %.3f" % (l["method"].split(".")[-1], l["line"], l["share"]) for l in lines[:3])
    note = "line %d %.3f, truth %.3f (T1 %.2f s, T0 %.2f s); top %s; cpu.via_caller %s, cpu.interpreted %s" % (
        e["line"], share, truth, t1.cpu, t0, top, counters.get("cpu.via_caller"),
        counters.get("cpu.interpreted"))
    H.check(abs(share - truth) <= tolerance, "%s is not the line's: %s" % (what, note))
    return note


def t_interpreted_runtime(ctx, jdk):
    """InterpretedArrays's creations, interpreted, hold their share of the
    samples at the planted line in summary.hot_lines."""
    return runtime_line(ctx, jdk, "InterpretedArrays", XINT_RUNTIME_JVM, XINT_RUNTIME_ARGS,
                        "the runtime's zeroing for the interpreted line", XINT_RUNTIME_TOLERANCE)


def t_c1_runtime(ctx, jdk):
    """CompiledArrays's creations, compiled by C1, hold their share of the
    samples at the planted line, not at the next line's allocation."""
    return runtime_line(ctx, jdk, "CompiledArrays", C1_RUNTIME_JVM, C1_RUNTIME_ARGS,
                        "the runtime's zeroing for the C1-compiled line", XINT_TOLERANCE,
                        C1_TRUTH_RUNS)


# summary.exceptions: the CPU filling in exceptions' stack traces, and where
# they are created (docs/findings.md, "Exceptions"). ExceptionFlow throws at
# two positions in five past the end, under a few frames of recursion; the
# truth is the program with stack traces and without them
# (-XX:-StackTraceInThrowable), no agent. Measured (2026-11-29, the
# defaults, debug registers, 12 runs, JDK 17 and 25, some beside other test
# runs): truth 0.427-0.519 (sd ~0.03), wasp 0.271-0.483, a ratio 0.63-0.91
# (mean 0.80, sd 0.085): the rest is the exception's construction and
# allocation, at their own lines, and the JVM's work for code still
# interpreted, at none (cpu.in_jvm). At least EXCEPTIONS_LEAST of the truth
# (4 sd of the ratios under their mean; none counted, 0, fails) and not
# over it by more than 4 sd of the truth (the whole program, 1, fails by
# far). The control, the same program with no stack traces (the native
# call made, no stack walked): 0.011-0.031; where debug registers do not
# trap (a Firecracker guest, 2026-11-30) 0.014-0.062 in 7 runs (mean 0.030,
# sd 0.016; a CI run failed the earlier bound of 0.05 at 0.062): under
# EXCEPTIONS_CONTROL, 4.4 of that sd over the mean; the share with stack
# traces (0.24-0.48) fails it by far. The
# place needs a sampled stack through fillInStackTrace, which armed samples
# give (debug registers: every run; the page engine arms a few a run).
EXCEPTIONS_LEAST = 0.45
EXCEPTIONS_TRUTH_SD = 0.03
EXCEPTIONS_CONTROL = 0.10
NO_TRACES = "-XX:-StackTraceInThrowable"


def exceptions_of(ctx, jdk, tag, jvm):
    """wasp run (the defaults) of ExceptionFlow: (summary.exceptions, text)."""
    out = ctx.path("%s.wprof" % tag)
    r = H.run([H.WASP, "run", "-o", out, "-q", "--", jdk.java] + jvm + ["-cp", H.CLASSES,
                                                                         "ExceptionFlow"])
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    e = ctx.report(out)["summary"].get("exceptions")
    H.check(e is not None, "no summary.exceptions in a profile with samples by line")
    t = H.run([H.WASP, "report", out])
    H.check(t.rc == 0, "wasp report exited %d: %s" % (t.rc, H.tail(t.err)))
    return e, t.out


def t_exceptions(ctx, jdk):
    """ExceptionFlow's exceptions: their stack traces' share of the CPU
    against the truth, created at the planted line; none without traces."""
    e = H.expectation("ExceptionFlow")
    got, text = exceptions_of(ctx, jdk, "ExceptionFlow", [])
    t1s, t0s = [], []
    for _ in range(TRUTH_PAIRS):
        t1s.append(program_cpu(ctx, jdk, "ExceptionFlow", [], 1)[0])
        t0s.append(program_cpu(ctx, jdk, "ExceptionFlow", [], 1, [NO_TRACES])[0])
    t1, t0 = statistics.median(t1s), statistics.median(t0s)
    truth = (t1 - t0) / t1
    share = got["cpu_share"]
    note = ("CPU %.3f (%.3f-%.3f) of %.0f samples, truth %.3f (median T1 %.2f s, T0 %.2f s); at %s:%s"
            % (share, got["cpu_low"], got["cpu_high"], got["samples"], truth, t1, t0,
               got.get("method"), got.get("line")))
    H.check(share >= EXCEPTIONS_LEAST * truth, "the exceptions' share is under %.2f of the truth: %s"
            % (EXCEPTIONS_LEAST, note))
    H.check(share <= truth + 4 * EXCEPTIONS_TRUTH_SD, "the exceptions' share is over the truth: %s" % note)
    if H.engine_verdict(jdk, "debugreg") is None or got.get("method") is not None:
        H.check(got.get("method") == e["method"] and got.get("line") == e["line"],
                "the exceptions are placed at %s:%s, expected %s:%d: %s"
                % (got.get("method"), got.get("line"), e["method"], e["line"], note))
        H.check("fill in exceptions' stack traces" in text and
                "under %s(ExceptionFlow.java:%d)" % (e["method"], e["line"]) in text,
                "the text summary does not say so: %s" % H.tail(text, 40))
    ctl, _ = exceptions_of(ctx, jdk, "ExceptionFlow-no-traces", [NO_TRACES])
    H.check(ctl["cpu_share"] < EXCEPTIONS_CONTROL,
            "without stack traces the exceptions still cost %.3f" % ctl["cpu_share"])
    return "%s; control %.3f" % (note, ctl["cpu_share"])


def t_calls(ctx, jdk):
    """The summary's silent store is at SilentStoreCalls's calling line, with
    an estimate with the code it calls near the truth where the line alone
    is a small part of it."""
    why = H.engine_verdict(jdk, "debugreg")
    if why:
        H.skip("the estimate rests on armed samples, which only debug registers give by the "
               "hundred: %s" % why)
    workload = "SilentStoreCalls"
    e = H.expectation(workload)
    out = ctx.path("%s.wprof" % workload)
    cmd = [H.WASP, "run", "--watch", "debugreg", "-o", out, "-q", "--", jdk.java] + CALLS_JVM + \
        ["-cp", H.CLASSES, workload]
    r = H.run(cmd)
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    rep = ctx.report(out)
    text = H.run([H.WASP, "report", out]).out
    _, a = summary_of(rep, "silentstore")
    H.check(a.get("findings"), "no silent-store finding in the summary")
    first = a["findings"][0]
    planted = "%s.java:%d" % (workload, e["line"])
    H.check(where(first) == planted, "the first silent store is at %s, expected %s"
            % (where(first), planted))
    w, lo, line = first.get("cpu_with_calls"), first.get("cpu_with_calls_low"), first["cpu_share"]
    H.check(w is not None, "no estimate with the calls: %s" % json.dumps(first)[:300])
    t1s, t0s = [], []
    for _ in range(TRUTH_PAIRS):
        t1s.append(program_cpu(ctx, jdk, workload, [], 1, CALLS_JVM)[0])
        t0s.append(program_cpu(ctx, jdk, workload, [], 0, CALLS_JVM)[0])
    t1, t0 = statistics.median(t1s), statistics.median(t0s)
    truth = (t1 - t0) / t1
    note = "line %.3f, with calls %.3f (%.3f-%.3f), truth %.3f" % (line, w, lo, first["cpu_with_calls_high"], truth)
    H.check((w - line) / truth >= CALLS_LEAST,
            "the calls add %.2f of the truth, under %.2f: %s" % ((w - line) / truth, CALLS_LEAST, note))
    H.check(lo <= truth + 4 * CALLS_TRUTH_SD, "the estimate is no lower bound: %s" % note)
    lines, _, _ = text_findings(text, a["title"])
    H.check(lines and "with the code it calls at least" in lines[0],
            "the text's first silent store says nothing of the calls: %r" % (lines[:1],))
    return note


# summary.kernel: the kernel's share of the profiled threads' CPU, which the
# perf and PMU samplers do not sample (docs/findings.md, "What the samples do
# not see"), against the same share without the agent. AllocRing without a
# pre-touched heap, KERNEL_ROUNDS thousand rounds (2.5 GiB of long[126], 3-4
# s here), profiled with -e alloc; the truth: its main thread's CPU in the
# kernel over its CPU from main() on (ThreadMXBean's CPU less user time), the
# median of TRUTH_PAIRS runs. Measured (2026-11-30, the Firecracker guest, JDK
# 25 and 17, the perf sampler, page protection), wasp less the truth in 19
# runs (one a CI run): -0.056 to +0.119 (mean 0.020, sd 0.044; truths
# 0.42-0.49, and 0.26 with a sixteenth of the creations a round): a single
# run's kernel time moves more than its truth's median. At most KERNEL_OFF
# apart (5.2 sd from the mean), which a share of 0 (none said) and the whole
# CPU both fail where the truth is over 0.25, as it was in every run here; the text must say it
# from a truth of 0.05, and the page (headless Chromium) with it. With the
# timer sampler the JSON says null and the text nothing: its samples count
# the kernel.
KERNEL_ROUNDS = "10"
KERNEL_OFF = 0.25


def t_kernel(ctx, jdk):
    prof, rep, text = profile(ctx, jdk, "alloc", "AllocRing", [KERNEL_ROUNDS], [], jvm=[])
    sampler = (rep.get("meta") or {}).get("sampler")
    kernel = rep["summary"].get("kernel_share")
    if sampler not in ("perf", "pmu"):
        H.check(kernel is None, "the %s sampler's summary gives a kernel share, %s" % (sampler, kernel))
        return "sampler %s: no kernel share (its samples count the kernel)" % sampler
    runs = [program_cpu(ctx, jdk, "AllocRing", [KERNEL_ROUNDS], 1) for _ in range(TRUTH_PAIRS)]
    truth = statistics.median(((r.cpu - r.before) - (r.user - r.user_before)) / (r.cpu - r.before)
                              for r in runs)
    note = "kernel %s of the CPU, %.3f without the agent" % (
        "none" if kernel is None else "%.3f" % kernel, truth)
    H.check(kernel is not None and abs(kernel - truth) <= KERNEL_OFF,
            "the summary's kernel share is not the program's: %s" % note)
    said = re.search(r"^  (\d+\.\d)% of the profiled threads' CPU ran in the kernel", text, re.M)
    H.check(truth < 0.05 or said, "the text summary does not say the kernel's share (%s)" % note)
    if said:  # the page says it in the same words
        import report_html
        report_html.H = H
        page = ctx.path("kernel.html")
        r = H.run([H.WASP, "report", "--format", "html", "-o", page, prof])
        H.check(r.rc == 0, "wasp report --format html exited %d: %s" % (r.rc, H.tail(r.err)))
        dom = report_html.browse(ctx, report_html.chromium(), page, ["--dump-dom"]).out
        shown = re.search(r'<p[^>]*data-kernel[^>]*>([^<]*)</p>', dom)
        H.check(shown and shown.group(1).startswith(said.group(1) + "% of the profiled threads"),
                "the page does not say the kernel's share the text says (%s%%): %s"
                % (said.group(1), shown.group(1) if shown else "no data-kernel paragraph"))
    return note


def t_html(ctx, jdk):
    """The page shows the summary first, its first finding at the planted
    line, and folds how it was measured."""
    import report_html
    report_html.H = H
    browser = report_html.chromium()
    workload = "DeadStoreEuler"
    e = H.expectation(workload)
    prof, rep, _ = profile(ctx, jdk, "deadstore", workload, [], watching("deadstore", workload), tag="summary-html")
    page = ctx.path("summary.html")
    r = H.run([H.WASP, "report", "--format", "html", "-o", page, prof])
    H.check(r.rc == 0, "wasp report --format html exited %d: %s" % (r.rc, H.tail(r.err)))
    dom = report_html.browse(ctx, browser, page, ["--dump-dom"]).out
    body = re.search(r"<body[^>]*>", dom)
    H.check(body and 'data-ready="1"' in body.group(0) and "data-errors" not in body.group(0),
            "the page's script did not finish, or failed: %s" % (body.group(0) if body else H.tail(dom)))
    h2 = re.findall(r"<h2[^>]*>([^<]*)</h2>", dom)
    H.check(h2 and h2[0] == "Summary", "the page's first h2 is %r, not Summary (all: %s)" % (
        h2[0] if h2 else None, h2))
    sections = [m.start() for m in re.finditer(r'<h2 data-analysis="', dom)]
    summary_at = dom.find('<section id="summary"')
    H.check(summary_at >= 0 and sections and summary_at < sections[0],
            "the summary is not before the analyses' sections")
    places = re.findall(r'<ol class="findings"><li data-place="([^"]*)"', dom)
    planted = "%s.java:%d" % (workload, e["line"])
    H.check(places and places[0] == planted, "the page's first finding is at %s, expected %s"
            % (places[0] if places else None, planted))
    measured = re.search(r'<details class="measured"[^>]*>', dom)
    H.check(measured and "open" not in measured.group(0) and measured.start() < sections[0],
            "how it was measured is not folded before the sections: %s"
            % (measured.group(0) if measured else "no such element"))
    H.check(measured.start() > summary_at, "how it was measured comes before the summary")
    return "first finding %s; %d sections after it" % (places[0], len(sections))


def t_few_samples(ctx, jdk):
    """Every finding resting on fewer samples than the threshold is marked,
    in the JSON and on its text line with its count."""
    # A run with no dead-store finding has nothing to check: 10-17 samples,
    # 4-13 armed, each armed one dead half the time, and one JDK 25 run
    # classified 2 pairs, neither dead. Up to FEW_TRIES runs, then.
    for attempt in range(FEW_TRIES):
        _, rep, text = profile(ctx, jdk, "deadstore", "DeadStoreEuler", [], ["--period", FEW_PERIOD],
                               tag="few-samples-%d" % attempt)
        s, a = summary_of(rep, "deadstore")
        findings = a.get("findings") or []
        if findings:
            break
    below = s.get("few_samples_below")
    H.check(isinstance(below, int) and below > 1, "few_samples_below is %r" % below)
    H.check(findings, "no dead-store finding in %d runs at --period %s (%s samples taken in the "
            "last): nothing to check" % (FEW_TRIES, FEW_PERIOD, rep["counters"].get("samples")))
    lines, _, _ = text_findings(text, a["title"])
    H.check(len(lines) == len(findings), "%d text lines for %d findings" % (len(lines), len(findings)))
    for f, line in zip(findings, lines):
        few = f["samples"] < below
        H.check(f["few_samples"] == few, "a finding on %.2f samples has few_samples %r" % (f["samples"], f["few_samples"]))
        unit = f.get("samples_unit")
        H.check(unit == "watched samples", "a dead-store finding's samples are %r, not watched samples" % unit)
        count = ("no %s" % unit if f["samples"] <= 0 else
                 "few %s: " % unit + ("under 1" if f["samples"] < 0.5 else "%.0f" % f["samples"]))
        if few:
            H.check(line.endswith("; %s" % count), "the line does not say %s: %r" % (count, line))
        else:
            H.check("few " not in line, "a finding on %.0f samples says few: %r" % (f["samples"], line))
    H.check(any(f["few_samples"] for f in findings), "at one sample per %s no finding is marked "
            "(samples: %s)" % (FEW_PERIOD, ", ".join("%.1f" % f["samples"] for f in findings)))
    return "%s samples taken; %s" % (rep["counters"].get("samples"), lines[0].strip()[:100])


def report_json(args, prof):
    r = H.run([H.WASP, "report", "--format", "json"] + list(args) + [prof])
    H.check(r.rc == 0, "wasp report %s exited %d: %s" % (" ".join(args), r.rc, H.tail(r.err)))
    return json.loads(r.out)


def places(rep, analysis):
    """The summary's findings of analysis, as file:line."""
    for a in (rep.get("summary") or {}).get("analyses") or []:
        if a.get("analysis") == analysis:
            return [where(f) for f in a.get("findings") or []]
    return []


def t_thread(ctx, jdk):
    """--thread keeps one thread's evidence; the threads are the stacks'
    roots, digits folded."""
    store, load = H.expectation("DeadStoreEuler"), H.expectation("SilentLoadSearch")
    dead = "DeadStoreEuler.java:%d" % store["line"]
    silent = "SilentLoadSearch.java:%d" % load["line"]
    # wasp run --thread: the report it prints keeps the loader's evidence, and
    # the threads are recorded (it implies --threads).
    prof = ctx.path("threads.wprof")
    cmd = [H.WASP, "run", "-e", "deadstore,silentload", "--thread", "loader*", "--format", "json",
           "-o", prof] + watching("deadstore", "ThreadsTwo") + ["--", jdk.java, "-cp", H.CLASSES, "ThreadsTwo"]
    r = H.run(cmd)
    with open(prof + ".log", "w") as f:
        f.write("$ %s\n--- stderr\n%s" % (" ".join(cmd), r.err))
    H.check(r.rc == 0, "wasp run --thread exited %d: %s" % (r.rc, H.tail(r.err)))
    printed = json.loads(r.out[r.out.index("{"):])
    rep = ctx.report(prof)
    # Unfiltered, the storer's loads outrank the loader's in the summary's top
    # three (seen once in 6 runs): only the dead store is sure to be there.
    H.check(dead in places(rep, "deadstore"), "unfiltered, the summary lacks the dead store at %s: "
            "%s" % (dead, places(rep, "deadstore")))
    c = H.run([H.WASP, "report", "--format", "collapsed", "--analysis", "all", "--side", "all", prof])
    H.check(c.rc == 0, "wasp report --format collapsed exited %d: %s" % (c.rc, H.tail(c.err)))
    roots = set(re.findall(r"\[thread ([^\]]*)\]", c.out))
    H.check({"storer-#", "loader-#"} <= roots, "the stacks' thread roots are %s, expected storer-# "
            "and loader-# among them" % sorted(roots))
    storer = report_json(["--thread", "storer-#"], prof)
    s_dead, s_silent = places(storer, "deadstore"), places(storer, "silentload")
    H.check(s_dead[:1] == [dead], "--thread storer-#: the first dead store is at %s, expected %s"
            % (s_dead[:1], dead))
    H.check(not any(p.startswith("SilentLoadSearch.java") for p in s_silent),
            "--thread storer-#: the loader's loads are shown: %s" % s_silent)
    loader = report_json(["--thread", "loader*"], prof)
    l_dead, l_silent = places(loader, "deadstore"), places(loader, "silentload")
    H.check((places(printed, "deadstore"), places(printed, "silentload")) == (l_dead, l_silent),
            "wasp run --thread loader* printed %s, wasp report --thread loader* %s"
            % ((places(printed, "deadstore"), places(printed, "silentload")), (l_dead, l_silent)))
    H.check(l_silent[:1] == [silent], "--thread loader*: the first silent load is at %s, expected %s"
            % (l_silent[:1], silent))
    H.check(not any(p.startswith("DeadStoreEuler.java") for p in l_dead),
            "--thread loader*: the storer's dead stores are shown: %s" % l_dead)
    # A profile recorded without --threads: refused, naming the option.
    plain = ctx.path("plain.wprof")
    r = H.run([H.WASP, "run", "-e", "alloc", "-o", plain, "-q", "--", jdk.java, "-version"])
    H.check(r.rc == 0, "wasp run -e alloc -- java -version exited %d: %s" % (r.rc, H.tail(r.err)))
    r = H.run([H.WASP, "report", "--thread", "main", plain])
    H.check(r.rc == 2 and "--thread" in r.err and "--threads" in r.err,
            "--thread on a profile without threads: exit %d, %r" % (r.rc, H.tail(r.err)))
    return "roots %s; storer: %s; loader: %s" % (sorted(roots), s_dead[:1], l_silent[:1])
