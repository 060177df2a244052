"""Integration tests of production sessions (issue 37): many attach/detach
cycles on one JVM, each profile holding its own session only.

Not run on its own: tests/integration/run.py imports this module and calls

    sessions.make_tests(sys.modules[__name__])

which returns [(name, thunk(ctx, jdk))] to run on every JDK. `h` is run.py's
module; the helpers used from it: check, tail, run, run_attached, counter, samples_due,
analysis, expectation, leaf, at, where, kill_group, Lines, mechanism_cmd,
WASP, AGENT, CLASSES, MIN_SAMPLES,
ROOT, TIMEOUT, MIN_PAIRS, PLANTED_SHARE, PAGE_TEST_BUDGET, and Ctx (path,
report).
"""

import json
import os
import resource
import signal
import subprocess
import time

H = None  # run.py's module, set by make_tests

# The analyses of each cycle, in turn: a second attach with an analysis the
# first did not run once killed the JVM (alloc after deadstore: its per-thread
# state was assumed, not created).
CYCLES = ["deadstore", "alloc", "all", "objects,replicas", "fields,locks"]
CYCLE_SECONDS = 3


def make_tests(h):
    """[(name, thunk(ctx, jdk))]; h is run.py's module (sys.modules[__name__])."""
    global H
    H = h
    return [("sessions.cycles", t_cycles),
            ("sessions.snapshot-kill", t_snapshot_kill),
            ("sessions.exit-oom", lambda c, j: t_exit(c, j, "oom", 3, "ExitOnOutOfMemoryError")),
            ("sessions.exit-halt", lambda c, j: t_exit(c, j, "halt", 5, "exited")),
            ("sessions.exit-thread", lambda c, j: t_exit(c, j, "exit-thread", 4, "exited")),
            ("sessions.dump", t_dump),
            ("sessions.folds", t_folds),
            ("sessions.bounded", t_bounded),
            ("sessions.fd-budget", t_fd_budget)]


def session_numbers(rep):
    m = rep["meta"]
    return {
        "threads": int(m.get("threads") or 0),
        "cpu": float(m.get("cpu_seconds") or 0),
        "wall": float(m.get("duration_seconds") or 0),
        "period_us": float(m.get("period_us") or 0),
        # Taken, and left out by the page engine's pacing while its budget
        # was spent (deadstore on the page engine at its 2%: 345 taken,
        # 2,319 paced out of 2,985 due).
        "samples": int(H.samples_due(rep)),
    }


def t_cycles(ctx, jdk):
    """Five attach/detach cycles on one JVM, each with other analyses: the JVM
    lives and computes correct results, exits with its own code, and each
    profile holds its session only: CPU within wall time x CPUs (and within
    half again its seconds: AttachTarget keeps one thread busy), as
    many threads as the first session saw (the program starts none), and no
    more samples than the period allows for that CPU time."""
    cpus = os.cpu_count() or 1
    outs = [ctx.path("cycle%d.wprof" % i) for i in range(len(CYCLES))]

    def during(p):
        reps = []
        for events, out in zip(CYCLES, outs):
            r = H.run([H.WASP, "attach", "-d", str(CYCLE_SECONDS), "-e", events, "-o", out, "-q",
                       str(p.pid)])
            H.check(p.poll() is None, "the JVM died during the -e %s session: %s"
                    % (events, H.tail(r.err)))
            H.check(r.rc == 0, "wasp attach -e %s exited %d: %s" % (events, r.rc, H.tail(r.err)))
            reps.append(ctx.report(out))
        return reps

    reps, done = H.run_attached(jdk, during)
    first = session_numbers(reps[0])
    H.check(first["samples"] >= 300, "only %d samples due in the first session" % first["samples"])
    notes = []
    for events, rep in zip(CYCLES, reps):
        n = session_numbers(rep)
        # duration_seconds is whole seconds: one more for its rounding.
        wall = max(n["wall"], CYCLE_SECONDS) + 1
        H.check(n["cpu"] <= wall * cpus,
                "-e %s: %.1f s of CPU in %.0f s on %d CPUs" % (events, n["cpu"], n["wall"], cpus))
        # One busy thread: a session's CPU is at most its seconds, 3.0 s in
        # every CI run's, down to 1.7 s when the machine was busy. Earlier
        # sessions added in would give twice that and more by the third
        # session even then (3 x 1.7 s). Against half again the first
        # session's CPU instead, a busy first session failed a later idle one:
        # with two busy loops over the first session only, 2.2, 2.1, 2.4 and
        # 2.0 s then 3.0 s in four runs: 1.25-1.50 of the 1.5 allowed.
        H.check(n["cpu"] <= 1.5 * max(n["wall"], CYCLE_SECONDS),
                "-e %s: %.1f s of CPU in a %.0f s session of one busy thread (the first %.1f s; "
                "earlier sessions added in?)" % (events, n["cpu"], max(n["wall"], CYCLE_SECONDS),
                                                 first["cpu"]))
        H.check(0 < n["threads"] <= first["threads"],
                "-e %s: %d threads, the first session %d" % (events, n["threads"], first["threads"]))
        H.check(n["period_us"] > 0, "-e %s: no period in the profile" % events)
        allowed = n["cpu"] * 1e6 / n["period_us"]
        # A sampler cannot fire more often than its period of CPU time; 20%
        # and 50 samples for the CPU clock read at the thread's end.
        H.check(n["samples"] <= 1.2 * allowed + 50,
                "-e %s: %d samples, %.0f s of CPU at %.0f us allows %.0f"
                % (events, n["samples"], n["cpu"], n["period_us"], allowed))
        H.check(n["samples"] >= 0.5 * allowed,
                "-e %s: %d samples, %.0f s of CPU at %.0f us should give ~%.0f"
                % (events, n["samples"], n["cpu"], n["period_us"], allowed))
        notes.append("%s %d/%.1fs/%dt" % (events, n["samples"], n["cpu"], n["threads"]))
    return "; ".join(notes) + "; then " + done


# ExitPaths runs DeadStoreEuler's planted dead stores: the profile of any of
# its ends must still blame that pair. Whatever engine proves itself here
# (the page engine where debug registers do not trap) gets the page tests'
# budget, so a few seconds give hundreds of pairs. The ends run EXIT_STEPS
# thousand steps first: at 300 (1.5-2 s) the page engine armed only 59-83
# samples, and the estimated pairs spread 240-794 (JDK 25), one CI run 40
# against MIN_PAIRS' 100; three times the steps triples the mean and not
# the spread's relative width as much.
EXIT_STEPS = "900"


def run_flags():
    return ["-e", "deadstore", "--watch-budget", H.PAGE_TEST_BUDGET]


def check_planted(rep, what):
    """The planted dead-store pair on top, with enough pairs to mean it."""
    a = H.analysis(rep, "deadstore")
    e = H.expectation("DeadStoreEuler")
    H.check(a["pairs_classified"] >= H.MIN_PAIRS, "%s: only %.0f dead-store pairs (need >= %d)"
            % (what, a["pairs_classified"], H.MIN_PAIRS))
    pairs = a["pairs"]
    H.check(pairs, "%s: no dead-store pair" % what)
    top = H.leaf(pairs[0].get("watch"))
    H.check(H.at(top, e["method"], e["line"]), "%s: top pair watched at %s, expected %s:%d"
            % (what, H.where(top), e["method"], e["line"]))
    return a


def t_exit(ctx, jdk, mode, code, ended_word):
    """A JVM that ends without returning from main (ExitOnOutOfMemoryError's
    immediate exit, Runtime.halt, System.exit from another thread) still
    writes its profile, and the profile says how the JVM ended."""
    out = ctx.path("exit-%s.wprof" % mode)
    r = H.run([H.WASP, "run"] + run_flags() + ["-o", out, "-q", "--", jdk.java, "-Xmx64m",
                                                "-XX:+ExitOnOutOfMemoryError", "-cp", H.CLASSES,
                                                "ExitPaths", mode, EXIT_STEPS])
    H.check(r.rc == code, "wasp run exited %d, the program's own code is %d: %s"
            % (r.rc, code, H.tail(r.err)))
    H.check(os.path.exists(out), "no profile after %s: %s" % (mode, H.tail(r.err)))
    rep = ctx.report(out)
    m = rep["meta"]
    H.check("snapshot" not in m, "the profile after %s is marked a snapshot: %r"
            % (mode, m.get("snapshot")))
    H.check(ended_word in (m.get("ended") or ""), "the profile says it ended %r, expected %r in it"
            % (m.get("ended"), ended_word))
    a = check_planted(rep, mode)
    return "%.0f pairs; ended: %s" % (a["pairs_classified"], m.get("ended"))


def profile_writes(path, since_ns):
    """The profile's modification time, if it was written after since_ns."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns if st.st_mtime_ns > since_ns else None


def t_snapshot_kill(ctx, jdk):
    """--snapshot 1s, then SIGKILL after three snapshots: the last snapshot is
    the profile, says it is one, and holds the planted pair."""
    out = ctx.path("snapshot-kill.wprof")
    cmd = H.mechanism_cmd([H.WASP, "run"] + run_flags() + ["--snapshot", "1s", "-o", out, "-q",
                                                          "--", jdk.java, "-cp", H.CLASSES,
                                                          "ExitPaths", "forever", "300"])
    p = subprocess.Popen(cmd, cwd=H.ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        lines = H.Lines(p)
        H.check(lines.until(lambda l: l == "ready", H.TIMEOUT) == "ready", "no 'ready'")
        # Three snapshots written after "ready": each rewrites the file (a
        # condition polled, with a deadline, not a sleep that stands for one).
        seen, last = 0, time.time_ns()
        deadline = time.monotonic() + 60
        while seen < 3:
            H.check(time.monotonic() < deadline, "only %d snapshots within 60 s" % seen)
            H.check(p.poll() is None, "wasp run ended before the kill")
            written = profile_writes(out, last)
            if written:
                seen, last = seen + 1, written
            time.sleep(0.05)
        pid = int(float(ctx.report(out)["meta"]["pid"]))
        os.kill(pid, signal.SIGKILL)
        p.wait(timeout=H.TIMEOUT)
    finally:
        H.reap(p)
    rep = ctx.report(out)
    H.check("snapshot" in rep["meta"], "the profile left after SIGKILL is not marked a snapshot")
    a = check_planted(rep, "after SIGKILL")
    return "%.0f pairs in the last snapshot" % a["pairs_classified"]


def dump_numbers(rep):
    """Samples due (the page engine's pacing included: 462 taken in the
    first dump under it here) and pairs."""
    a = H.analysis(rep, "silentload")
    return int(H.samples_due(rep)), a["pairs_classified"]


def t_dump(ctx, jdk):
    """wasp dump twice while a JVM started with the agent runs: each dump
    renders and holds the planted silent loads; the second holds at least
    the first's samples and as many again (the session so far, not the
    time since the first);
    the program runs on, and its final profile, written at its normal exit,
    holds at least the second's and is no snapshot."""
    out = ctx.path("dump-final.wprof")
    dumps = [ctx.path("dump1.wprof"), ctx.path("dump2.wprof")]
    agent = "-agentpath:%s=events=silentload,watch-budget=%s,file=%s" % (
        H.AGENT, H.PAGE_TEST_BUDGET, out)
    p = subprocess.Popen(H.mechanism_cmd([jdk.java, agent, "-cp", H.CLASSES, "AttachTarget"]),
                         cwd=H.ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    numbers = []
    try:
        lines = H.Lines(p)
        H.check(lines.until(lambda l: l == "ready", H.TIMEOUT) == "ready", "no 'ready'")
        for path in dumps:
            # Units of work (a line each, a few ms) for 2 s between dumps:
            # ~2,000 samples due at the default period.
            until = time.monotonic() + 2.0
            while time.monotonic() < until:
                line = lines.until(lambda l: l.startswith("tick"), H.TIMEOUT)
                H.check(line.endswith(" ok"), "the JVM computed a wrong result: %s" % line)
            r = H.run([H.WASP, "dump", "-q", "-o", path, str(p.pid)])
            H.check(r.rc == 0, "wasp dump exited %d: %s" % (r.rc, H.tail(r.err)))
            H.check("profiling goes on" in r.err, "wasp dump did not say so: %s" % H.tail(r.err))
            rep = ctx.report(path)
            H.check("snapshot" in rep["meta"], "%s is not marked a snapshot" % path)
            numbers.append(dump_numbers(rep))
        line = lines.until(lambda l: l.startswith("tick"), H.TIMEOUT)
        H.check(line.endswith(" ok"), "after the dumps the JVM computed a wrong result: %s" % line)
        p.stdin.write(b"stop\n")
        p.stdin.flush()
        lines.until(lambda l: l.startswith("done"), H.TIMEOUT)
        H.check(p.wait(timeout=H.TIMEOUT) == 0, "the JVM exited %s" % p.returncode)
    finally:
        H.reap(p)
    rep = ctx.report(out)
    H.check("snapshot" not in rep["meta"], "the final profile is marked a snapshot")
    final = dump_numbers(rep)
    (s1, p1), (s2, p2) = numbers
    H.check(s1 >= H.MIN_SAMPLES, "the first dump has only %d samples" % s1)
    # Each dump follows as much work as the last: the session so far is
    # about twice the first dump, the time since it (a dump that took the
    # samples away) about the same.
    H.check(s2 >= 1.4 * s1 and p2 >= p1, "the second dump (%d samples, %.0f pairs) does not hold "
            "the first's (%d, %.0f) and as much again" % (s2, p2, s1, p1))
    H.check(final[0] >= s2 and final[1] >= p2, "the final profile (%d samples, %.0f pairs) holds "
            "less than the second dump (%d, %.0f)" % (final[0], final[1], s2, p2))
    H.check(final[1] >= H.MIN_PAIRS, "only %.0f silent-load pairs in the final profile" % final[1])
    return "samples %d, %d, final %d; pairs %.0f, %.0f, final %.0f" % (
        s1, s2, final[0], p1, p2, final[1])


# DeepPaths: stacks of ~150 frames, nearly every one new. A thread's records
# hold 196,608 frames: without folds they fill after ~1,300 walks and the
# rest are dropped (54% of 2,800 walks in 16 s, before folds existed).
# The seconds are DeepPaths' CPU time (at most twice as many of the clock):
# 16 s of the clock gave 2,702-3,752 walks in five CI runs but 2,024 and
# 2,251 beside a CI run and two busy loops, of the 1,573 sessions.folds
# needs (1.2 times the records), the walks coming at a CPU-time period.
# 14 s of CPU: as long as 16 of the clock under CI's load, and as many
# walks however loaded the machine. Where debug registers do not trap
# (2026-11-30, a Firecracker guest on AMD EPYC) 14 s at 1 ms gave 1,036-1,297
# walks on JDK 17 in five runs, one of them CI's (JDK 25: 3,188): only 10% of
# the samples landed on an instruction with a memory operand, and only those
# are the objects analysis's and walked. A 500 us period did not help (the
# sampler backed off to 1 ms within the run); 28 s gave 2,032-2,084 walks
# (three runs), only 1.3 times the 1,573 needed, against a spread of ~100
# walks a 14-s run. So DeepPaths runs 36 s of CPU: ~2,600 walks there,
# ~1,000 (5 sd of a 36-s run's spread at the least) above the need; and
# sessions.bounded, whose 14 s there left ~1,100 contexts against its bound
# of 1,000 (one CI run never pruned), gets as many.
DEEP_LEVELS, DEEP_SECONDS = 150, 36


def t_folds(ctx, jdk):
    """A program whose stacks fill a thread's tables within seconds loses no
    sample for room: the agent folds the records into the profile when a
    table is half full (profile.folds), dropped.table_full stays under 1% of
    the walks, and the samples keep their whole stacks."""
    out = ctx.path("folds.wprof")
    r = H.run([H.WASP, "run", "-e", "objects", "--period", "1ms", "-o", out, "-q", "--",
               jdk.java, "-Xss8m", "-cp", H.CLASSES, "DeepPaths", str(DEEP_LEVELS),
               str(DEEP_SECONDS)])
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    rep = ctx.report(out)
    c = rep["counters"]
    walks, full, folds = c.get("stack.walks", 0), c.get("dropped.table_full", 0), c.get("profile.folds", 0)
    frames = walks * DEEP_LEVELS
    H.check(frames > 1.2 * 196608, "only %d walks: too few to fill a thread's records (%d frames)"
            % (walks, frames))
    H.check(folds >= 1, "no fold in a run whose stacks fill the records (%d walks)" % walks)
    H.check(full <= 0.01 * walks, "%d samples dropped for room of %d walks" % (full, walks))
    site = (rep.get("objects") or {}).get("sites") or []
    H.check(site, "no objects site")
    accesses = site[0].get("accesses") or []
    H.check(accesses, "the top site has no access contexts")
    shallow = [a for a in accesses if len(a.get("frames") or []) < DEEP_LEVELS // 2]
    share = sum(a["share"] for a in shallow) / max(1e-9, sum(a["share"] for a in accesses))
    H.check(share < 0.05, "%.0f%% of the top site's accesses have fewer than %d frames (stacks "
            "lost?): %s" % (100 * share, DEEP_LEVELS // 2,
                            shallow and (shallow[0].get("frames") or [{}])[:1]))
    return "%d walks, %d folds, %d dropped for room, %d contexts" % (walks, folds, full, len(accesses))


# The bound on a session's profile. DeepPaths' samples each bring a new
# access context to the objects analysis (no watchpoint involved, so the
# same on either engine): 1,992-2,800 distinct contexts in 16 s unbounded
# at a 1 ms period (sessions.folds); at 500 us with --max-contexts 1000 and a
# snapshot a second, 2-3 prunings and 1,247-1,650 contexts pruned on a
# machine shared with four test runs (1 and 538 at 1 ms).
BOUND = 1000
PRUNED_FRAME = "[lighter contexts, merged to bound wasp's memory]"


def frames_key(x):
    return json.dumps(x.get("frames") or [], sort_keys=True)


def t_bounded(ctx, jdk):
    """A session whose every stack is new keeps at most --max-contexts
    contexts: the lightest are merged into one entry per kind (the agent
    says so, in a counter and a report warning), and every total stays
    exact (a site's access samples still sum to the site's)."""
    out = ctx.path("bounded.wprof")
    r = H.run([H.WASP, "run", "-e", "objects", "--period", "500us", "--snapshot", "1s",
               "--max-contexts", str(BOUND), "-o", out, "--", jdk.java, "-Xss8m", "-cp",
               H.CLASSES, "DeepPaths", str(DEEP_LEVELS), str(DEEP_SECONDS)])
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    prunings = r.err.count("passed max-contexts=%d" % BOUND)
    rep = ctx.report(out)
    sites = (rep.get("objects") or {}).get("sites") or []
    H.check(sites, "no objects site")
    contexts = {frames_key(a) for s in sites for a in s.get("accesses") or []}
    contexts |= {frames_key(s["allocation"]) for s in sites if s.get("allocation")}
    H.check(prunings >= 1, "the agent never pruned in %d s of CPU of new stacks" % DEEP_SECONDS)
    H.check(len(contexts) <= BOUND, "%d distinct contexts in the sites, bound %d"
            % (len(contexts), BOUND))
    pruned = rep["counters"].get("profile.pruned_contexts", 0)
    H.check(pruned >= BOUND // 4, "profile.pruned_contexts %d" % pruned)
    merged = [a for s in sites for a in s.get("accesses") or []
              if [f.get("method") for f in a.get("frames") or []] == [PRUNED_FRAME]]
    H.check(merged, "no access context is %s" % PRUNED_FRAME)
    for s in sites:
        total = sum(a["samples"] for a in s.get("accesses") or [])
        H.check(abs(total - s["samples"]) <= 1e-6 * max(1.0, total) + 1e-6,
                "site %s: its accesses hold %.3f samples, the site %.3f"
                % (s.get("class"), total, s["samples"]))
    H.check(any("max-contexts" in w for w in rep.get("warnings") or []),
            "no report warning about the bound: %s" % rep.get("warnings"))
    share = sum(a["samples"] for a in merged) / max(1e-9, sum(s["samples"] for s in sites))
    return "%d prunings, %d contexts in the sites, %d pruned, the merged entries %.0f%% of the " \
           "samples" % (prunings, len(contexts), pruned, 100 * share)


# FdHungry under an open-file limit of FD_LIMIT: FD_THREADS threads, more
# than the limit even at one descriptor a thread (the perf sampler's; five
# with debug registers), and rounds of FD_HOLD files held open at once.
FD_LIMIT, FD_THREADS, FD_HOLD = 2048, 2200, 1200


def t_fd_budget(ctx, jdk):
    """wasp attached to a JVM with more threads than its open-file limit
    allows events for: the program's own opens never fail (before the
    budget, 400 threads under 2,048 took 2,006 descriptors and 569 of 600
    opens failed, "Too many open files"), wasp holds at most a quarter of
    the descriptors, says so once when it attaches and in the report's
    warnings with the threads it left out, and gives every descriptor back
    at the detach."""
    out = ctx.path("fd-budget.wprof")

    def limited():
        resource.setrlimit(resource.RLIMIT_NOFILE, (FD_LIMIT, FD_LIMIT))

    p = subprocess.Popen([jdk.java, "-Xss256k", "-cp", H.CLASSES, "FdHungry", str(FD_THREADS),
                          str(FD_HOLD)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, preexec_fn=limited, start_new_session=True)
    try:
        lines = H.Lines(p)
        H.check(lines.until(lambda l: l == "ready", H.TIMEOUT) == "ready", "no 'ready'")

        def fds():
            return len(os.listdir("/proc/%d/fd" % p.pid))

        def round_(tag):
            p.stdin.write(tag.encode() + b"\n")
            p.stdin.flush()
            got = lines.until(lambda l: l.startswith("round " + tag), H.TIMEOUT)
            H.check(got is not None, "no answer to round %s" % tag)
            return int(got.split()[-1])

        H.check(round_("before") == 0, "the program's opens failed before any attach")
        before = fds()
        r = H.run([H.WASP, "attach", "-e", "deadstore", "-o", out, str(p.pid)])
        H.check(r.rc == 0, "wasp attach exited %d: %s" % (r.rc, H.tail(r.err)))
        held = fds() - before
        failed = round_("attached")
        H.check(failed == 0, "%d of the program's %d opens failed while wasp held %d "
                "descriptors" % (failed, FD_HOLD, held))
        # a quarter of those free, and its log (at most 8 beside the events)
        H.check(held <= FD_LIMIT // 4 + 8, "wasp held %d descriptors, more than a quarter of %d"
                % (held, FD_LIMIT))
        H.check("are not profiled while wasp's events hold" in r.err and
                "open-file limit %d" % FD_LIMIT in r.err,
                "wasp attach does not say it left threads out: %s" % H.tail(r.err))
        d = H.run([H.WASP, "detach", "-q", str(p.pid)])
        H.check(d.rc == 0, "wasp detach exited %d: %s" % (d.rc, H.tail(d.err)))
        # Kept after a detach: the session's log and the libraries' symbol
        # files elfutils read (docs/overhead.md, "Long runs": 7 at most).
        H.check(fds() - before <= 8, "%d descriptors still held after the detach"
                % (fds() - before))
        H.check(round_("detached") == 0, "the program's opens failed after the detach")
        p.stdin.write(b"stop\n")
        p.stdin.flush()
        H.check(p.wait(timeout=H.TIMEOUT) == 0, "FdHungry exited %s" % p.returncode)
    finally:
        H.reap(p)
    rep = ctx.report(out)
    refused = H.counter(rep, "threads.fd_budget")
    profiled = int(rep["meta"].get("threads") or 0)
    H.check(refused >= FD_THREADS - FD_LIMIT // 4, "only %d threads left out" % refused)
    H.check(profiled <= FD_LIMIT // 4, "%d threads profiled" % profiled)
    warning = rep["meta"].get("warning.fd_budget", "")
    H.check(("%d threads were not profiled" % refused) in warning,
            "the report's warning does not count them: %r" % warning)
    return "held %d descriptors, %d threads profiled, %d left out" % (held, profiled, refused)
