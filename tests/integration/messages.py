"""Integration tests of what wasp says when the JVM ends badly (issue 37,
messages that tell the truth): a fatal error is blamed on wasp only when the
report's problematic frame is in the agent, an exit the agent could not
write at is not called "the agent never started", and a JVM that dies while
`wasp attach`/`wasp detach` talk to it is said to have died, with its
fatal-error report, rather than to have refused a user.

Not run on its own: tests/integration/run.py imports this module and calls

    messages.make_tests(sys.modules[__name__])

which returns [(name, thunk(ctx, jdk))] to run on every JDK. `h` is run.py's
module; the helpers used from it: check, tail, run, kill_group, Lines,
read_text, WASP, CLASSES, ROOT, TIMEOUT, and Ctx's path and report.

Each JVM runs in a directory of its own, so that its hs_err_pid<pid>.log
(HotSpot writes it into the working directory) is known and no older one
is taken for it.
"""

import os
import re
import shutil
import signal
import subprocess

H = None  # run.py's module, set by make_tests

# Small enough that OomGrow fills it within a second, large enough for the
# JVM (and the agent's classes) to start.
OOM_HEAP = "-Xmx32m"

PERMISSION_HINT = "HotSpot answers only its own user"


def make_tests(h):
    """[(name, thunk(ctx, jdk))]; h is run.py's module (sys.modules[__name__])."""
    global H
    H = h
    return [
        ("messages.crash-on-oom", t_crash_on_oom),
        ("messages.exit-on-oom", t_exit_on_oom),
        ("messages.attach-killed", t_attach_killed),
        ("messages.attach-crash", t_attach_crash),
        ("messages.detach-killed", t_detach_killed),
        ("messages.refusals", t_refusals),
        ("messages.attach-ends-at-stop", t_attach_ends_at_stop),
    ]


# ---------------------------------------------------------------- helpers

def fresh_dir(ctx, name):
    d = ctx.path(name)
    os.makedirs(d)
    return d


def log_run(path, r):
    with open(path, "w") as f:
        f.write("$ %s\n--- stdout\n%s\n--- stderr\n%s" % (" ".join(r.cmd), r.out, r.err))


def hs_err_files(d):
    return sorted(f for f in os.listdir(d) if re.match(r"hs_err_pid\d+\.log$", f))


class _ErrPipe:
    """A process seen through its stderr, for run.py's Lines (which reads .stdout)."""
    def __init__(self, p):
        self.stdout = p.stderr


def start_target(jdk, cwd, jvm_args=()):
    """AttachTarget running in cwd, once it printed "ready" and a tick (JIT-warm)."""
    p = subprocess.Popen([jdk.java] + list(jvm_args) + ["-cp", H.CLASSES, "AttachTarget"], cwd=cwd,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    lines = H.Lines(p)
    try:
        H.check(lines.until(lambda l: l == "ready", H.TIMEOUT) == "ready", "no 'ready'")
        lines.until(lambda l: l.startswith("tick"), H.TIMEOUT)
    except BaseException:
        H.reap(p)
        raise
    return p


def check_not_permission(err):
    H.check(PERMISSION_HINT not in err and "closed the connection" not in err,
            "a dead JVM blamed on permissions: %s" % H.tail(err))


# ---------------------------------------------------------------- wasp run

def t_crash_on_oom(ctx, jdk):
    """-XX:+CrashOnOutOfMemoryError: HotSpot aborts on its own (an hs_err file
    naming no problematic frame). wasp run names the file and what HotSpot
    reported, and does not blame its agent."""
    d = fresh_dir(ctx, "crash-on-oom")
    out = os.path.join(d, "p.wprof")
    r = H.run([H.WASP, "run", "-q", "-o", out, "--", jdk.java, OOM_HEAP,
               "-XX:+CrashOnOutOfMemoryError", "-cp", H.CLASSES, "OomGrow"], cwd=d)
    log_run(os.path.join(d, "wasp-run.log"), r)
    H.check(r.rc == 128 + signal.SIGABRT, "wasp run exited %d, expected %d (SIGABRT): %s"
            % (r.rc, 128 + signal.SIGABRT, H.tail(r.err)))
    files = hs_err_files(d)
    H.check(len(files) == 1, "expected one hs_err file in %s, found %s" % (d, files))
    report = os.path.join(d, files[0])
    H.check("its report is %s" % report in r.err, "wasp run does not name %s: %s"
            % (report, H.tail(r.err)))
    H.check("OutOfMemoryError: HotSpot aborted (CrashOnOutOfMemoryError" in r.err,
            "wasp run does not say HotSpot aborted on the OutOfMemoryError: %s" % H.tail(r.err))
    for blame in ("please report", "libwasp.so", "wasp's agent ("):
        H.check(blame not in r.err, "HotSpot's own abort blamed on wasp (%r): %s"
                % (blame, H.tail(r.err)))
    return files[0]


def t_exit_on_oom(ctx, jdk):
    """-XX:+ExitOnOutOfMemoryError: the JVM _exits with status 3, skipping the
    agent's exit hook. wasp run never says the agent did not start (it had);
    it says the JVM exited before the agent could write, or, when the agent
    wrote a snapshot meanwhile, reports that."""
    d = fresh_dir(ctx, "exit-on-oom")
    out = os.path.join(d, "p.wprof")
    r = H.run([H.WASP, "run", "-q", "-o", out, "--", jdk.java, OOM_HEAP,
               "-XX:+ExitOnOutOfMemoryError", "-cp", H.CLASSES, "OomGrow"], cwd=d)
    log_run(os.path.join(d, "wasp-run.log"), r)
    H.check(r.rc == 3, "wasp run exited %d, expected the JVM's 3: %s" % (r.rc, H.tail(r.err)))
    H.check("never started" not in r.err, "wasp run says the agent never started: %s"
            % H.tail(r.err))
    if os.path.exists(out):
        rep = ctx.report(out)
        if "snapshot" in rep["meta"]:
            H.check("is the agent's last snapshot" in r.err,
                    "the profile is a snapshot and wasp run does not say so: %s" % H.tail(r.err))
        return "a profile was written"
    H.check("exited with status 3 (what -XX:+ExitOnOutOfMemoryError exits with on an "
            "OutOfMemoryError) before the agent could write it (the agent had started" in r.err,
            "wasp run does not say the JVM exited before the agent could write: %s"
            % H.tail(r.err))
    return "no profile, and said why"


# ---------------------------------------------------------------- attach, detach

def t_attach_killed(ctx, jdk):
    """A JVM killed (SIGKILL) while `wasp attach -d 30` profiles it: wasp ends
    at once and says the JVM died, that it left no fatal-error report, and
    that no profile was written; no permission hint."""
    d = fresh_dir(ctx, "attach-killed")
    out = os.path.join(d, "a.wprof")
    target = start_target(jdk, d)
    try:
        w = subprocess.Popen([H.WASP, "attach", "-d", "30", "-q", "-o", out, str(target.pid)],
                             cwd=d, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
        try:
            said = H.Lines(_ErrPipe(w))
            said.until(lambda l: l.startswith("wasp: profiling JVM %d for 30 s" % target.pid),
                       H.TIMEOUT)
            os.kill(target.pid, signal.SIGKILL)
            target.wait()
            try:
                rest = w.communicate(timeout=H.TIMEOUT)[1].decode(errors="replace")
            except subprocess.TimeoutExpired:
                raise H.Fail("wasp attach did not end after the JVM was killed")
        finally:
            if w.poll() is None:
                H.kill_group(w)
                w.wait()
    finally:
        H.reap(target)
    err = "\n".join(said.lines) + "\n" + said.buf.decode(errors="replace") + rest
    with open(out + ".stderr", "w") as f:
        f.write(err)
    H.check(w.returncode == 1, "wasp attach exited %d: %s" % (w.returncode, H.tail(err)))
    H.check("wasp attach: JVM %d died while wasp was profiling it" % target.pid in err,
            "wasp attach does not say the JVM died: %s" % H.tail(err))
    H.check("it left no fatal-error report (none at %s/hs_err_pid%d.log" % (d, target.pid) in err,
            "wasp attach does not say where it looked for the report: %s" % H.tail(err))
    H.check("no profile was written to %s" % out in err, "no word of the profile: %s" % H.tail(err))
    check_not_permission(err)


def t_attach_crash(ctx, jdk):
    """The JVM crashes inside the agent's Agent_OnAttach (the stand-in agent,
    installed as libwasp.so, stores through a null pointer): the attach
    connection closes unanswered. wasp attach says the JVM died while it
    attached, names the hs_err file, and — the problematic frame being in
    libwasp.so — that it is wasp's bug to report; no permission hint."""
    fake = os.path.join(H.ROOT, "build", "tests", "fake_agent.so")
    H.check(os.path.isfile(fake), "missing %s (make integration builds it)" % fake)
    d = fresh_dir(ctx, "attach-crash")
    lib = os.path.join(d, "lib")
    os.makedirs(lib)
    agent = os.path.join(lib, "libwasp.so")
    shutil.copy(fake, agent)
    out = os.path.join(d, "c.wprof")
    open(out + ".crash", "w").close()
    target = start_target(jdk, d)
    try:
        r = H.run([H.WASP, "attach", "--agent", agent, "-o", out, str(target.pid)], cwd=d)
        rc = target.wait(timeout=H.TIMEOUT)
    finally:
        H.reap(target)
    log_run(out + ".stderr", r)
    H.check(rc != 0, "the JVM did not die of the planted crash (exit %d)" % rc)
    report = os.path.join(d, "hs_err_pid%d.log" % target.pid)
    H.check(os.path.isfile(report), "the JVM left no %s" % report)
    H.check(r.rc == 1, "wasp attach exited %d: %s" % (r.rc, H.tail(r.err)))
    H.check("wasp attach: JVM %d died while wasp attached the agent; its report is %s"
            % (target.pid, report) in r.err, "wasp attach does not say the JVM died and name "
            "its report: %s" % H.tail(r.err))
    H.check("its problematic frame is in wasp's agent (C  [libwasp.so+" in r.err and
            "please report it with that file" in r.err,
            "a crash in libwasp.so not blamed on wasp: %s" % H.tail(r.err))
    check_not_permission(r.err)


def t_detach_killed(ctx, jdk):
    """`wasp attach`, then the JVM is killed, then `wasp detach`: detach says
    the JVM died after the attach (from what attach recorded) and that no
    profile was written, not merely that there is no such process."""
    d = fresh_dir(ctx, "detach-killed")
    out = os.path.join(d, "k.wprof")
    target = start_target(jdk, d)
    try:
        r = H.run([H.WASP, "attach", "-o", out, str(target.pid)], cwd=d)
        H.check(r.rc == 0, "wasp attach exited %d: %s" % (r.rc, H.tail(r.err)))
        os.kill(target.pid, signal.SIGKILL)
        target.wait()
    finally:
        H.reap(target)
    r = H.run([H.WASP, "detach", str(target.pid)], cwd=d)
    log_run(out + ".stderr", r)
    H.check(r.rc == 1, "wasp detach exited %d: %s" % (r.rc, H.tail(r.err)))
    H.check("wasp detach: JVM %d died after wasp attach started profiling it; it left no "
            "fatal-error report" % target.pid in r.err,
            "wasp detach does not say the JVM died: %s" % H.tail(r.err))
    H.check("no profile was written to %s" % out in r.err, "no word of the profile: %s"
            % H.tail(r.err))
    check_not_permission(r.err)


def stop_target(p):
    """Asks AttachTarget to stop; its output after that (it must end "done N"
    with no "WRONG": nothing the refusals did touched its state). Returns its
    standard error."""
    try:
        out, err = p.communicate(b"stop\n", timeout=H.TIMEOUT)
    except subprocess.TimeoutExpired:
        raise H.Fail("AttachTarget did not stop when asked")
    finally:
        H.reap(p)
    out = out.decode(errors="replace")
    H.check(p.returncode == 0 and re.search(r"^done \d+$", out, re.M) and "WRONG" not in out,
            "AttachTarget exited %s: %s" % (p.returncode, H.tail(out)))
    return (err or b"").decode(errors="replace")


def refused(d, args, says, leaves_no=None):
    """wasp ARGS, refused: exit 1, its stderr has `says` and no word of a
    failed agent, and the log file `leaves_no` (the request's own) is not
    left behind."""
    r = H.run([H.WASP] + args, cwd=d)
    log_run(os.path.join(d, "%s-%d.log" % (args[0], len(os.listdir(d)))), r)
    H.check(r.rc == 1, "wasp %s exited %d: %s" % (" ".join(args), r.rc, H.tail(r.err)))
    H.check(says in r.err, "wasp %s does not say %r: %s" % (" ".join(args), says, H.tail(r.err)))
    H.check("Agent_OnAttach returned" not in r.err and "the agent failed" not in r.err,
            "a refusal called a failure: %s" % H.tail(r.err))
    if leaves_no:
        H.check(not os.path.exists(leaves_no), "the refused request left %s" % leaves_no)
    return r


def t_refusals(ctx, jdk):
    """What the agent refuses, said as what to do, not as a failed agent:
    a detach of a JVM never profiled (no record, no agent in its maps), a
    dump or a detach of a JVM no session profiles, a second attach (with
    and without attach's record), and a detach of a JVM started with the
    agent (its profile ends with the JVM). Each refusal leaves no log file
    of its own and the session it met runs on: its profile is written at
    its end, and the program's results stay right."""
    d = fresh_dir(ctx, "refusals")
    target = start_target(jdk, d)
    try:
        pid = str(target.pid)
        # First, before any request loads the agent: no record and no agent
        # in its maps (until 2026-12-01: "no record ...; pass -o FILE", exit 2)
        refused(d, ["detach", pid], "is not being profiled by wasp: no wasp agent was ever "
                "loaded into it (it maps no libwasp.so), so there is nothing to detach")
        nope = os.path.join(d, "nope.wprof")
        refused(d, ["dump", "-o", nope, pid], "is not being profiled by wasp: there is no "
                "profile to dump (start with: wasp attach %s)" % pid, nope + ".log")
        refused(d, ["detach", "-o", nope, pid], "is not being profiled by wasp: nothing to stop",
                nope + ".log")
        first = os.path.join(d, "first.wprof")
        r = H.run([H.WASP, "attach", "-o", first, pid], cwd=d)
        H.check(r.rc == 0, "wasp attach exited %d: %s" % (r.rc, H.tail(r.err)))
        second = os.path.join(d, "second.wprof")
        refused(d, ["attach", "-o", second, pid], "is already being profiled by wasp attach, "
                "into %s; one session at a time: stop it with wasp detach %s" % (first, pid),
                second + ".log")
        os.unlink("/tmp/wasp-attach-0-%s" % pid)  # attach's record, as another user's /tmp
        refused(d, ["attach", "-o", second, pid], "is already being profiled by wasp (another "
                "wasp attach, or the agent given at its start)", second + ".log")
        r = H.run([H.WASP, "detach", "-q", "-o", first, pid], cwd=d)
        H.check(r.rc == 0 and "detached; the JVM runs on unprofiled" in r.err,
                "the first session did not detach: %s" % H.tail(r.err))
        rep = ctx.report(first)
        H.check(rep["meta"].get("ended") == "wasp detach", "the first session's profile ended %r"
                % rep["meta"].get("ended"))
        # The requests' words went to their logs, which the client read: the
        # service's own stderr (its logs) got none (until 2026-12-01 each
        # refusal and dump wrote its line there too).
        err = stop_target(target)
        H.check("wasp:" not in err, "the refused requests wrote to the JVM's stderr: %s"
                % H.tail(err))
    finally:
        H.reap(target)
    at_start = os.path.join(d, "at-start.wprof")
    target = start_target(jdk, d, ["-agentpath:%s=events=silentload,file=%s" % (H.AGENT,
                                                                               at_start)])
    try:
        pid = str(target.pid)
        refused(d, ["detach", "-o", at_start, pid], "was started with the wasp agent (wasp run "
                "or -agentpath), which profiles it until it exits; wasp dump %s writes the "
                "profile so far" % pid)
        refused(d, ["attach", "-o", second, pid], "is already being profiled by wasp",
                second + ".log")
        stop_target(target)
    finally:
        H.reap(target)
    rep = ctx.report(at_start)
    H.check(rep["meta"].get("ended") not in (None, "wasp detach"),
            "the session started with the JVM ended %r" % rep["meta"].get("ended"))
    return "7 refusals said, both sessions ran on"


def t_attach_ends_at_stop(ctx, jdk):
    """A JVM that exits just as `wasp attach -d 2` ends its session: the agent
    wrote the profile at the JVM's exit, a moment before the stop request
    looked at the file. Until 2026-12-01 wasp then said "no profile was
    written" beside the profile (8 of 8 runs at that moment, JDK 17). The
    moment is searched for: Lifecycle ready-exit3 MILLIS, the range of MILLIS
    halved between an exit within the session ("ended while wasp was
    profiling it") and one after its stop ("stopped profiling JVM"), until a
    run meets it ("ended as wasp stopped profiling it"; 150-300 ms wide on
    the development VM, so 3-4 runs find it). Every run: exit 0, a profile,
    no "no profile was written"."""
    d = fresh_dir(ctx, "attach-ends")
    lo, hi = 1000, 3200  # ms: the exit within the session; after it
    tried = []
    for i in range(8):
        millis = (lo + hi) // 2
        out = os.path.join(d, "p%d.wprof" % i)
        p = subprocess.Popen([jdk.java, "-cp", H.CLASSES, "Lifecycle", "ready-exit3", str(millis)],
                             cwd=d, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
        try:
            lines = H.Lines(p)
            H.check(lines.until(lambda l: l == "ready", H.TIMEOUT) == "ready", "no 'ready'")
            r = H.run([H.WASP, "attach", "-q", "-d", "2", "-e", "deadstore", "-o", out,
                       str(p.pid)], cwd=d)
            rc = p.wait(timeout=H.TIMEOUT)
        finally:
            H.reap(p)
        log_run(out + ".stderr", r)
        tried.append(millis)
        H.check(rc == 3, "Lifecycle exited %s, not 3" % rc)
        H.check(r.rc == 0 and os.path.isfile(out) and "no profile was written" not in r.err,
                "wasp attach exited %d, %s: %s" % (r.rc, "a profile beside it" if
                                                   os.path.isfile(out) else "no profile",
                                                   H.tail(r.err)))
        if "ended as wasp stopped profiling it" in r.err:
            H.check("the agent wrote the profile as the JVM ended: %s" % out in r.err,
                    "the profile written at the exit is not named: %s" % H.tail(r.err))
            return "met at %d ms (runs at %s ms)" % (millis, ", ".join(map(str, tried)))
        if "ended while wasp was profiling it" in r.err:
            lo = millis
        elif "stopped profiling JVM %d" % p.pid in r.err:
            hi = millis
        else:
            raise H.Fail("an unexpected end: %s" % H.tail(r.err))
    raise H.Fail("no run met the stop (runs at %s ms)" % ", ".join(map(str, tried)))
