"""The agent loads where little static TLS is left (once, not per JDK).

Not run on its own: tests/integration/run.py imports this module and calls

    static_tls.make_tests(sys.modules[__name__])

which returns [(name, thunk(ctx))]. `h` is run.py's module; the helpers used
from it: check, run, AGENT, ROOT.

A library loaded after start-up (an agent: libwasp.so is dlopen'ed by the JVM)
that uses initial-exec thread-local storage takes it from a small surplus
glibc reserves at start-up, shared by every such library; when it is gone,
dlopen fails ("cannot allocate memory in static TLS block") and the JVM does
not start. wasp's signal handlers need one such word (common/self_tid.c), so
the agent must take little. The test sizes the surplus with glibc's tunables
so that a 1 KiB filler library just fits, then asks for the agent with
WASP_TLS_HEADROOM bytes more: a 160-byte thread-local buffer in the agent (as
chain_dump.c once had) fails it.
"""

import os

H = None  # run.py's module, set by make_tests

WASP_TLS_HEADROOM = 64
FILLER = os.path.join("build", "tests", "static_tls_filler.so")
LOADER = ("import ctypes, sys\n"
          "for lib in sys.argv[1:]:\n"
          "    try:\n"
          "        ctypes.CDLL(lib)\n"
          "    except OSError as e:\n"
          "        print('refused', lib, e)\n"
          "        sys.exit(3)\n")


def make_tests(h):
    """[(name, thunk(ctx))]; h is run.py's module (sys.modules[__name__])."""
    global H
    H = h
    return [("agent.static-tls", t_static_tls)]


def loads(surplus, libs):
    """Whether a fresh process whose optional static TLS is `surplus` bytes
    (one namespace's worth of the rest) loads libs in order."""
    env = dict(os.environ)
    env["GLIBC_TUNABLES"] = "glibc.rtld.nns=1:glibc.rtld.optional_static_tls=%d" % surplus
    r = H.run(["python3", "-c", LOADER] + libs, env=env, timeout=60)
    H.check(r.rc in (0, 3), "the loader exited %d: %s" % (r.rc, H.tail(r.err)))
    return r.rc == 0, r.out.strip()


def t_static_tls(ctx):
    del ctx
    filler = os.path.join(H.ROOT, FILLER)
    H.check(os.path.exists(filler), "missing %s (make integration builds it)" % FILLER)
    # The least surplus the filler loads with: refused at lo, loads at hi.
    lo, hi = 0, 1 << 16
    ok, why = loads(lo, [filler])
    H.check(not ok, "the filler loaded with no optional static TLS at all: the tunables had no effect")
    H.check(loads(hi, [filler])[0], "the filler did not load with %d bytes of static TLS" % hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if loads(mid, [filler])[0]:
            hi = mid
        else:
            lo = mid
    ok, why = loads(hi + WASP_TLS_HEADROOM, [filler, H.AGENT])
    H.check(ok, "with %d bytes of static TLS left after another library's, the agent does not load: %s"
            % (WASP_TLS_HEADROOM, why))
    return "the filler needs %d bytes of optional static TLS; the agent loads with %d more" % (
        hi, WASP_TLS_HEADROOM)
