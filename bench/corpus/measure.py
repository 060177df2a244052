"""One run of a corpus program, with or without wasp, and what its profile
says: shared by bench/corpus.py (the benchmark) and
tests/integration/corpus.py (the smoke tests).

CPU time and peak RSS come from os.wait4 on the process started: java itself
for a run without the agent, `wasp run` for a profiled one. wait4's rusage
covers the child and the descendants it waited for, so a profiled run's CPU
is java's plus wasp run's own (which is small: it starts java and waits; -q
renders no report) and its peak RSS is the larger of the two, java's.
"""

import glob
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

import programs

ROOT = programs.ROOT
WASP = os.path.join(ROOT, "build", "bin", "wasp")
UNAVAILABLE = "[stack unavailable"


class Run:
    """What one run did: rc, wall and CPU seconds, peak RSS (KiB), stdout,
    the output's digest, hs_err files left, the profile path (agent runs)."""
    def __init__(self, **kw):
        self.__dict__.update(kw)


def run_program(prog, java, inputs, size, watch=None, events=None, workdir=None, timeout=900,
                extra=None):
    """Runs prog once at size; with events, under `wasp run -e events --watch
    watch -q -o FILE`. The run's files go to a fresh directory under workdir
    (its working directory, so an hs_err file lands there)."""
    out = tempfile.mkdtemp(prefix="%s-" % prog.name, dir=workdir)
    cmd = prog.command(java, inputs, size, out)
    profile = None
    if events:
        profile = os.path.join(out, "profile.wprof")
        cmd = [WASP, "run", "-q", "-e", events, "--watch", watch, "-o", profile] + \
            list(extra or []) + ["--"] + cmd
    logpath = os.path.join(out, "output.txt")
    t0 = time.monotonic()
    with open(logpath, "w+b") as log:
        p = subprocess.Popen(cmd, cwd=out, stdin=subprocess.DEVNULL, stdout=log,
                             stderr=subprocess.STDOUT, start_new_session=True)
        deadline = t0 + timeout
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                os.killpg(p.pid, signal.SIGKILL)
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.05)
        wall = time.monotonic() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        log.seek(0)
        text = log.read().decode(errors="replace")
    return Run(prog=prog.name, rc=p.returncode, wall=wall, cpu=ru.ru_utime + ru.ru_stime,
               rss_kib=ru.ru_maxrss, out=text, digest=prog.digest(text, out),
               hs_err=glob.glob(os.path.join(out, "hs_err_pid*.log")), dir=out,
               profile=profile, cmd=cmd, timed_out=wall > timeout)


def report(profile, fmt="json"):
    """`wasp report --format fmt PROFILE`: (rc, stdout, stderr)."""
    r = subprocess.run([WASP, "report", "--format", fmt, profile], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def own_unavailable(node):
    """Whether an entry's own stacks (its contexts' frames, not the entries of
    its nested lists) include a "[stack unavailable: ...]" frame."""
    if isinstance(node, str):
        return node.startswith(UNAVAILABLE)
    if isinstance(node, dict):
        return any(own_unavailable(v) for k, v in node.items()
                   if k == "frames" or not isinstance(v, list))
    if isinstance(node, list):
        return any(own_unavailable(v) for v in node)
    return False


def unavailable_in_top(node, path="", top=10):
    """Where an entry whose stack is "[stack unavailable: ...]" ranks above an
    entry with a stack among the first `top` entries of any ranked list of the
    JSON report (entries of entries too: a site's contexts). wasp ranks such
    entries after the others (they sum places the walk could not tell apart),
    so one above a walked entry is a ranking that mixes them. Returns the
    paths."""
    found = []
    if isinstance(node, dict):
        for k, v in node.items():
            if k != "frames":  # a context's frames are no ranked list
                found += unavailable_in_top(v, "%s.%s" % (path, k) if path else k, top)
    elif isinstance(node, list):
        flags = [own_unavailable(v) for v in node]
        for i, v in enumerate(node[:top]):
            here = "%s[%d]" % (path, i)
            if flags[i] and not all(flags[i:]):
                found.append("%s: ranked above an entry with a stack" % here)
            found += unavailable_in_top(v, here, top)
    return found


def metrics(rep, run):
    """The numbers the corpus table shows, from a JSON report and its run."""
    c = rep.get("counters", {})
    meta = rep.get("meta", {})
    samples = c.get("samples", 0)
    walks = c.get("stack.walks", 0)
    table_full = sum(v for k, v in c.items() if k.endswith("table_full"))
    unavailable = unavailable_in_top(
        {k: v for k, v in rep.items() if k not in ("meta", "counters", "warnings")})
    return {
        "samples": samples,
        "pairs": c.get("classified", 0),
        "armed": c.get("armed", 0),
        "table_full": table_full,
        "table_full_share": table_full / samples if samples else 0.0,
        "no_java_frames": c.get("stack.no_java_frames", 0),
        "stack_walks": walks,
        "no_java_share": c.get("stack.no_java_frames", 0) / walks if walks else 0.0,
        "samples_per_cpu_s": samples / run.cpu if run.cpu else 0.0,
        "pairs_per_cpu_s": c.get("classified", 0) / run.cpu if run.cpu else 0.0,
        "armed_per_min": c.get("armed", 0) / (run.wall / 60.0) if run.wall else 0.0,
        "unavailable_top10": unavailable,
        # wasp's cost as its own counters see it: the sampling handler per
        # sample, and the handlers' time plus the watch events' measured
        # cost (traps on debug registers, faults on the page engine) as a
        # share of the run's CPU. Unlike the ratios, these do not move with
        # the machine's load.
        "handler_us_per_sample": c.get("sampler.handler_ns", 0) / 1e3 / samples if samples else 0.0,
        "self_share": self_share(c, meta, run.cpu),
        "faults_per_armed": c.get("watch.faults", 0) / c["armed"] if c.get("armed") else 0.0,
        "watch": meta.get("watch"),
        "sampler": meta.get("sampler"),
        "counters": c,
        # What one watch event cost here (the page engine's budget divides by it).
        "watch_costs_us": {k: meta[k] for k in ("watch_event_us", "watch_emulated_us",
                                                 "watch_emulated_load_us", "watch_stepped_us")
                           if k in meta},
    }


def self_share(c, meta, cpu):
    """The handlers' time and the watch events' modelled cost over cpu s."""
    if not cpu:
        return 0.0
    ns = c.get("sampler.handler_ns", 0) + c.get("watch.handler_ns", 0)
    if "watch_emulated_us" in meta:  # the page engine: its faults
        emulated = c.get("watch.emulated", 0)
        ns += 1e3 * (emulated * meta["watch_emulated_us"] +
                     (c.get("watch.faults", 0) - emulated) * meta.get("watch_stepped_us", 0))
    else:  # debug registers: the traps (their handler time is in watch.handler_ns)
        ns += 1e3 * c.get("trapped", 0) * meta.get("watch_event_us", 0)
    return ns / 1e9 / cpu


def cleanup(run):
    shutil.rmtree(run.dir, ignore_errors=True)
