"""Integration tests of Java fields at sampled addresses (Inoue & Nakatani,
`wasp run -e fields`): objects found from data addresses alone, without
allocation tracking.

Not run on its own: tests/integration/run.py imports this module and calls

    fields.make_tests(sys.modules[__name__])

which returns [(name, thunk(ctx, jdk))] to run on every JDK. `h` is run.py's
module; the helpers used from it: Fail, check, tail, run, expectation, leaf,
where, at, checksum_of, WASP, CLASSES, Ctx.

The workloads (tests/workloads/Fields*.java) plant one hot field or one hot
array among many at the line marked `// WASP-EXPECT: fields`; the member it
touches is named by a `// WASP-FIELD: Class.field` (or `// WASP-FIELD:
type[]` for an array's elements) marker on its declaration.
"""

import os
import re

# The planted member's share of the heap samples: the hot loops of both
# workloads miss the cache on nearly every step and the cold accesses are a
# small fraction (FieldsField: 1 visit in 64 reads the other fields; measured
# shares 68-81%). A wrong object lookup spreads the samples over other
# classes, offsets or arrays.
PLANTED_SHARE = 0.4
# Heap samples whose object (class) was named: the paper identified 84%; the
# issue's target is 95%. Measured 88.8-100% on these workloads: FieldsField
# allocates its million Cells first, and samples then in objects being
# initialized have no header yet. Without the lookup nothing is named.
NAMED_SHARE = 0.8
MIN_HEAP_SAMPLES = 200
# Four times and more the default work: hundreds of heap samples at the
# analysis's 4 ms period. FieldsStatic reads its hot field right after each
# store's fence, where the samples taken during the fence land: at 4000,
# 6,285-6,921 heap samples (JDK 17, 25), so 1000 is ample.
ARGS = {"FieldsField": ("100",), "FieldsArray": ("96",), "FieldsStatic": ("1000",)}
# Workloads whose planted member is a static field: named "NAME (static)" in
# the class it belongs to (without the mirror's size and its class, the
# samples would name java.lang.Class at an offset past its fields, or none).
STATIC = {"FieldsStatic"}

# The header and reference widths the fields analysis reads from the JVM:
# an 8-byte class word (fields from 16, an array's length at 16, elements at
# 20 or 24) and 8-byte references. The planted int field must still be named,
# by accesses of its width (docs/fields.md, step 6).
UNCOMPRESSED = ("-XX:-UseCompressedClassPointers", "-XX:-UseCompressedOops")

H = None


def make_tests(h):
    global H
    H = h
    return [("fields.field", lambda c, j: t_fields(c, j, "FieldsField")),
            ("fields.array", lambda c, j: t_fields(c, j, "FieldsArray")),
            ("fields.static", lambda c, j: t_fields(c, j, "FieldsStatic")),
            ("fields.field_uncompressed", lambda c, j: t_uncompressed(c, j, "FieldsField")),
            ("fields.being_allocated", t_being_allocated),
            ("fields.later_look", t_later_look)] + [
            ("fields.field_%s" % gc, (lambda gc: lambda c, j: t_collector(c, j, gc))(gc))
            for gc in COLLECTORS] + [("fields.blind_warning", t_blind_warning)]


# VmZeroing allocates 256 KiB long[]s outside the allocation buffers: the
# JVM's slow path clears each body before it writes the header, so a sample
# there finds no header. Its Java frame stands at the `newarray` that asked
# for it, which names the class (measured: every such heap sample named
# long[] on JDK 17 and 25; how many there are varies with the buffers, 9-60
# at this size). Without the bytecode lookup none is named.
BEING_ALLOCATED = "(being allocated: cleared by the JVM)"
ALLOCATING_MIN = 5
ALLOCATING_NAMED = 0.8
VM_ARRAYS = "100000"


def t_being_allocated(ctx, jdk):
    """Heap samples in an object the JVM is still clearing are named by the
    class its allocation bytecode creates."""
    out = ctx.path("VmZeroing-fields.wprof")
    r = H.run([H.WASP, "run", "-e", "fields", "-o", out, "-q", "--", jdk.java, "-cp", H.CLASSES,
               "VmZeroing", VM_ARRAYS])
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    rep = ctx.report(out)
    f = rep.get("fields") or {}
    e = H.expectation("VmZeroing")
    # Heap samples under the allocating line with no header (named by it, or
    # not named at all): in the runtime's clearing, or compiled code's.
    def under(frames):
        return any(H.at(x, e["method"], e["line"]) for x in frames)
    named = sum(c["loads"] + c["stores"] for m in f.get("fields") or []
                if m.get("class") == "long[]" and m.get("field") == BEING_ALLOCATED
                for c in m.get("contexts") or [] if under(c.get("frames") or []))
    unnamed = sum(u["loads"] + u["stores"] for u in f.get("unnamed") or []
                  if u.get("area") not in ("native", "class metadata", "code cache", "stack")
                  and under(u.get("frames") or []))
    total = named + unnamed
    H.check(total >= ALLOCATING_MIN, "only %d heap samples without a header under %s:%d (need >= %d)"
            % (total, e["method"], e["line"], ALLOCATING_MIN))
    H.check(named >= ALLOCATING_NAMED * total, "%d of %d heap samples without a header named "
            "long[] %s (need %.0f%%)" % (named, total, BEING_ALLOCATED, 100 * ALLOCATING_NAMED))
    # The bytecode names them, or (within the header search's reach of the
    # array's start) a later look does.
    by_alloc = H.counter(rep, "fields.by_allocation")
    later = rep["counters"].get("fields.by_later_look", 0)
    H.check(by_alloc + later >= named, "counters fields.by_allocation = %d and by_later_look = %d, "
            "below the %d samples named so" % (by_alloc, later, named))
    return "%d of %d heap samples without a header named long[] by the allocating bytecode" % (
        named, total)


# RuntimeArrays under -Xint: the interpreter's newarray calls the runtime,
# which clears each int[200] before it writes the header, so a sample in that
# clearing finds none; the thread's next sample looks again and finds the
# array (measured on a fast machine: 325 of 330 such samples named by the
# later look, the rest by the bytecode, their thread ending before its next
# sample). Without the later look only the bytecode names them; with a later
# look that named whatever lay there afterwards, other classes would appear.
# The slow path also retires the thread's TLAB under that line, writing a
# filler over its unused tail (JDK 19+: jdk.internal.vm.FillerElement[]); a
# sample in that header write is the filler's, labelled FILLER, not an object
# being allocated (seen in 1 of ~450 such samples, once).
FILLER = "(the JVM's filler of unused heap space)"
LATER_MIN = 30
LATER_SHARE = 0.8
LATER_SECONDS = 8.0  # at 2 ms: 77-202 named in 3 s; at 4 ms (from 4000000): 130-369


def t_later_look(ctx, jdk):
    """Heap stores in an array the runtime is still clearing are named by a
    later look at the same address, once its header is written."""
    jvm = ["-Xint"]
    args = ctx.sized(jdk, jvm, "RuntimeArrays", ["4000000"], LATER_SECONDS)
    r, rep = ctx.profile(jdk, "fields", "RuntimeArrays", args, jvm_args=jvm)
    H.check(H.checksum_of(r.out) == ctx.baseline(jdk, jvm, "RuntimeArrays", args),
            "checksum differs from the run without the agent")
    f = rep.get("fields") or {}
    e = H.expectation("RuntimeArrays")
    allocating, fillers = {}, {}
    for m in f.get("fields") or []:
        into = {BEING_ALLOCATED: allocating, FILLER: fillers}.get(m.get("field"))
        if into is None:
            continue
        for c in m.get("contexts") or []:
            if any(H.at(x, e["method"], e["line"]) for x in c.get("frames") or []):
                into[m.get("class")] = into.get(m.get("class"), 0) + c["loads"] + c["stores"]
    total = sum(allocating.values())
    later = H.counter(rep, "fields.by_later_look")
    H.check(later >= LATER_MIN, "only %d samples named by a later look (need >= %d)" % (later, LATER_MIN))
    H.check(set(allocating) == {"int[]"}, "objects being allocated under %s:%d named %s, expected "
            "int[] alone" % (e["method"], e["line"], allocating))
    H.check(later >= LATER_SHARE * total, "%d of %d samples in int[]s being allocated named by a "
            "later look (need %.0f%%)" % (later, total, 100 * LATER_SHARE))
    return "%d of %d samples in int[]s being allocated named by a later look%s" % (
        later, total, "; fillers %s" % fillers if fillers else "")


# Collectors whose heap is not described by CollectedHeap::_reserved (ZGC:
# its own VMStructs globals, agent/zgc_heap.h; generational on JDK 25), or
# whose parts wasp does not name (Shenandoah, Epsilon: area "heap"). Before,
# under ZGC the analysis logged that VMStructs did not give the heap's range
# and named nothing, with no warning in the report.
COLLECTORS = {"zgc": ("-XX:+UseZGC",), "shenandoah": ("-XX:+UseShenandoahGC",),
              "epsilon": ("-XX:+UnlockExperimentalVMOptions", "-XX:+UseEpsilonGC")}


def accepts_all(jdk, flags):
    r = H.run([jdk.java] + list(flags) + ["-version"], timeout=60)
    return r.rc == 0


def t_collector(ctx, jdk, gc):
    """The planted field is found under a collector other than G1."""
    flags = COLLECTORS[gc]
    if not accepts_all(jdk, flags):
        H.skip("%s does not accept %s" % (jdk.name, " ".join(flags)))
    return t_fields(ctx, jdk, "FieldsField", flags, tag=gc)


# A run where the analysis cannot see objects at all: compact object headers
# (JDK 24+) put the class in the mark word, which the fields analysis does
# not read (docs/fields.md). The report must say so: the JSON `warnings`
# name the analysis and the reason, the text report's header too. JDK 17 has
# no such flag, and under every collector it runs the analysis sees: skipped.
BLIND_FLAGS = ("-XX:+UseCompactObjectHeaders",)


def t_blind_warning(ctx, jdk):
    """An analysis that found no Java objects is named in the report's
    warnings, with why."""
    if not accepts_all(jdk, BLIND_FLAGS):
        H.skip("%s does not accept %s" % (jdk.name, " ".join(BLIND_FLAGS)))
    out = ctx.path("FieldsField-blind.wprof")
    r = H.run([H.WASP, "run", "-e", "fields", "-o", out, "--", jdk.java] + list(BLIND_FLAGS) +
              ["-cp", H.CLASSES, "FieldsField", "10"])
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    H.check("fields find no objects by their headers" in r.err,
            "no start-up log line names fields: %s" % H.tail(r.err))
    rep = ctx.report(out)
    warnings = rep.get("warnings") or []
    blind = [w for w in warnings if w.startswith("fields ") and "UseCompactObjectHeaders" in w]
    H.check(len(blind) == 1, "JSON warnings %r do not name fields and compact object headers"
            % warnings)
    text = H.run([H.WASP, "report", out])
    H.check(text.rc == 0 and blind[0] in text.out,
            "the text report does not carry the warning: %s" % H.tail(text.out))
    return blind[0]


def t_uncompressed(ctx, jdk, workload):
    for flag in UNCOMPRESSED:
        if not jdk.accepts(flag):
            H.skip("%s does not accept %s" % (jdk.name, flag))
    return t_fields(ctx, jdk, workload, UNCOMPRESSED)


def planted_member(workload):
    path = os.path.join(H.WORKLOAD_SRC, workload + ".java")
    with open(path) as f:
        marks = re.findall(r"//\s*WASP-FIELD:\s*(\S+)", f.read())
    H.check(len(marks) == 1, "%s: expected one WASP-FIELD marker, found %d" % (path, len(marks)))
    m = marks[0]
    if m.endswith("]"):
        return m, "[]"
    cls, _, field = m.rpartition(".")
    return cls, field + (" (static)" if workload in STATIC else "")


def t_fields(ctx, jdk, workload, jvm_args=(), tag=None):
    out = ctx.path("%s-%s.wprof" % (workload, tag) if tag else
                   "%s%s.wprof" % (workload, "-uncompressed" if jvm_args else ""))
    args = list(ARGS[workload])
    cmd = [H.WASP, "run", "-e", "fields", "-o", out, "-q", "--", jdk.java] + list(jvm_args) + [
        "-cp", H.CLASSES, workload] + args
    r = H.run(cmd)
    H.check(r.rc == 0, "wasp run exited %d: %s" % (r.rc, H.tail(r.err)))
    H.check(H.checksum_of(r.out) == ctx.baseline(jdk, list(jvm_args), workload, args),
            "checksum differs from the run without the agent")
    rep = ctx.report(out)
    f = rep.get("fields")
    H.check(isinstance(f, dict), "the report has no fields section (has: %s)" % ", ".join(sorted(rep)))
    heap, named = f["heap_samples"], f["named"]
    H.check(heap >= MIN_HEAP_SAMPLES, "only %.0f heap samples (need >= %d)" % (heap, MIN_HEAP_SAMPLES))
    H.check(named >= NAMED_SHARE * heap, "only %.0f of %.0f heap samples named (%.1f%%, need >= %.0f%%)"
            % (named, heap, 100.0 * named / heap, 100 * NAMED_SHARE))
    cls, field = planted_member(workload)
    members = f["fields"]
    H.check(members, "no field ranked")
    top = members[0]
    ranked = ", ".join("%s.%s %.0f%%" % (m["class"], m["field"], 100 * m["share"]) for m in members[:4])
    H.check(top["class"] == cls and top["field"] == field,
            "#1 is %s.%s, expected %s.%s (ranked: %s)" % (top["class"], top["field"], cls, field, ranked))
    H.check(top["share"] >= PLANTED_SHARE, "%s.%s has %.0f%% of the heap samples, expected >= %.0f%%"
            % (cls, field, 100 * top["share"], 100 * PLANTED_SHARE))
    e = H.expectation(workload)
    H.check(e["analysis"] == "fields", "%s's marker is for %r" % (workload, e["analysis"]))
    leaf = H.leaf(top["contexts"][0])
    H.check(H.at(leaf, e["method"], e["line"]), "%s.%s's top context is at %s, expected %s:%d"
            % (cls, field, H.where(leaf), e["method"], e["line"]))
    areas = ", ".join("%s %.0f" % kv for kv in sorted(top["areas"].items()))
    mismatch = rep["counters"].get("fields.mismatch", 0)
    return ("%s.%s #1 with %.0f%% of %.0f heap samples, %.1f%% named (%d not fitting their field), "
            "at %s; areas: %s" % (cls, field, 100 * top["share"], heap, 100.0 * named / heap,
                                  mismatch, H.where(leaf), areas))
