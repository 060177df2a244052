"""Reading JDK Flight Recorder files, for the tests that put wasp's profiles
beside JFR's on the same run (issue 41: alloc.jfr, locks.jfr).

The recording is read with the JDK's own `jfr print --json`; its settings,
when a test needs other than JFR's defaults, are a copy of the JDK's
lib/jfr/default.jfc with some events' thresholds changed.
"""

import json
import os
import re
import subprocess
import types

PRIMITIVES = {"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int", "J": "long",
              "F": "float", "D": "double"}


class Standalone:
    """What these helpers need of the test harness (h), for scripts outside
    it (bench/locks_jfr.py, bench/jfr_corpus.py): a failed check or a skip
    raises Fail."""
    class Fail(Exception):
        pass

    def check(self, ok, why):
        if not ok:
            raise Standalone.Fail(why)

    def skip(self, why):
        raise Standalone.Fail(why)

    def tail(self, text, n=6):
        return "\n".join((text or "").splitlines()[-n:])

    def run(self, cmd):
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        return types.SimpleNamespace(rc=r.returncode, out=r.stdout, err=r.stderr)


def jdk_at(home):
    """A JDK as these helpers use one (its home), for scripts outside the harness."""
    return types.SimpleNamespace(home=home, java=os.path.join(home, "bin", "java"))


def run_beside(h, ctx, jdk, wasp_args, settings, workload, args, out, rec):
    """The workload run once with wasp (`wasp run WASP_ARGS -o out`) and JFR
    recording to rec (settings: "default" or a .jfc path); checks that it
    exited 0 and printed the checksum of a run with neither. The result."""
    cmd = [h.WASP, "run"] + wasp_args + ["-o", out, "-q", "--", jdk.java,
                                        "-XX:StartFlightRecording=filename=%s,settings=%s" % (rec, settings),
                                        "-cp", h.CLASSES, workload] + args
    r = h.run(cmd)
    h.check(r.rc == 0, "wasp run with JFR exited %d: %s" % (r.rc, h.tail(r.err)))
    h.check(h.checksum_of(r.out) == ctx.baseline(jdk, [], workload, args),
            "checksum differs from the run without the agent and JFR")
    return r


def events(h, jdk, path, names):
    """The `values` of the recording's events of the given names."""
    tool = os.path.join(jdk.home, "bin", "jfr")
    if not os.access(tool, os.X_OK):
        h.skip("%s has no bin/jfr" % jdk.home)
    r = h.run([tool, "print", "--json", "--events", ",".join(names), path])
    h.check(r.rc == 0, "jfr print exited %d: %s" % (r.rc, h.tail(r.err)))
    try:
        return [e["values"] for e in json.loads(r.out)["recording"]["events"]]
    except (ValueError, KeyError) as e:
        raise h.Fail("jfr print --json gave no events (%s): %s" % (e, h.tail(r.out)))


def class_name(c):
    """A JFR class value named as wasp names classes ("long[]", "a.b.C$D",
    "java.lang.String[][]"); "" for none."""
    name = (c or {}).get("name") or ""
    dims = len(name) - len(name.lstrip("["))
    if dims:
        elem = name[dims:]
        if elem in PRIMITIVES:
            name = PRIMITIVES[elem]
        elif elem.startswith("L") and elem.endswith(";"):
            name = elem[1:-1]
    return name.replace("/", ".") + "[]" * dims


def seconds(duration):
    """An ISO-8601 duration as jfr print writes it ("PT0.015S", "PT1M2.5S")."""
    m = re.match(r"^PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?$", str(duration))
    if not m:
        raise ValueError("not a duration: %r" % duration)
    hh, mm, ss = m.groups()
    return int(hh or 0) * 3600 + int(mm or 0) * 60 + float(ss or 0)


def settings(h, jdk, dest, thresholds, others=None):
    """A copy of the JDK's default.jfc at dest with each event in thresholds
    ({name: "0 ms"}) given that threshold, and each (event, setting) in
    others ({("jdk.ObjectAllocationSample", "throttle"): "100000/s"}) that
    value; returns dest."""
    with open(os.path.join(jdk.home, "lib", "jfr", "default.jfc")) as f:
        text = f.read()
    changes = dict(((name, "threshold"), value) for name, value in thresholds.items())
    changes.update(others or {})
    for (name, setting), value in changes.items():
        pattern = r'(<event name="%s">.*?<setting name="%s"[^>]*>)[^<]*(</setting>)' % (re.escape(name),
                                                                                      re.escape(setting))
        text, n = re.subn(pattern, r"\g<1>%s\g<2>" % value, text, count=1, flags=re.S)
        h.check(n == 1, "%s's default.jfc has no %s for %s" % (jdk.home, setting, name))
    with open(dest, "w") as f:
        f.write(text)
    return dest
