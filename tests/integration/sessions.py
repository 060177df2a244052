"""Integration tests of production sessions (issue 37): many attach/detach
cycles on one JVM, each profile holding its own session only.

Not run on its own: tests/integration/run.py imports this module and calls

    sessions.make_tests(sys.modules[__name__])

which returns [(name, thunk(ctx, jdk))] to run on every JDK. `h` is run.py's
module; the helpers used from it: check, tail, run, run_attached, counter,
WASP, and Ctx (path, report).
"""

import os

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
    return [("sessions.cycles", t_cycles)]


def session_numbers(rep):
    m = rep["meta"]
    return {
        "threads": int(m.get("threads") or 0),
        "cpu": float(m.get("cpu_seconds") or 0),
        "wall": float(m.get("duration_seconds") or 0),
        "period_us": float(m.get("period_us") or 0),
        "samples": int(H.counter(rep, "samples")),
    }


def t_cycles(ctx, jdk):
    """Five attach/detach cycles on one JVM, each with other analyses: the JVM
    lives and computes correct results, exits with its own code, and each
    profile holds its session only: CPU within wall time x CPUs (and within
    half again the first session's: AttachTarget keeps one thread busy), as
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
    H.check(first["samples"] >= 300, "only %d samples in the first session" % first["samples"])
    notes = []
    for events, rep in zip(CYCLES, reps):
        n = session_numbers(rep)
        # duration_seconds is whole seconds: one more for its rounding.
        wall = max(n["wall"], CYCLE_SECONDS) + 1
        H.check(n["cpu"] <= wall * cpus,
                "-e %s: %.1f s of CPU in %.0f s on %d CPUs" % (events, n["cpu"], n["wall"], cpus))
        H.check(n["cpu"] <= 1.5 * first["cpu"],
                "-e %s: %.1f s of CPU, the first session %.1f s (earlier sessions added in?)"
                % (events, n["cpu"], first["cpu"]))
        H.check(0 < n["threads"] <= first["threads"],
                "-e %s: %d threads, the first session %d" % (events, n["threads"], first["threads"]))
        H.check(n["period_us"] > 0, "-e %s: no period in the profile" % events)
        allowed = n["cpu"] * 1e6 / n["period_us"]
        # A sampler cannot fire more often than its period of CPU time; 20%
        # and 50 samples for the CPU clock read at the thread's end.
        H.check(n["samples"] <= 1.2 * allowed + 50,
                "-e %s: %d samples, %.0f s of CPU at %.0f us allows %.0f"
                % (events, n["samples"], n["cpu"], n["period_us"], allowed))
        H.check(n["samples"] >= 0.1 * allowed,
                "-e %s: %d samples, %.0f s of CPU at %.0f us should give ~%.0f"
                % (events, n["samples"], n["cpu"], n["period_us"], allowed))
        notes.append("%s %d/%.1fs/%dt" % (events, n["samples"], n["cpu"], n["threads"]))
    return "; ".join(notes) + "; then " + done
