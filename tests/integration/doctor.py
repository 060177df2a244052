"""Integration tests of `wasp doctor` (what this machine supports, what wasp would use).

Not run on its own: tests/integration/run.py imports this module and calls

    doctor.make_tests(sys.modules[__name__])

which returns [(name, thunk(ctx))], run once (not per JDK). `h` is run.py's
module; the helpers used from it: Fail, check, tail, run, find_jdks, WASP,
CLASSES, and Ctx (path, report).

doctor proves the samplers and the watchpoint engines in its own process the
way the agent proves them in the JVM, so on any machine its choice must be
the one a real profile records (meta "sampler" and "watch").
"""

import json
import os
import shutil

H = None  # run.py's module, set by make_tests

# Keys of `wasp doctor --json` (src/cli/commands/doctor.c) and the type of each.
TOP_KEYS = {"kernel": str, "perf_event_paranoid": (int, type(None)), "perf_events": dict,
            "seccomp": (int, type(None)), "sigtrap": (bool, type(None)), "samplers": dict,
            "watch": dict, "numa_nodes": (int, type(None)), "jdks": list, "would_use": dict,
            "ok": bool}
# The workload the profile runs: short (a second or two), and it loads and stores.
WORKLOAD = ("SilentLoadSearch", "50")


def make_tests(h):
    """[(name, thunk(ctx))]; h is run.py's module (sys.modules[__name__])."""
    global H
    H = h
    return [
        ("doctor.agrees", t_agrees),
        ("doctor.bad-option", t_bad_option),
    ]


def doctor_json():
    r = H.run([H.WASP, "doctor", "--json"])
    H.check(r.rc in (0, 1), "wasp doctor --json exited %d: %s" % (r.rc, H.tail(r.err)))
    try:
        d = json.loads(r.out)
    except ValueError as e:
        raise H.Fail("wasp doctor --json printed no JSON (%s): %s" % (e, H.tail(r.out)))
    H.check(isinstance(d, dict), "wasp doctor --json printed %s, not an object" % type(d).__name__)
    for key, types in TOP_KEYS.items():
        H.check(key in d, "doctor JSON has no %r" % key)
        H.check(isinstance(d[key], types), "doctor JSON %r is %r" % (key, d[key]))
    # One entry per sampler (wasp_samplers, src/sample/samplers.c), in auto's order.
    H.check({"pmu", "perf", "timer"} <= set(d["samplers"]),
            "doctor JSON samplers are %r, expected pmu, perf and timer" % list(d["samplers"]))
    for name, v in d["samplers"].items():
        H.check(isinstance(v, dict) and isinstance(v.get("ok"), bool)
                and isinstance(v.get("present"), bool),
                "doctor JSON samplers.%s is %r" % (name, v))
        H.check(v["ok"] or v.get("why"), "doctor says sampler %s fails without saying why" % name)
        H.check(v["present"] or not v["ok"], "doctor says sampler %s works but is absent" % name)
    H.check(d["samplers"]["perf"]["present"] and d["samplers"]["timer"]["present"],
            "doctor says a software sampler is absent: %r" % d["samplers"])
    works = [name for name, v in d["samplers"].items() if v["ok"]]
    H.check(d["would_use"]["sampler"] == (works[0] if works else None),
            "doctor would use sampler %r, but the first that works is %r"
            % (d["would_use"]["sampler"], works[0] if works else None))
    for name in ("debugreg", "page"):
        v = d["watch"].get(name)
        H.check(isinstance(v, dict) and isinstance(v.get("ok"), bool),
                "doctor JSON watch.%s is %r" % (name, v))
        if v["ok"]:
            H.check(isinstance(v.get("event_us"), (int, float)) and v["event_us"] > 0,
                    "watch.%s works but event_us is %r" % (name, v.get("event_us")))
            # Page protection slows no string move; debug registers may (design.md).
            H.check(isinstance(v.get("string_slowdown"), (int, float)) and v["string_slowdown"] >= 1
                    and (name == "debugreg" or v["string_slowdown"] == 1),
                    "watch.%s works but string_slowdown is %r" % (name, v.get("string_slowdown")))
        else:
            H.check(v.get("why"), "doctor says engine %s fails without saying why" % name)
    for j in d["jdks"]:
        H.check(isinstance(j, dict) and isinstance(j.get("path"), str) and "version" in j,
                "doctor JSON jdks entry %r" % (j,))
    use = d["would_use"]
    H.check(d["ok"] == (use.get("sampler") is not None and use.get("watch") is not None),
            "ok is %r but would_use is %r" % (d["ok"], use))
    H.check((r.rc == 0) == d["ok"], "wasp doctor exited %d but ok is %r" % (r.rc, d["ok"]))
    return d


def java_for_test():
    jdks = H.find_jdks()
    if jdks:
        return jdks[0].java
    java = shutil.which("java")
    H.check(java, "no JDK to run the workload with")
    return java


def t_agrees(ctx):
    """doctor --json is well formed, its exit status says ok, and its choice
    of sampler and watchpoint engine is what a real profile run records."""
    d = doctor_json()
    use = d["would_use"]
    out = ctx.path("doctor.wprof")
    cmd = [H.WASP, "run", "-e", "deadstore", "-o", out, "-q", "--", java_for_test(),
           "-cp", H.CLASSES] + list(WORKLOAD)
    r = H.run(cmd)
    with open(out + ".log", "w") as f:
        f.write("$ %s\n--- stdout\n%s\n--- stderr\n%s" % (" ".join(cmd), r.out, r.err))
    if use["sampler"] is None:
        # Nothing can be profiled: the agent must refuse too.
        if r.rc != 0 or not os.path.isfile(out):
            return "doctor and wasp run agree: no sampler works here"
        meta = ctx.report(out)["meta"]
        H.check(not meta.get("sampler") or meta.get("disabled_reason"),
                "doctor says no sampler works, the profile used %r" % meta.get("sampler"))
        return "doctor and wasp run agree: no sampler works here"
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    H.check(os.path.isfile(out) and os.path.getsize(out) > 0, "no profile written at %s" % out)
    meta = ctx.report(out)["meta"]
    sampler = meta.get("sampler")
    # The PMU too: doctor proves it as the agent does.
    H.check(sampler == use["sampler"], "doctor would use sampler %r, the profile used %r"
            % (use["sampler"], sampler))
    H.check(meta.get("watch") == use["watch"], "doctor would use watchpoints %r, the profile "
            "used %r (%s)" % (use["watch"], meta.get("watch"),
                              meta.get("watch_passed_over") or meta.get("disabled_reason") or "-"))
    return "sampler %s, watchpoints %s; exit %s" % (sampler, meta.get("watch"),
                                                    0 if d["ok"] else 1)


def t_bad_option(ctx):
    """An unknown option: exit 2, a message naming it and the accepted ones, nothing on stdout."""
    del ctx
    r = H.run([H.WASP, "doctor", "--bogus"])
    H.check(r.rc == 2, "wasp doctor --bogus exited %d (expected 2)" % r.rc)
    H.check("--bogus" in r.err, "the message does not name --bogus: %s" % H.tail(r.err))
    H.check("--json" in r.err, "the message does not list the accepted options: %s" % H.tail(r.err))
    H.check(not r.out.strip(), "wasp doctor --bogus printed on stdout: %s" % H.tail(r.out))
    return None
