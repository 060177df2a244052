#!/usr/bin/env python3
"""Agent-option fuzzer (docs/testing.md, "Fuzzing"): mutated and garbage
option strings for `java -agentpath:build/lib/libwasp.so=OPTIONS -version`.

Each run must end by itself (no signal, no hs_err file, within the timeout);
an accepted string must let the JVM print its version; a rejected one must
print a line "wasp: ... option '<text>' ..." whose quoted text is the start of
the option string or of one of its comma-separated items (the option that was
refused). The strings come from a seeded RNG: the seed is printed, and
`--seed N` gives the same strings again. Failures are listed and saved under
build/fuzz/crashes/agent-options/.

    python3 tests/fuzz/agent_options.py [--count N] [--seed N] [--jobs N] [--java JAVA]
                                          [--agent LIB] [--timeout S]
"""
import argparse
import concurrent.futures
import glob
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AGENT = os.path.join(ROOT, "build", "lib", "libwasp.so")
WASP = os.path.join(ROOT, "build", "bin", "wasp")
CRASHES = os.path.join(ROOT, "build", "fuzz", "crashes", "agent-options")
JAVA = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"

# Values each key accepts, the bounds included (a key missing here, e.g. a new
# one, gets values from the other keys' lists).
GOOD_VALUES = {
    b"events": [b"deadstore", b"silentstore+silentload", b"all", b"objects:replicas"],
    b"file": [b"x.wprof", b"-", b"a b.wprof"],
    b"log": [b"stderr", b"none", b"x.log"],
    b"period": [b"1ms", b"500us", b"10us", b"10s", b"2000000"],
    b"sampler": [b"auto", b"perf", b"timer", b"pmu"],
    b"pmu-event": [b"MEM_UOPS_RETIRED:ALL_LOADS", b"nosuchevent"],
    b"pmu-period": [b"1", b"20011", b"1000000000"],
    b"watchpoints": [b"1", b"4"],
    b"watch": [b"auto", b"debugreg", b"page"],
    b"watch-budget": [b"0", b"2%", b"0.5"],
    b"float-threshold": [b"0", b"1%", b"0.99"],
    b"max-frames": [b"1", b"2048"],
    b"min-size": [b"0", b"2147483647"],
    b"alloc-interval": [b"0", b"262144", b"2147483647"],
    b"alloc-rate": [b"0", b"1000000"],
    b"verify-top": [b"0", b"100"],
    b"track-existing": [b"0", b"1"],
    b"recompile": [b"0", b"1"],
    b"seed": [b"0", b"18446744073709551615"],
    b"signal": [b"auto", b"sigtrap", b"fasync"],
    b"action": [b"start", b"stop"],
}
ANY_GOOD = sorted({v for vs in GOOD_VALUES.values() for v in vs})
BAD_VALUES = [b"", b"-1", b"-0", b"99999999999999999999999", b"1e309", b"nan", b"inf", b"-inf",
              b"0x10", b"1.5.5", b"%", b"10zz", b"+", b"++deadstore", b"deadstore+", b"::",
              b"1e-400", b"0.5%%", b"18446744073709551616", b"2147483648", b"10s0", b"1 ms",
              b" 1", b"\xff\xfe", "\u00e9t\u00e9".encode(), b"=", b"==", b"'", b"\"", b"\\",
              b"\t", b"%s%n%x", b"a" * 5000, b"9" * 400]
# Bytes a mutation inserts: every printable byte but '/' (so no file or log
# value leaves the run's own directory) and a few others; never NUL.
ALPHABET = bytes(b for b in range(1, 256) if b != ord("/"))
PUNCT = b",=+:%.-"


def agent_keys():
    """The agent's option keys, from `wasp help agent` (so the fuzzer follows
    the option table)."""
    out = subprocess.run([WASP, "help", "agent"], capture_output=True, timeout=60).stdout
    keys = sorted(set(re.findall(rb"^  ([a-z][a-z-]*)=", out, re.M)))
    if len(keys) < 10:
        sys.exit("agent-options: could not read the option keys from `wasp help agent` "
                 "(found %r)" % keys)
    return keys


def item(rng, keys):
    r = rng.random()
    if r < 0.55:
        key = rng.choice(keys)
        return key + b"=" + rng.choice(GOOD_VALUES.get(key, ANY_GOOD))
    if r < 0.80:
        return rng.choice(keys) + b"=" + rng.choice(BAD_VALUES)
    if r < 0.88:
        return rng.choice(keys)  # no '=value'
    if r < 0.95:
        n = rng.randint(0, 12)
        return bytes(rng.choice(ALPHABET) for _ in range(n)).replace(b",", b"") + b"=1"
    return b""  # an empty item: ",," or a leading/trailing comma


def mutate(rng, s):
    s = bytearray(s)
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        pos = rng.randint(0, len(s))
        if op < 0.3 and s:
            del s[min(pos, len(s) - 1)]
        elif op < 0.6:
            s[pos:pos] = bytes([rng.choice(PUNCT if rng.random() < 0.5 else ALPHABET)])
        elif op < 0.8 and s:
            s[min(pos, len(s) - 1)] = rng.choice(ALPHABET)
        else:  # duplicate a slice
            a = rng.randint(0, len(s))
            s[pos:pos] = s[a:a + rng.randint(1, 16)]
    return bytes(s)


def option_strings(rng, keys, count):
    fixed = [b"", b",", b"=", b",,", b"bogus=1", b"=x", b"events", b"a" * 3000,
             b",".join(k + b"=" for k in keys), b",".join(keys)]
    out = list(fixed)
    while len(out) < count:
        s = b",".join(item(rng, keys) for _ in range(rng.randint(1, 4)))
        if rng.random() < 0.5:
            s = mutate(rng, s)
        out.append(s.replace(b"/", b"_"))
    return out[:count]


def shown(b):
    """b as the agent's messages quote it: control bytes as '?'."""
    return bytes(c if 0x20 <= c != 0x7f else 0x3f for c in b)


def names_an_option(err, opts, keys):
    """Does the agent's stderr name the refused option? Either it quotes the
    start of the option string or of one of its items ("wasp: bad option
    'period=1x': ..."; its key: "unknown option 'bogus'", "''" for "=x"), or
    it names a known key the string gives ("wasp: action=stop is for ...").
    The agent quotes the option with control bytes shown as '?' (so a message
    stays one line), and so is each name searched for."""
    items = [opts] + opts.split(b",")
    named = {shown(n) for n in set(items) | {i.split(b"=", 1)[0] for i in items}}  # whole, item or key
    for m in re.finditer(rb"wasp: [^'\n]*option[^'\n]*'", err):
        after = err[m.end():]
        # quoted whole, or the start of a long one (messages cut them short)
        if any(after.startswith(n + b"'") or (len(n) > 16 and after.startswith(n[:16]))
               for n in named):
            return True
    given = {i.split(b"=", 1)[0] for i in items} & set(keys)
    return any(b"wasp: " + k + b"=" in err or b"'" + k + b"'" in err for k in given)


def run_one(java, agent, opts, keys, timeout):
    """(problem or None, 'accepted'|'rejected', output)."""
    cwd = tempfile.mkdtemp(prefix="wasp-optfuzz-")
    try:
        argv = [java.encode(), b"-agentpath:" + agent.encode() + b"=" + opts, b"-version"]
        p = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            return "hung (killed after %d s)" % timeout, "hung", out + err
        both = out + err
        if p.returncode < 0:
            return "killed by signal %d" % -p.returncode, "crashed", both
        if glob.glob(os.path.join(cwd, "hs_err*")) or b"A fatal error has been detected" in both:
            return "the JVM crashed (hs_err)", "crashed", both
        if p.returncode == 0:
            if b'version "' not in both:
                return "exit 0 without the version", "accepted", both
            return None, "accepted", both
        if not names_an_option(err, opts, keys):
            return "exit %d without a line naming the option" % p.returncode, "rejected", both
        return None, "rejected", both
    finally:
        shutil.rmtree(cwd, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=400)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--java", default=JAVA)
    ap.add_argument("--agent", default=AGENT)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    print("agent-options: seed %d (rerun: python3 tests/fuzz/agent_options.py --seed %d "
          "--count %d)" % (seed, seed, args.count), flush=True)
    keys = agent_keys()
    strings = option_strings(random.Random(seed), keys, args.count)

    start = time.monotonic()
    tally, failures = {}, []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        runs = pool.map(lambda s: (s, run_one(args.java, args.agent, s, keys, args.timeout)),
                        strings)
        for i, (opts, (problem, kind, output)) in enumerate(runs):
            tally[kind] = tally.get(kind, 0) + 1
            if problem:
                failures.append((i, opts, problem, output))
    took = time.monotonic() - start

    if failures:
        os.makedirs(CRASHES, exist_ok=True)
    for i, opts, problem, output in failures:
        path = os.path.join(CRASHES, "seed%d-%d" % (seed, i))
        with open(path, "wb") as f:
            f.write(b"options: " + repr(opts).encode() + b"\nproblem: " + problem.encode() +
                    b"\n\n" + output)
        print("FAIL agent-options #%d %r: %s (saved in %s)" % (i, opts[:200], problem, path))
    print("agent-options: %d option strings in %.0f s: %s; %d failed" % (
        len(strings), took, ", ".join("%d %s" % (n, k) for k, n in sorted(tally.items())),
        len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
