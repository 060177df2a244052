#!/usr/bin/env python3
"""Soak benchmark: does a JVM profiled by wasp for a long time keep its memory flat?

Starts bench/Service.java (a service-like program: a worker pool, a shared
cache behind a lock, 48 request kinds, a short-lived thread every 250 ms and a
new executor every 5 s) twice at the same moment: once profiled by wasp and
once without any agent (the baseline), and samples each JVM's RSS (VmRSS,
RssAnon and RssFile of /proc/PID/status), thread count and open fds every
10 s into a CSV. Both JVMs run with a fixed, pre-touched heap
(-Xms256m -Xmx256m -XX:+AlwaysPreTouch: the Java heap is resident from the
start, so what RSS does afterwards is native memory) and with
-XX:NativeMemoryTracking=summary, so that `jcmd VM.native_memory` can say
which part of the growth is the JVM's own.

Modes:
  attach    (default) every minute `wasp attach -q -d 20 -e E PID`, E rotating
            through deadstore; alloc; all; objects,replicas; fields,locks. Every
            --dump-every'th session instead attaches without -d, runs
            `wasp dump -q -o FILE PID` after 10 s and `wasp detach -q PID` 10 s
            later.
  snapshot  the profiled JVM runs with
            -agentpath:build/lib/libwasp.so=events=all,snapshot=10s,... for the
            whole run; its snapshot is rendered every 5 minutes, its final
            profile after the service stops.

Each profile (every session's, every dump, the snapshots, the final one) is
rendered with `wasp report --format json` and its meta checked: threads at
most the threads the JVM had during the profiled window (the most
/proc/PID/status counted, plus the Java threads started in the window), CPU
seconds at most (wall seconds + 1) x CPUs. At the end each JVM must answer a
"status" with more requests served than the one before.

Reported per JVM: RSS at the 5-minute mark (--warmup), at the end, its
growth per hour after the mark (least-squares slope), its maximum; threads
and fds; NMT's committed total and RSS beyond it at the mark and at the end;
the mappings of /proc/PID/smaps that grew the most between the mark and the
end. The report is printed and written to DIR/soak.md; DIR (default
/tmp/wasp-soak-MODE-DATE) also holds the CSV, the smaps and NMT captures,
every profile and its agent log, and each JVM's output.

    python3 bench/soak.py                          # attach mode, 30 minutes, JDK 17
    python3 bench/soak.py --mode snapshot --minutes 20
    python3 bench/soak.py --jdk /usr/lib/jvm/temurin-25-jdk-amd64 --minutes 60
    python3 bench/soak.py --minutes 3 --warmup 60 --session-every 30   # a quick try
    python3 bench/soak.py --analyze DIR/rss.csv [WARMUP [EVERY]]      # a finished run's halves

--analyze prints each JVM's growth in the two halves after the mark (does it
level off?) and the agent's RSS minus the baseline's every EVERY seconds
(default 60: in attach mode, 30 s after each session ended).

Runs only local processes; every loop is bounded in count and time.
Exit status: 0 when every check passed, 1 when one failed (the report says
which), 2 when nothing could be measured (no agent, no JDK, the service does
not start).
"""

import argparse
import datetime
import json
import os
import re
import shlex
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import overhead  # noqa: E402  (the bench programs are compiled the way overhead.py does it)

ROOT = overhead.ROOT
WASP = overhead.WASP
AGENT = overhead.AGENT
ROTATION = ["deadstore", "alloc", "all", "objects,replicas", "fields,locks"]
CMD_TIMEOUT = 180  # any one wasp or jcmd command


def die(msg, code=2):
    print("soak: " + msg, file=sys.stderr)
    sys.exit(code)


def read_status(pid):
    """VmRSS, RssAnon, RssFile (KiB) and Threads of /proc/PID/status; None when gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            text = f.read()
    except OSError:
        return None
    out = {}
    for key in ("VmRSS", "RssAnon", "RssFile", "Threads"):
        m = re.search(r"^%s:\s+(\d+)" % key, text, re.M)
        out[key] = int(m.group(1)) if m else 0
    try:
        out["fds"] = len(os.listdir("/proc/%d/fd" % pid))
    except OSError:
        out["fds"] = -1
    return out


def parse_smaps(path):
    """[(start, end, perms, name, rss_kib)] of a saved /proc/PID/smaps."""
    maps = []
    head = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$")
    cur = None
    with open(path) as f:
        for line in f:
            m = head.match(line)
            if m:
                cur = [int(m.group(1), 16), int(m.group(2), 16), m.group(3), m.group(4).strip(), 0]
                maps.append(cur)
            elif line.startswith("Rss:") and cur is not None:
                cur[4] = int(line.split()[1])
    return maps


def kind_of(name):
    if not name:
        return "anonymous"
    if name == "[heap]":
        return "[heap] (brk malloc)"
    if "libwasp" in name:
        return "libwasp.so"
    if name.startswith("["):
        return name
    return "files"


def smaps_growth(before, after, top=12):
    """Totals by kind at both captures, and the mappings (by start address and
    name) whose RSS grew the most; new mappings count from zero."""
    a, b = parse_smaps(before), parse_smaps(after)
    totals = {}
    for i, maps in enumerate((a, b)):
        for s, e, perms, name, rss in maps:
            k = kind_of(name)
            t = totals.setdefault(k, [0, 0, 0, 0])  # rss before, after, count before, after
            t[i] += rss
            t[2 + i] += 1
    old = {(s, name): (e, rss) for s, e, perms, name, rss in a}
    grew = []
    for s, e, perms, name, rss in b:
        e0, rss0 = old.get((s, name), (None, 0))
        if rss - rss0 > 0:
            grew.append((rss - rss0, s, e, e0, perms, name or "anonymous", rss0, rss))
    grew.sort(reverse=True)
    return totals, grew[:top]


def nmt_committed(text):
    """NMT summary: total committed KiB, and committed KiB per category."""
    total = None
    m = re.search(r"^Total: reserved=(\d+)KB, committed=(\d+)KB", text, re.M)
    if m:
        total = int(m.group(2))
    cats = {}
    for m in re.finditer(r"^-\s+(.+?) \(reserved=(\d+)KB, committed=(\d+)KB\)", text, re.M):
        cats[m.group(1).strip()] = int(m.group(3))
    return total, cats


def slope_per_hour(points):
    """Least-squares slope of [(t seconds, value)] in value per hour."""
    n = len(points)
    if n < 3:
        return None
    mt = sum(t for t, _ in points) / n
    mv = sum(v for _, v in points) / n
    den = sum((t - mt) ** 2 for t, _ in points)
    if den == 0:
        return None
    return sum((t - mt) * (v - mv) for t, v in points) / den * 3600.0


class Service:
    """One JVM running bench/Service.java: its output kept with times, status on demand."""

    def __init__(self, role, cmd, workdir, t0):
        self.role = role
        self.cmd = cmd
        self.t0 = t0
        self.lines = []
        self.cond = threading.Condition()
        self.out = open(os.path.join(workdir, role + ".out"), "w")
        self.err = open(os.path.join(workdir, role + ".err"), "w")
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.err, text=True, bufsize=1, cwd=workdir)
        self.pid = self.p.pid
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.p.stdout:
            self.out.write("%.1f %s" % (time.time() - self.t0, line))
            self.out.flush()
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()

    def alive(self):
        return self.p.poll() is None

    def status(self, timeout=20):
        """The service's answer to "status" as a dict, or None."""
        with self.cond:
            n = len(self.lines)
        try:
            self.p.stdin.write("status\n")
            self.p.stdin.flush()
        except (OSError, ValueError):
            return None
        deadline = time.time() + timeout
        with self.cond:
            while time.time() < deadline:
                for line in self.lines[n:]:
                    if line.startswith("status "):
                        return dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
                self.cond.wait(max(0.1, deadline - time.time()))
        return None

    def stop(self, timeout=90):
        """Asks the service to stop; TERM, then KILL if it does not. Its exit code."""
        try:
            self.p.stdin.write("stop\n")
            self.p.stdin.flush()
        except (OSError, ValueError):
            pass
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.terminate()
            try:
                return self.p.wait(30)
            except subprocess.TimeoutExpired:
                self.p.kill()
                return self.p.wait(30)
        finally:
            self.reader.join(10)
            self.out.close()
            self.err.close()


class Soak:
    def __init__(self, args):
        self.a = args
        self.t0 = time.time()
        self.dir = args.dir
        self.samples = {}  # role -> [(t, VmRSS, RssAnon, RssFile, Threads, fds)]
        self.services = {}
        self.stop_at = {}  # role -> t at which the sampler stops sampling it
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.smaps = {}  # role -> [(t, path)]
        self.nmt = {}  # role -> [(t, path, rss)]
        self.checks = []  # (what, ok, detail)
        self.events = open(os.path.join(self.dir, "events.log"), "w")
        self.csv = open(os.path.join(self.dir, "rss.csv"), "w")
        self.csv.write("t_s,role,pid,vmrss_kib,rss_anon_kib,rss_file_kib,threads,fds\n")
        self.ncpu = os.cpu_count() or 1

    def now(self):
        return time.time() - self.t0

    def event(self, text):
        line = "%7.1f %s" % (self.now(), text)
        self.events.write(line + "\n")
        self.events.flush()
        if not self.a.quiet:
            print(line, flush=True)

    def check(self, what, ok, detail):
        self.checks.append((what, ok, detail))
        self.event("%s %s: %s" % ("ok  " if ok else "FAIL", what, detail))

    # ---- sampling ---------------------------------------------------------------------

    def sampler(self):
        n = 0
        limit = int(self.a.minutes * 60 / self.a.sample_every) + 20  # bounded
        marks_done = set()
        while n < limit and not self.done.is_set():
            t = self.now()
            for role, svc in list(self.services.items()):
                if not svc.alive() or t > self.stop_at.get(role, 1e18):
                    continue
                st = read_status(svc.pid)
                if st is None:
                    continue
                row = (round(t, 1), st["VmRSS"], st["RssAnon"], st["RssFile"], st["Threads"], st["fds"])
                with self.lock:
                    self.samples.setdefault(role, []).append(row)
                self.csv.write("%.1f,%s,%d,%d,%d,%d,%d,%d\n" % ((row[0], role, svc.pid) + row[1:]))
                # smaps at the mark (and at the end: finish())
                if t >= self.a.warmup and role not in marks_done:
                    marks_done.add(role)
                    self.save_smaps(role, svc.pid)
            self.csv.flush()
            n += 1
            self.done.wait(max(0.0, self.t0 + n * self.a.sample_every - time.time()))

    def save_smaps(self, role, pid):
        t = self.now()
        path = os.path.join(self.dir, "smaps-%s-%05d.txt" % (role, int(t)))
        try:
            with open("/proc/%d/smaps" % pid) as f, open(path, "w") as out:
                out.write(f.read())
        except OSError as e:
            self.event("could not save smaps of %s: %s" % (role, e))
            return
        with self.lock:
            self.smaps.setdefault(role, []).append((t, path))

    def save_nmt(self, role, pid):
        t = self.now()
        r = run([self.a.jcmd, str(pid), "VM.native_memory", "summary"])
        st = read_status(pid)
        if r is None or r.returncode != 0:
            self.event("jcmd VM.native_memory of %s failed" % role)
            return
        path = os.path.join(self.dir, "nmt-%s-%05d.txt" % (role, int(t)))
        with open(path, "w") as f:
            f.write(r.stdout)
        self.nmt.setdefault(role, []).append((t, path, st["VmRSS"] if st else 0))

    # ---- profiles ---------------------------------------------------------------------

    def check_profile(self, what, path, thread_bound):
        if not os.path.exists(path):
            self.check(what, False, "no profile at %s" % path)
            return
        r = run([WASP, "report", "--format", "json", path])
        if r is None or r.returncode != 0:
            self.check(what, False, "wasp report failed: %s" % (r.stderr.strip()[-300:] if r else "timeout"))
            return
        try:
            meta = json.loads(r.stdout)["meta"]
        except (ValueError, KeyError) as e:
            self.check(what, False, "unreadable JSON: %s" % e)
            return
        threads = meta.get("threads")
        cpu = meta.get("cpu_seconds")
        wall = meta.get("duration_seconds")
        problems = []
        if not isinstance(threads, (int, float)) or threads < 1 or threads > thread_bound:
            problems.append("threads %s not in 1..%d" % (threads, thread_bound))
        if not isinstance(cpu, (int, float)) or not isinstance(wall, (int, float)) or \
                cpu < 0 or cpu > (wall + 1) * self.ncpu:
            problems.append("cpu_seconds %s beyond (wall %s + 1) x %d CPUs" % (cpu, wall, self.ncpu))
        detail = "threads %s (bound %d), cpu %s s, wall %s s, samples %s, %d KiB" % (
            threads, thread_bound, cpu, wall, meta.get("samples_per_second"),
            os.path.getsize(path) // 1024)
        self.check(what, not problems, "; ".join(problems) + ("; " if problems else "") + detail)

    def window_threads(self, role, t_from, started_from):
        """Threads the JVM can have had since t_from: the most /proc counted since then,
        plus the Java threads started since then."""
        st = self.services[role].status()
        with self.lock:
            most = max([s[4] for s in self.samples.get(role, []) if s[0] >= t_from - self.a.sample_every] + [0])
        cur = read_status(self.services[role].pid)
        most = max(most, cur["Threads"] if cur else 0)
        started = int(st["started"]) if st else 10 ** 6
        return most + max(0, started - started_from)

    # ---- modes ------------------------------------------------------------------------

    def attach_sessions(self):
        svc = self.services["agent"]
        end = self.a.minutes * 60
        k = 0
        max_sessions = int(end / self.a.session_every) + 1
        nmt_done = False
        while k < max_sessions and svc.alive():
            start = (k + 1) * self.a.session_every
            if start + self.a.duration + 20 > end:
                break
            self.sleep_until(start)
            if not nmt_done and self.now() >= self.a.warmup:
                self.nmt_all()
                nmt_done = True
            events = ROTATION[k % len(ROTATION)]
            name = "s%02d-%s" % (k, events.replace(",", "+"))
            prof = os.path.join(self.dir, name + ".wprof")
            st = svc.status()
            started0 = int(st["started"]) if st else 0
            t_from = self.now()
            dump = self.a.dump_every > 0 and k % self.a.dump_every == self.a.dump_every - 1
            if not dump:
                self.event("session %d: attach -d %d -e %s" % (k, self.a.duration, events))
                r = run([WASP, "attach", "-q", "-d", str(self.a.duration), "-e", events, "-o", prof,
                         str(svc.pid)], log=os.path.join(self.dir, name + ".out"))
                if r is None or r.returncode != 0:
                    self.check("session %d attach" % k, False, "exit %s" % (r.returncode if r else "timeout"))
                self.check_profile("session %d (%s)" % (k, events), prof,
                                   self.window_threads("agent", t_from, started0))
            else:
                self.event("session %d: attach -e %s, dump, detach" % (k, events))
                r = run([WASP, "attach", "-q", "-e", events, "-o", prof, str(svc.pid)],
                        log=os.path.join(self.dir, name + ".out"))
                if r is None or r.returncode != 0:
                    self.check("session %d attach" % k, False, "exit %s" % (r.returncode if r else "timeout"))
                self.sleep_until(self.now() + self.a.duration / 2)
                dprof = os.path.join(self.dir, name + ".dump.wprof")
                r = run([WASP, "dump", "-q", "-o", dprof, str(svc.pid)],
                        log=os.path.join(self.dir, name + ".dump.out"))
                if r is None or r.returncode != 0:
                    self.check("session %d dump" % k, False, "exit %s" % (r.returncode if r else "timeout"))
                self.check_profile("session %d dump (%s)" % (k, events), dprof,
                                   self.window_threads("agent", t_from, started0))
                self.sleep_until(self.now() + self.a.duration / 2)
                r = run([WASP, "detach", "-q", str(svc.pid)], log=os.path.join(self.dir, name + ".detach.out"))
                if r is None or r.returncode != 0:
                    self.check("session %d detach" % k, False, "exit %s" % (r.returncode if r else "timeout"))
                self.check_profile("session %d (%s, after a dump)" % (k, events), prof,
                                   self.window_threads("agent", t_from, started0))
            k += 1
        if not nmt_done:
            self.nmt_all()
        self.sleep_until(end)

    def snapshot_watch(self):
        svc = self.services["agent"]
        end = self.a.minutes * 60
        nmt_done = False
        k = 0
        while k < 10000 and svc.alive() and self.now() < end:
            k += 1
            self.sleep_until(min(end, k * 300))
            if not nmt_done and self.now() >= self.a.warmup:
                self.nmt_all()
                nmt_done = True
            if self.now() < end - 1 and os.path.exists(self.profile):
                st = svc.status()
                started = int(st["started"]) if st else 10 ** 6
                with self.lock:
                    most = max([s[4] for s in self.samples.get("agent", [])] + [0])
                self.check_profile("snapshot at %d s" % self.now(), self.profile, most + started)
        if not nmt_done:
            self.nmt_all()

    def nmt_all(self):
        for role, svc in self.services.items():
            if svc.alive() and self.now() <= self.stop_at.get(role, 1e18):
                self.save_nmt(role, svc.pid)

    def sleep_until(self, t):
        while True:
            left = t - self.now()
            if left <= 0:
                return
            time.sleep(min(left, 5))
            # the baseline stops early when asked for a shorter one
            for role, svc in self.services.items():
                if role != "agent" and self.now() >= self.stop_at.get(role, 1e18) and svc.p.returncode is None \
                        and role not in self.finished:
                    self.finish(role)

    # ---- the run ----------------------------------------------------------------------

    def java_cmd(self, agent_opts=None):
        cmd = [os.path.join(self.a.jdk, "bin", "java"), "-Xms" + self.a.heap, "-Xmx" + self.a.heap,
               "-XX:+AlwaysPreTouch", "-XX:NativeMemoryTracking=summary"]
        if self.jdk_feature >= 21 and self.a.mode == "attach":
            cmd.append("-XX:+EnableDynamicAgentLoading")
        if agent_opts:
            cmd.append("-agentpath:%s=%s" % (AGENT, agent_opts))
        return cmd + ["-cp", overhead.BENCH_CLASSES, "Service", "0", str(self.a.workers), str(self.a.rate)]

    def finish(self, role):
        """Final status (alive and computing), smaps and NMT, then stop."""
        self.finished.add(role)
        svc = self.services[role]
        if not svc.alive():
            self.check("%s alive at the end" % role, False, "exited with %s" % svc.p.returncode)
            return
        self.save_smaps(role, svc.pid)
        self.save_nmt(role, svc.pid)
        before = self.last_status.get(role)
        st = svc.status()
        ok = st is not None and before is not None and int(st["requests"]) > int(before["requests"])
        self.check("%s alive and computing at the end" % role, ok,
                   "requests %s -> %s, rejected %s, threads started %s, churned %s, executors %s" % (
                       before and before.get("requests"), st and st.get("requests"),
                       st and st.get("rejected"), st and st.get("started"), st and st.get("churned"),
                       st and st.get("executors")))
        self.final_status[role] = st
        self.stop_at[role] = min(self.stop_at.get(role, 1e18), self.now())
        rc = svc.stop()
        self.check("%s stopped" % role, rc == 0, "exit %s" % rc)

    def run(self):
        self.finished = set()
        self.last_status = {}
        self.final_status = {}
        self.jdk_feature = jdk_feature(self.a.jdk)
        self.profile = os.path.join(self.dir, "snapshot.wprof")
        agent_opts = None
        if self.a.mode == "snapshot":
            agent_opts = "events=%s,file=%s,log=%s" % (self.a.events, self.profile, self.profile + ".log")
            if self.a.snapshot not in ("0", "none"):
                agent_opts += ",snapshot=" + self.a.snapshot
            if self.a.agent_options:
                agent_opts += "," + self.a.agent_options
        cmds = {"agent": self.java_cmd(agent_opts)}
        if self.a.baseline_minutes > 0:
            cmds["baseline"] = self.java_cmd()
            self.stop_at["baseline"] = self.a.baseline_minutes * 60
        self.stop_at["agent"] = self.a.minutes * 60
        for role, cmd in cmds.items():
            self.event("%s: %s" % (role, " ".join(shlex.quote(c) for c in cmd)))
            self.services[role] = Service(role, cmd, self.dir, self.t0)
        sampler = threading.Thread(target=self.sampler, daemon=True)
        sampler.start()
        time.sleep(5)
        for role, svc in self.services.items():
            st = svc.status(timeout=60)
            if st is None:
                for s in self.services.values():
                    s.stop(10)
                die("the %s service did not answer; see %s" % (role, os.path.join(self.dir, role + ".err")))
            self.last_status[role] = st
            self.event("%s pid %d up: %s" % (role, svc.pid, st))
        try:
            if self.a.mode == "attach":
                self.attach_sessions()
            else:
                self.snapshot_watch()
            self.sleep_until(self.a.minutes * 60)
            for role, svc in self.services.items():
                st = svc.status()
                if st:
                    self.last_status[role] = st
            time.sleep(min(10, self.a.sample_every))
            for role in self.services:
                if role not in self.finished:
                    self.finish(role)
        finally:
            self.done.set()
            for svc in self.services.values():
                if svc.alive():
                    svc.p.kill()
                    svc.p.wait(30)
        sampler.join(30)
        if self.a.mode == "snapshot":
            st = self.final_status.get("agent") or {}
            with self.lock:
                most = max([s[4] for s in self.samples.get("agent", [])] + [0])
            self.check_profile("final profile", self.profile, most + int(st.get("started", 10 ** 6)))
        self.csv.close()

    # ---- the report -------------------------------------------------------------------

    def report(self, argv):
        mib = lambda kib: "%.1f MiB" % (kib / 1024.0)  # noqa: E731
        out = []
        out.append("## Soak: %s mode, %g minutes (%s)" % (self.a.mode, self.a.minutes,
                                                           datetime.datetime.now().strftime("%Y-%m-%d %H:%M")))
        out.append("")
        out.append("    python3 bench/soak.py " + " ".join(shlex.quote(x) for x in argv))
        out.append("")
        out.append("Machine: %s. JDK: %s. Load average at the end: %s. Files: %s." % (
            overhead.machine(), overhead.jdk_version(os.path.join(self.a.jdk, "bin", "java")),
            overhead.loadavg(), self.dir))
        out.append("")
        out.append("| JVM | minutes | RSS at %.3g min | RSS at end | growth after %.3g min (slope) | max RSS | "
                   "threads min-max (end) | fds min-max (end) | requests (rejected) |" % (
                       self.a.warmup / 60, self.a.warmup / 60))
        out.append("|---|---|---|---|---|---|---|---|---|")
        for role in self.services:
            s = self.samples.get(role, [])
            if not s:
                continue
            at_mark = min(s, key=lambda r: abs(r[0] - self.a.warmup))
            after = [(r[0], r[1] / 1024.0) for r in s if r[0] >= self.a.warmup]
            slope = slope_per_hour(after)
            st = self.final_status.get(role) or {}
            out.append("| %s | %.1f | %s | %s | %s | %s | %d-%d (%d) | %d-%d (%d) | %s (%s) |" % (
                role, s[-1][0] / 60, mib(at_mark[1]), mib(s[-1][1]),
                "%+.1f MiB/h" % slope if slope is not None else "-", mib(max(r[1] for r in s)),
                min(r[4] for r in s), max(r[4] for r in s), s[-1][4],
                min(r[5] for r in s), max(r[5] for r in s), s[-1][5],
                st.get("requests", "?"), st.get("rejected", "?")))
        out.append("")
        out.append("RssAnon / RssFile at the mark and at the end:")
        out.append("")
        for role in self.services:
            s = self.samples.get(role, [])
            if s:
                at_mark = min(s, key=lambda r: abs(r[0] - self.a.warmup))
                out.append("- %s: anon %s -> %s, file %s -> %s" % (
                    role, mib(at_mark[2]), mib(s[-1][2]), mib(at_mark[3]), mib(s[-1][3])))
        out.append("")
        # NMT: the JVM's own committed memory, and RSS beyond it
        if any(len(v) >= 2 for v in self.nmt.values()):
            out.append("Native memory tracking (committed) at the mark and at the end; "
                       "\"RSS - NMT\" is resident memory NMT does not account for (libc, wasp, "
                       "the difference between committed and resident):")
            out.append("")
            for role, caps in self.nmt.items():
                if len(caps) < 2:
                    continue
                (t1, p1, rss1), (t2, p2, rss2) = caps[0], caps[-1]
                tot1, c1 = nmt_committed(open(p1).read())
                tot2, c2 = nmt_committed(open(p2).read())
                if tot1 is None or tot2 is None:
                    continue
                moved = sorted(((c2.get(k, 0) - c1.get(k, 0), k) for k in set(c1) | set(c2)), reverse=True)
                moved = ", ".join("%s %+.1f MiB" % (k, d / 1024.0) for d, k in moved if abs(d) >= 512)
                out.append("- %s (%d s -> %d s): NMT %s -> %s; RSS - NMT %s -> %s; categories that moved "
                           "by 0.5 MiB or more: %s" % (role, t1, t2, mib(tot1), mib(tot2), mib(rss1 - tot1),
                                                       mib(rss2 - tot2), moved or "none"))
            out.append("")
        for role, caps in self.smaps.items():
            if len(caps) < 2:
                continue
            totals, grew = smaps_growth(caps[0][1], caps[-1][1])
            out.append("%s, /proc/PID/smaps at %d s and %d s, RSS by kind of mapping (count):" % (
                role, caps[0][0], caps[-1][0]))
            out.append("")
            for k, (r1, r2, n1, n2) in sorted(totals.items(), key=lambda kv: -kv[1][1]):
                out.append("- %s: %s (%d) -> %s (%d)" % (k, mib(r1), n1, mib(r2), n2))
            out.append("")
            out.append("Mappings that grew the most (start, size then -> now, perms, name: RSS then -> now):")
            out.append("")
            for d, s0, e, e0, perms, name, rss0, rss in grew:
                out.append("- %x %s -> %s %s %s: %s -> %s (%+.1f MiB)" % (
                    s0, "new" if e0 is None else "%d KiB" % ((e0 - s0) // 1024), "%d KiB" % ((e - s0) // 1024),
                    perms, name, mib(rss0), mib(rss), d / 1024.0))
            out.append("")
        failed = [c for c in self.checks if not c[1]]
        out.append("Checks: %d passed, %d failed." % (len(self.checks) - len(failed), len(failed)))
        out.append("")
        for what, ok, detail in self.checks:
            out.append("- %s %s: %s" % ("ok" if ok else "**FAILED**", what, detail))
        text = "\n".join(out) + "\n"
        with open(os.path.join(self.dir, "soak.md"), "w") as f:
            f.write(text)
        if self.a.out:
            with open(self.a.out, "w") as f:
                f.write(text)
        print(text)
        return 1 if failed else 0


def run(cmd, log=None, timeout=CMD_TIMEOUT):
    """Runs a local command; its CompletedProcess, or None on timeout. Output also to log."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        if log:
            with open(log, "w") as f:
                f.write("timed out after %d s: %s\n" % (timeout, " ".join(cmd)))
        return None
    if log:
        with open(log, "w") as f:
            f.write("$ %s\nexit %d\n%s%s" % (" ".join(shlex.quote(c) for c in cmd), r.returncode, r.stdout, r.stderr))
    return r


def jdk_feature(jdk):
    try:
        with open(os.path.join(jdk, "release")) as f:
            m = re.search(r'^JAVA_VERSION="(\d+)', f.read(), re.M)
            return int(m.group(1)) if m else 17
    except OSError:
        return 17


def analyze(csv_path, warmup, every):
    """A finished run's rss.csv: each JVM's growth in the two halves after the
    mark (saturating or not), and the agent's RSS minus the baseline's every
    EVERY seconds (attach mode: 50 s into each minute, 30 s after a session)."""
    rows = {}
    with open(csv_path) as f:
        for line in f.readlines()[1:]:
            t, role, _pid, rss = line.split(",")[:4]
            rows.setdefault(role, {})[int(float(t)) // 10 * 10] = int(rss) / 1024.0
    for role, pts in rows.items():
        after = sorted((t, v) for t, v in pts.items() if t >= warmup)
        if len(after) < 6:
            continue
        mid = (after[0][0] + after[-1][0]) / 2
        a = slope_per_hour([p for p in after if p[0] <= mid])
        b = slope_per_hour([p for p in after if p[0] >= mid])
        print("%s: %d-%d s %+.1f MiB/h, %d-%d s %+.1f MiB/h" % (role, after[0][0], mid, a, mid, after[-1][0], b))
    if "agent" in rows and "baseline" in rows and every > 0:
        ag, bl = rows["agent"], rows["baseline"]
        out = []
        for k in range(1, 100000):
            t = int(k * every - 10)
            if t > max(ag):
                break
            if t in ag and t in bl:
                out.append("%d s %+.1f" % (t, ag[t] - bl[t]))
        print("agent - baseline (MiB): " + ", ".join(out))


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--analyze":
        analyze(sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 300,
                float(sys.argv[4]) if len(sys.argv) > 4 else 60)
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", choices=["attach", "snapshot"], default="attach")
    ap.add_argument("--minutes", type=float, default=30, help="length of the profiled run (default 30)")
    ap.add_argument("--baseline-minutes", type=float, default=None,
                    help="the baseline JVM (no agent) runs beside it for this long (default: as long; 0: none)")
    ap.add_argument("--jdk", default=overhead.DEFAULT_JDK)
    ap.add_argument("--heap", default="256m", help="-Xms and -Xmx of both JVMs (default 256m)")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--rate", type=int, default=2000, help="requests a second (default 2000)")
    ap.add_argument("--warmup", type=float, default=300,
                    help="seconds before the mark from which growth is measured (default 300)")
    ap.add_argument("--sample-every", type=float, default=10, help="seconds between RSS samples (default 10)")
    ap.add_argument("--session-every", type=float, default=60, help="attach: seconds between sessions (default 60)")
    ap.add_argument("--duration", type=int, default=20, help="attach: seconds of each session (default 20)")
    ap.add_argument("--dump-every", type=int, default=4,
                    help="attach: every Nth session attaches without -d, dumps and detaches (default 4; 0: never)")
    ap.add_argument("--events", default="all", help="snapshot: the agent's events (default all)")
    ap.add_argument("--snapshot", default="10s", help="snapshot: the agent's snapshot interval (default 10s; 0: none, the profile "
                         "is written at exit only)")
    ap.add_argument("--agent-options", default="",
                    help="snapshot: more agent options, e.g. max-contexts=20000 (appended after a comma)")
    ap.add_argument("--dir", help="where everything goes (default /tmp/wasp-soak-MODE-DATE)")
    ap.add_argument("--out", help="also write the report here")
    ap.add_argument("-q", "--quiet", action="store_true", help="print only the report")
    a = ap.parse_args()
    if a.baseline_minutes is None:
        a.baseline_minutes = a.minutes
    a.baseline_minutes = min(a.baseline_minutes, a.minutes)
    if not (0 < a.minutes <= 24 * 60) or a.sample_every < 1 or a.session_every < a.duration + 10:
        die("--minutes must be in (0, 1440], --sample-every at least 1, --session-every at least --duration + 10")
    if not os.path.exists(AGENT) or not os.path.exists(WASP):
        die("build wasp first (make): %s or %s is missing" % (AGENT, WASP))
    java = os.path.join(a.jdk, "bin", "java")
    a.jcmd = os.path.join(a.jdk, "bin", "jcmd")
    if not os.path.exists(java):
        die("no java at %s" % java)
    overhead.compile_bench(a.jdk)
    if not a.dir:
        a.dir = "/tmp/wasp-soak-%s-%s" % (a.mode, datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    os.makedirs(a.dir, exist_ok=True)
    s = Soak(a)
    s.run()
    sys.exit(s.report(sys.argv[1:]))


if __name__ == "__main__":
    main()
