"""Integration tests of contexts in native code (issue 11): a library a Java
program calls through JNI, whose function is named from its ELF symbols and
followed by the Java frames that called it, with the caller's line; the
JVM's own runtime code run for a Java allocation, followed by the Java frames
that allocated; and an intrinsic stub (CRC32), followed by its Java caller.

Not run on its own: tests/integration/run.py imports this module and calls

    jni.make_tests(sys.modules[__name__])

which returns [(name, thunk(ctx, jdk))] to run on every JDK. `h` is run.py's
module (check, tail, run, expectation, checksum_of, where, at, WASP, CLASSES,
ROOT, Ctx).

The library (tests/jni/native_store.c, built by `make integration` into
build/tests/libnative_store.so) stores into a Java long[] from fill_longs;
NativeStore.refill calls it at the `// WASP-EXPECT: fields` line. The fields
analysis keeps every sample's context, named or not, so its report holds
the native samples' stacks.
"""

import os

# Most of the program's CPU time is in fill_longs (measured 85-95% of the
# samples with a memory access).
MIN_NATIVE = 100
# Of the samples in fill_longs, the share whose stack continues into its
# native caller Java_NativeStore_fill (found by frame pointer), then
# NativeStore.fill and NativeStore.refill at the marked line (measured 100%).
# A walk that stops at native code (AsyncGetCallTrace's "in native" status),
# skips the native caller (before native frames were walked) or a leaf not
# named from the library's symbols gives 0.
WALKED_MIN = 0.95
CALLS = "4000"

H = None


# VmZeroing: samples in the JVM's runtime, the thread "in the VM" zeroing a
# large array it allocates outside its buffer. Before the frame anchor's pc
# was filled in, AsyncGetCallTrace refused them ("unknown frame, not Java"):
# 1.4% of all samples had no Java frame (41 of 2990, JDK 17), and none of the
# runtime's samples had one, nor did the anchor path run (stack.anchor_pc 0).
# Now: 0-0.3%. How many samples fall in the VM's zeroing varies a lot from
# run to run (the allocation buffers adapt to the arrays): at 2.5x the
# default work, 12-52 walks through the anchor and 22-67 heap samples under
# the allocating line were measured, hence the bars below. The lost share's
# bar is 1%: at the rate measured (below) a run of 1,100 samples loses about
# three, and one CI run lost seven (0.63%) against a bar of 0.5%; the broken
# anchor path this guards against loses nearly every sample here, which now
# falls in the VM's zeroing (stack.anchor_pc 645 of 681).
VM_LOST_MAX = 0.01
VM_ANCHOR_MIN = 8
VM_WALKED_MIN = 15
VM_ARRAYS = "100000"
# The lost share is a rate of about 0.2% (0-1 of 518-564 samples in four CI
# runs, 0-5 of 1,087-1,197 in four more): a run of 293 samples, allowed one,
# lost two. The work is sized so that the run without the agent lasts
# VM_SECONDS here (900-2,300 samples measured at 6 s, allowing four and more), and the
# test needs VM_MIN_SAMPLES. A sample in the VM's zeroing costs fields 120-170 us (its
# backward search for a header in a large array), so the sampler's own budget backs
# off once or twice a run: 681 samples in one CI run at 6 s, hence 9.
VM_SECONDS = 9.0
VM_MIN_SAMPLES = 800
# Of those, the share with two or more native/stub frames (the leaf and its
# callers in libjvm, by frame pointer; measured 50-80%, the rest samples in
# the allocation stub itself); the leaf alone before native frames were walked.
VM_CHAINED_MIN = 0.4


# CrcStub: CRC32.update over a byte[] runs in the JVM's updateBytesCRC32
# intrinsic stub, a leaf without a frame of its own. Measured (JDK 17, page
# engine): 742 of 1010 samples in the stub, every one followed by
# CRC32.updateBytes, CRC32.update and CrcStub.digest at the marked line. A walk
# that stops at the stub (AsyncGetCallTrace's "unknown Java frame", before
# stubs were walked from their caller) gives none.
CRC_ROUNDS = "400000"
CRC_MIN_STUB = 100
CRC_WALKED_MIN = 0.95


# DeadStoreMemset: the planted line's stores are all killed by glibc's
# memset (`rep stosb` on CPUs with fast string stores, "erms" in
# /proc/cpuinfo), called from JNI. Before string instructions' traps were
# placed, each such trap was dropped (dropped.trap_decode) and, on page
# protection, memset was stepped element by element (4,096 faults a page,
# the fault cap): no pair at all, "nothing found". Measured since (JDK 17
# and 25, page protection, 4-7 armed): the planted pair's trap in memset
# holds 97-98% of the dead bytes; the rest is memset's own stores killed by
# the next round's fill. Where debug registers trap, memset's stores are
# sampled as often as its time gives (26% of the CPU, the fill 66%), and a
# rep stos sample weighs the bytes its step stores: memset's zeros killed by
# the fill took 76% of the dead bytes (2026-12-01, JDK 17 and 25, both CI
# runs), a true pair too. So the check is of the fill's pairs: of the dead
# bytes watched at the planted line, the planted pair's share. The bar: half.
MEMSET_SHARE_MIN = 0.5


def make_tests(h):
    global H
    H = h
    return [("stacks.jni", t_jni), ("stacks.vm_runtime", t_vm_runtime),
            ("stacks.crc_stub", t_crc_stub), ("strings.memset.deadstore", t_memset),
            ("budget.stale-watch", t_stale_watch)]


def cpu_has_erms():
    with open("/proc/cpuinfo") as f:
        return any(l.startswith("flags") and " erms" in l for l in f)


def memset_run(ctx, jdk, workload, options=()):
    """`wasp run -e deadstore` (and options) on a workload that clears memory
    through tests/jni/native_store.c, its checksum checked against a run
    without the agent. Returns (the report, the JVM options given)."""
    lib = os.path.join(H.ROOT, "build", "tests", "libnative_store.so")
    H.check(os.path.isfile(lib), "%s is missing (make integration builds it)" % lib)
    jvm = ["-Dwasp.jni=" + lib]
    out = ctx.path(workload + ".wprof")
    r = H.run([H.WASP, "run", "-e", "deadstore"] + list(options) + ["-o", out, "-q", "--",
              jdk.java] + jvm + ["-XX:ErrorFile=" + out + ".hs_err", "-cp", H.CLASSES, workload])
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    H.check(H.checksum_of(r.out) == ctx.baseline(jdk, jvm, workload, []),
            "checksum differs from the run without the agent")
    return ctx.report(out), jvm


def fill_pairs(rep):
    """DeadStoreMemset's planted line and the dead-store pairs watched there
    (at least one)."""
    e = H.expectation("DeadStoreMemset")
    pairs = H.analysis(rep, "deadstore")["pairs"]
    fill = [p for p in pairs if H.at(H.leaf(p["watch"]), e["method"], e["line"])]
    H.check(fill, "no dead-store pair is watched at %s:%d; pairs at %s" % (
        e["method"], e["line"], [H.where(H.leaf(p["watch"])) for p in pairs[:5]]))
    return e, fill


def t_memset(ctx, jdk):
    """Dead stores killed by a repeated string instruction (memset's `rep
    stosb`, native code through JNI) are pairs like any other: the planted
    line's watch, trapped in memset under the Java method that called it."""
    rep, _ = memset_run(ctx, jdk, "DeadStoreMemset")
    H.check(H.analysis(rep, "deadstore")["pairs"], "no dead-store pairs (dropped: %s)" % ", ".join(
        "%s %d" % (k, v) for k, v in sorted(rep["counters"].items()) if k.startswith("dropped")))
    e, fill = fill_pairs(rep)
    wasted = sum(p["bytes"] for p in fill)
    planted = [p for p in fill
               if any("memset" in (f.get("method") or "") for f in (p.get("trap") or {}).get("frames", []))]
    share = sum(p["bytes"] for p in planted) / wasted if wasted else 0.0
    top = fill[0]
    H.check(planted and top is planted[0],
            "the top pair watched at %s:%d is killed at %s, expected in memset" % (
                e["method"], e["line"], H.where(H.leaf(top.get("trap")))))
    H.check(share >= MEMSET_SHARE_MIN, "the planted pair holds %.1f%% of the dead bytes watched at "
            "the planted line (need %.0f%%)" % (100 * share, 100 * MEMSET_SHARE_MIN))
    insn = planted[0]["trap"].get("instruction", "")
    if cpu_has_erms():
        H.check(insn.startswith("rep stos"), "memset's killing store is %r, expected rep stos "
                "(this CPU has fast string stores)" % insn)
    frames = planted[0]["trap"]["frames"]
    return "%.1f%% of the dead bytes at %s:%d killed by %s in %s <- %s; %d armed" % (
        100 * share, e["method"], e["line"], insn or "?", frames[-1].get("method"),
        H.where(frames[-2]) if len(frames) > 1 else "-", H.counter(rep, "armed"))



# StaleWatchMemset: phase one stores to a 64 MiB array once, so debug
# registers armed there watch bytes never stored again; phase two is
# DeadStoreMemset's loop, whose memset runs element by element while any
# data breakpoint is enabled on its thread. Before such watches were dropped
# once their analysis was deep in debt to the watch budget (handler.c,
# drop_costly_watches), phase two ran under them to the end: 19.4-23.6 s of
# CPU against 2.4 s without wasp, and zero to four pairs in all, as in the
# CI run where strings.memset.deadstore found no pair at the planted line
# (16 runs, JDK 25, AMD EPYC KVM guest, 2026-12-02). Since: 2.6-3.7 s (1.0-1.4x). The
# run's budget is 50%: at the default 10%, a watch armed in the JVM's
# memset of the 64 MiB array (before the fix, slowing it to its end) left
# the budget spent for all of phase one in about half the runs, so that
# phase one armed nothing and the broken agent passed. The bar: 2.5 times
# the run without wasp.
STALE_CPU_MOST = 2.5


def t_stale_watch(ctx, jdk):
    """A watch that never traps is dropped once the string moves it slows
    put its analysis deep in debt to the watch budget: the program runs at
    about its speed without wasp, and the planted pair (the fill killed by
    memset) is still found."""
    workload = "StaleWatchMemset"
    rep, jvm = memset_run(ctx, jdk, workload, ["--watch-budget", "0.5"])
    base = ctx.baseline_seconds[(jdk.home, tuple(jvm), workload, ())]
    meta, counters = rep["meta"], rep["counters"]
    dropped = counters.get("dropped.string_cost", 0)
    if meta.get("watch_string_slowdown") is None:
        H.check(dropped == 0, "string moves are not slowed here (watch %s), yet %d watches "
                "dropped for them" % (meta.get("watch"), dropped))
        return "watch %s: string moves not slowed, nothing dropped" % meta.get("watch")
    cpu = float(meta.get("cpu_seconds") or 0)
    H.check(cpu <= STALE_CPU_MOST * base, "the run took %.1f s of CPU, %.1fx its %.1f s without "
            "wasp (most %.1fx); %d samples in string moves under a watch, %d watches dropped"
            % (cpu, cpu / base, base, STALE_CPU_MOST, counters.get("watch.string_samples", 0),
               dropped))
    e, fill = fill_pairs(rep)
    return "CPU %.1f s (%.1f s without, %.1fx); %d samples in string moves under a watch, %d " \
        "watches dropped for them; %d pairs at %s:%d" % (
            cpu, base, cpu / base, counters.get("watch.string_samples", 0), dropped, len(fill),
            e["method"], e["line"])


def fields_run(ctx, jdk, workload, args, jvm=(), text=None):
    """The report of `wasp run -e fields` on workload, its checksum checked
    against a run without the agent. Sampled every 1 ms, not at fields' own
    2 ms: these tests are of the stack walks, and their bars were measured so.
    text: a list that receives the text report too."""
    out = ctx.path(workload + ".wprof")
    r = H.run([H.WASP, "run", "-e", "fields", "--period", "1ms", "-o", out, "-q", "--", jdk.java] +
              list(jvm) +
              ["-cp", H.CLASSES, workload] + list(args))
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    H.check(H.checksum_of(r.out) == ctx.baseline(jdk, list(jvm), workload, list(args)),
            "checksum differs from the run without the agent")
    if text is not None:
        r = H.run([H.WASP, "report", out])
        H.check(r.rc == 0, "wasp report exited %d: %s" % (r.rc, H.tail(r.err)))
        text.append(r.out)
    return ctx.report(out)


def t_crc_stub(ctx, jdk):
    """Samples in an intrinsic stub (CRC32) are the leaf [jvm stub] frame
    followed by the Java frames that called it, with the caller's line."""
    rep = fields_run(ctx, jdk, "CrcStub", [CRC_ROUNDS])
    e = H.expectation("CrcStub")
    stub = walked = 0
    seen = []
    for n, frames in contexts(rep):
        leaf = frames[-1] if frames else {}
        if leaf.get("kind") != "stub" or "CRC32" not in (leaf.get("method") or ""):
            continue
        stub += n
        ok = any(H.at(f, e["method"], e["line"]) for f in frames[:-1])
        walked += n if ok else 0
        if not ok:
            seen.append(" <- ".join(H.where(f) for f in reversed(frames[-4:])))
    H.check(stub >= CRC_MIN_STUB, "only %d samples in a CRC32 stub (need >= %d)"
            % (stub, CRC_MIN_STUB))
    H.check(walked >= CRC_WALKED_MIN * stub, "%d of %d samples in the CRC32 stub continue into "
            "%s:%d (need %.0f%%); e.g. %s" % (walked, stub, e["method"], e["line"],
                                             100 * CRC_WALKED_MIN, "; ".join(seen[:2])))
    return "%d samples in the CRC32 stub, %d of them under %s:%d" % (stub, walked, e["method"],
                                                                     e["line"])


def t_vm_runtime(ctx, jdk):
    """Samples taken while the thread runs the JVM's own code for a Java
    allocation get the Java frames that allocated, with the line."""
    args = ctx.sized(jdk, [], "VmZeroing", [VM_ARRAYS], VM_SECONDS)
    rep = fields_run(ctx, jdk, "VmZeroing", args)
    e = H.expectation("VmZeroing")
    samples = H.counter(rep, "samples")
    H.check(samples >= VM_MIN_SAMPLES, "only %d samples (need >= %d)" % (samples, VM_MIN_SAMPLES))
    lost = rep["counters"].get("stack.no_java_frames", 0)
    anchor = rep["counters"].get("stack.anchor_pc", 0)
    under = [(n, frames) for n, frames in contexts(rep)
             if any(H.at(f, e["method"], e["line"]) for f in frames)]
    walked = sum(n for n, _ in under)
    # The runtime's own frames between the leaf and the Java frames (libjvm
    # keeps frame pointers): more than the leaf alone.
    chained = sum(n for n, frames in under
                  if sum(1 for f in frames if f.get("kind") in ("native", "stub")) >= 2)
    H.check(lost <= VM_LOST_MAX * samples, "%d of %d samples have no Java frame (need <= %.1f%%)"
            % (lost, samples, 100 * VM_LOST_MAX))
    H.check(anchor >= VM_ANCHOR_MIN, "only %d walks of threads in the VM through the frame anchor "
            "(need >= %d)" % (anchor, VM_ANCHOR_MIN))
    H.check(walked >= VM_WALKED_MIN, "only %d heap samples under %s:%d (need >= %d)"
            % (walked, e["method"], e["line"], VM_WALKED_MIN))
    H.check(chained >= VM_CHAINED_MIN * walked, "only %d of %d samples under %s:%d show the "
            "runtime's frames below the Java ones (need %.0f%%)" % (
                chained, walked, e["method"], e["line"], 100 * VM_CHAINED_MIN))
    return "%d of %d samples without Java frames, %d walked through the anchor, %d under %s:%d, " \
        "%d with the runtime's frames" % (lost, samples, anchor, walked, e["method"], e["line"], chained)


def contexts(rep):
    """(samples, frames root first) of every context the fields analysis kept."""
    f = rep.get("fields")
    H.check(isinstance(f, dict), "the report has no fields section")
    out = [(c["loads"] + c["stores"], c.get("frames") or [])
           for m in f.get("fields") or [] for c in m.get("contexts") or []]
    out += [(u["loads"] + u["stores"], u.get("frames") or []) for u in f.get("unnamed") or []]
    return out


def t_jni(ctx, jdk):
    lib = os.path.join(H.ROOT, "build", "tests", "libnative_store.so")
    H.check(os.path.isfile(lib), "%s is missing (make integration builds it)" % lib)
    text = []
    rep = fields_run(ctx, jdk, "NativeStore", [CALLS], jvm=["-Dwasp.jni=" + lib], text=text)
    e = H.expectation("NativeStore")
    native = walked = 0
    seen = []
    for n, frames in contexts(rep):
        leaf = frames[-1] if frames else {}
        if leaf.get("kind") != "native" or leaf.get("method") != "fill_longs":
            continue
        H.check(leaf.get("file") == "libnative_store.so", "fill_longs named in %r, expected "
                "libnative_store.so" % leaf.get("file"))
        native += n
        # fill_longs <- Java_NativeStore_fill (native to native, by frame
        # pointer) <- NativeStore.fill (the native method) <- the marked line
        ok = (len(frames) >= 4 and frames[-2].get("method") == "Java_NativeStore_fill" and
              frames[-2].get("file") == "libnative_store.so" and
              frames[-3].get("method") == "NativeStore.fill" and
              H.at(frames[-4], e["method"], e["line"]))
        walked += n if ok else 0
        if not ok:
            seen.append(" <- ".join(H.where(f) for f in reversed(frames[-5:])))
    H.check(native >= MIN_NATIVE, "only %d samples named fill_longs (need >= %d)" % (native, MIN_NATIVE))
    H.check(walked >= WALKED_MIN * native, "%d of %d samples in fill_longs continue into "
            "Java_NativeStore_fill <- NativeStore.fill <- %s:%d (need %.0f%%); e.g. %s" % (
                walked, native, e["method"], e["line"], 100 * WALKED_MIN, "; ".join(seen[:2])))
    # The native method reads as in a Java stack trace (JSON: line -1, as unknown).
    H.check("at NativeStore.fill(Native Method)\n" in text[0],
            "the text report does not name NativeStore.fill a native method: %s"
            % [l.strip() for l in text[0].splitlines() if "NativeStore.fill" in l][:2])
    return "%d samples in libnative_store.so fill_longs, %.0f%% followed by Java_NativeStore_fill <- NativeStore.fill <- %s:%d" % (
        native, 100.0 * walked / native, e["method"], e["line"])
