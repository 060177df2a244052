#!/usr/bin/env python3
"""Attach, dump and detach wasp many times on real programs, then kill one.

What a user does to a long-lived JVM, on the corpus's real programs
(bench/corpus/, docs/corpus.md) instead of a planted workload: each program
runs its main over and over in one JVM (bench/corpus/Repeat.java) while this
script

  1. attaches `wasp attach -q -d D -e E PID` (E rotating through the analyses),
     or every third session `wasp attach -e E`, `wasp dump`, `wasp detach`,
     one session per round of the program (paced by its "round N" lines);
  2. checks every profile: `wasp report --format json` reads it, it has samples,
     its meta names the analyses asked for, and the text report renders;
  3. stops the JVM: it must exit 0, every round's checksum must equal the one
     of a run without the agent (wasp left the program's results as they
     were), and no hs_err file may be left.

A second JVM of the program gets `wasp attach --snapshot 1s` and a SIGKILL
after two snapshots: the last must read (the production rule: a kill loses at
most the evidence since the last snapshot). A third, without the agent, runs
as many rounds: the first JVM's RSS after each detach is compared with its RSS
at the same round.

    python3 bench/corpus_attach.py                         # 7 programs, JDK 17, 6 sessions each
    python3 bench/corpus_attach.py --programs xalan,h2 --sessions 9 \\
        --jdk /usr/lib/jvm/temurin-25-jdk-amd64 --dir /tmp/ca

Exit 0 when every check passed; the table and each failure go to stdout,
everything else (profiles, logs) stays in --dir. Results: docs/corpus.md,
"Attach and detach on real programs".
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "corpus"))
sys.path.insert(0, HERE)
import measure  # noqa: E402
import programs  # noqa: E402
from repeat import RepeatJvm, repeatable  # noqa: E402
import soak  # noqa: E402  (its command runner and JDK version)

WASP = os.path.join(programs.ROOT, "build", "bin", "wasp")
ROTATION = ["all", "deadstore,silentstore", "objects,replicas", "fields,locks", "alloc",
            "silentload,objects"]
DEFAULT_PROGRAMS = "xalan,lucene,h2,pdfbox,batik,jfreechart,rhino"  # rounds print a checksum
CMD_TIMEOUT = 300


def run(cmd, log):
    """Runs cmd with its output in log (soak.py's runner): the exit code, or
    None on timeout."""
    r = soak.run(cmd, log=log, timeout=CMD_TIMEOUT)
    return r.returncode if r else None


class Bench:
    def __init__(self, a):
        self.a = a
        self.failures, self.rows = [], []
        self.java = os.path.join(a.jdk, "bin", "java")
        self.feature = soak.jdk_feature(a.jdk)
        # JDK 21 and later warn of a dynamically loaded agent unless told
        self.extra = ["-XX:+EnableDynamicAgentLoading"] if self.feature >= 21 else []

    def fail(self, prog, what):
        self.failures.append("%s: %s" % (prog, what))
        print("FAIL %s: %s" % (prog, what), flush=True)

    def check_profile(self, prog, what, path, events):
        """The profile reads as JSON, has samples, names its analyses, and
        renders as text. Returns its samples (None when it did not read)."""
        r = subprocess.run([WASP, "report", "--format", "json", path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=CMD_TIMEOUT)
        if r.returncode != 0:
            self.fail(prog, "%s: wasp report exited %d: %s" % (what, r.returncode,
                                                               r.stderr.decode()[-300:]))
            return None
        rep = json.loads(r.stdout)
        samples = rep.get("counters", {}).get("samples", 0)
        if not samples:
            self.fail(prog, "%s: no samples" % what)
        named = rep.get("meta", {}).get("events", "")
        for e in events.replace(",", "+").split("+"):
            if e != "all" and e not in named:
                self.fail(prog, "%s: meta events %r lacks %s" % (what, named, e))
        t = subprocess.run([WASP, "report", path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=CMD_TIMEOUT)
        if t.returncode != 0 or not t.stdout:
            self.fail(prog, "%s: the text report failed (%d)" % (what, t.returncode))
        with open(path + ".txt", "wb") as f:
            f.write(t.stdout)
        return samples

    def sessions(self, prog, jvm):
        """The attach/dump/detach sessions, one per round. Returns
        (sessions done, attach seconds, RSS after each detach)."""
        done, attach_s, rss = 0, [], []
        for k in range(self.a.sessions):
            events = ROTATION[k % len(ROTATION)]
            base = os.path.join(jvm.dir, "s%d" % k)
            prof = base + ".wprof"
            t0 = time.monotonic()
            if k % 3 != 2:
                rc = run([WASP, "attach", "-q", "-d", str(self.a.duration), "-e", events,
                          "-o", prof, str(jvm.p.pid)], base + ".attach.out")
                if rc != 0:
                    self.fail(prog, "session %d (attach -d, %s) exited %s" % (k, events, rc))
                    return done, attach_s, rss
                attach_s.append(time.monotonic() - t0 - self.a.duration)
            else:
                rc = run([WASP, "attach", "-q", "-e", events, "-o", prof, str(jvm.p.pid)],
                         base + ".attach.out")
                attach_s.append(time.monotonic() - t0)
                if rc != 0:
                    self.fail(prog, "session %d (attach, %s) exited %s" % (k, events, rc))
                    return done, attach_s, rss
                jvm.next_round(self.a.round_timeout)
                dprof = base + ".dump.wprof"
                rc = run([WASP, "dump", "-q", "-o", dprof, str(jvm.p.pid)], base + ".dump.out")
                if rc != 0:
                    self.fail(prog, "session %d dump exited %s" % (k, rc))
                else:
                    self.check_profile(prog, "session %d dump" % k, dprof, events)
                jvm.next_round(self.a.round_timeout)
                rc = run([WASP, "detach", "-q", str(jvm.p.pid)], base + ".detach.out")
                if rc != 0:
                    self.fail(prog, "session %d detach exited %s" % (k, rc))
                    return done, attach_s, rss
            self.check_profile(prog, "session %d (%s)" % (k, events), prof, events)
            rss.append((jvm.rounds, jvm.rss_kib()))
            done += 1
            if not jvm.next_round(self.a.round_timeout):
                self.fail(prog, "no round ended within %d s after session %d (JVM %s)"
                          % (self.a.round_timeout, k, "ended" if jvm.p.poll() is not None
                             else "alive"))
                return done, attach_s, rss
        return done, attach_s, rss

    def killed(self, prog, jvm):
        """Attach with snapshots, SIGKILL the JVM after two have been written:
        the last must read. Returns its samples."""
        prof = os.path.join(jvm.dir, "killed.wprof")
        rc = run([WASP, "attach", "-q", "-e", "all", "--snapshot", "1s", "-o", prof,
                  str(jvm.p.pid)], os.path.join(jvm.dir, "killed.attach.out"))
        if rc != 0:
            self.fail(prog, "attach with snapshots exited %s" % rc)
            return None
        # Two snapshots written (the file replaced twice), each checked by
        # its inode changing: the agent renames a new file over the old one.
        seen, deadline = set(), time.monotonic() + 60
        while len(seen) < 2 and time.monotonic() < deadline:
            try:
                seen.add(os.stat(prof).st_ino)
            except FileNotFoundError:
                pass
            if jvm.p.poll() is not None:
                break
            time.sleep(0.1)  # polling the file; the bound is the deadline
        if len(seen) < 2:
            self.fail(prog, "fewer than two snapshots within 60 s (%d)" % len(seen))
        jvm.kill()
        return self.check_profile(prog, "snapshot before SIGKILL", prof, "all")

    def program(self, prog):
        try:
            inputs = prog.prepare(os.path.join(self.a.jdk, "bin", "javac"))
        except programs.Missing as e:
            print("SKIP %s: %s" % (prog.name, e), flush=True)
            return
        size = prog.sizes[self.a.size]
        base = measure.run_program(prog, self.java, inputs, size, workdir=self.a.dir)
        if base.rc != 0 or not base.digest:
            self.fail(prog.name, "the run without the agent exited %d (digest %r)"
                      % (base.rc, base.digest))
            return
        want = base.digest

        jvm = RepeatJvm(prog, self.java, inputs, size, self.a.dir, extra=self.extra)
        if not jvm.next_round(self.a.round_timeout):
            self.fail(prog.name, "the first round never ended: %s" % jvm.tail())
            jvm.kill()
            return
        rss0 = (jvm.rounds, jvm.rss_kib())
        done, attach_s, rss = self.sessions(prog.name, jvm)
        rc = jvm.stop(self.a.round_timeout * 2)
        if rc is None:
            self.fail(prog.name, "the JVM did not end after its stop file")
        elif rc != 0:
            self.fail(prog.name, "the JVM exited %d after %d sessions" % (rc, done))
        sums = jvm.checksums()
        wrong = [s for s in sums if s != want]
        if not sums or wrong:
            self.fail(prog.name, "%d of %d rounds' checksums differ from the run without the "
                      "agent (%s): %s" % (len(wrong), len(sums), want, sorted(set(wrong))[:3]))
        hs = glob.glob(os.path.join(jvm.dir, "hs_err_pid*.log"))
        if hs:
            self.fail(prog.name, "hs_err left: %s" % hs)

        kjvm = RepeatJvm(prog, self.java, inputs, size, self.a.dir, extra=self.extra)
        ksamples = None
        if kjvm.next_round(self.a.round_timeout):
            ksamples = self.killed(prog.name, kjvm)
        else:
            self.fail(prog.name, "the second JVM's first round never ended")
            kjvm.kill()

        # The same rounds without the agent: its RSS at the rounds the
        # sessions' JVM was read at (AlwaysPreTouch: the difference is native).
        at = dict([rss0] + rss)
        bjvm = RepeatJvm(prog, self.java, inputs, size, self.a.dir, rounds=max(at) + 1,
                         extra=self.extra)
        brss = {}
        while len(brss) < len(at) and bjvm.next_round(self.a.round_timeout):
            if bjvm.rounds in at:
                brss[bjvm.rounds] = bjvm.rss_kib()
        if bjvm.p.wait(timeout=self.a.round_timeout) != 0:
            self.fail(prog.name, "the JVM without the agent exited %d" % bjvm.p.returncode)
        delta = [(at[r] - brss[r]) if at.get(r) and brss.get(r) else None for r, _ in rss]
        base0 = brss.get(rss0[0])
        self.rows.append((prog.name, done, len(sums), rss0[1], base0, delta, attach_s, ksamples))

    def table(self):
        print("\n| program | sessions | rounds (every checksum as without the agent) | RSS "
              "before the first attach (without the agent) | RSS after each detach, minus "
              "without the agent at that round (MiB) | attach (s, median) | killed: the last "
              "snapshot's samples |")
        print("|---|---|---|---|---|---|---|")
        for name, done, rounds, rss0, base0, delta, attach_s, ks in self.rows:
            med = sorted(attach_s)[len(attach_s) // 2] if attach_s else float("nan")
            print("| %s | %d | %d | %s MiB (%s) | %s | %.2f | %s |" % (
                name, done, rounds, mib(rss0), mib(base0),
                ", ".join("%+.1f" % (d / 1024) if d is not None else "-" for d in delta), med,
                "%d" % ks if ks else "-"))


def mib(kib):
    return "%.0f" % (kib / 1024) if kib else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", default=DEFAULT_PROGRAMS,
                    help="comma-separated corpus programs whose driver prints a checksum "
                         "(default: %(default)s)")
    ap.add_argument("--sessions", type=int, default=6, help="sessions per program (default 6)")
    ap.add_argument("--duration", type=int, default=4, help="seconds of an attach -d (default 4)")
    ap.add_argument("--size", choices=["short", "full"], default="short",
                    help="the programs' size per round (default short)")
    ap.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64", help="JDK home")
    ap.add_argument("--round-timeout", type=int, default=300,
                    help="seconds one round of a program may take (default 300)")
    ap.add_argument("--dir", default=None, help="where profiles and logs go (default: a new "
                    "temporary directory)")
    a = ap.parse_args()
    a.dir = a.dir or tempfile.mkdtemp(prefix="corpus-attach-")
    os.makedirs(a.dir, exist_ok=True)
    b = Bench(a)
    for name in a.programs.split(","):
        if name not in programs.BY_NAME:
            sys.exit("bad option '--programs %s': expected names among %s"
                     % (name, ", ".join(programs.BY_NAME)))
        if not repeatable(programs.BY_NAME[name]):
            sys.exit("bad option '--programs %s': its rounds print no checksum (expected among "
                     "%s)" % (name, ", ".join(p.name for p in programs.PROGRAMS
                                               if repeatable(p))))
    for name in a.programs.split(","):
        print("# %s (JDK %d, %s size, %d sessions), files in %s" % (
            name, b.feature, a.size, a.sessions, a.dir), flush=True)
        b.program(programs.BY_NAME[name])
    b.table()
    print("\n%d failure(s)" % len(b.failures))
    return 1 if b.failures else 0


if __name__ == "__main__":
    sys.exit(main())
