#!/usr/bin/env python3
"""Writes the profile fuzzer's seed corpus (tests/fuzz/corpus/profile/): small
valid profiles, each using a different part of the format, written from
docs/profile-format.md (not by wasp's own writer, so the seeds also check that
the page describes what the reader accepts: tests/fuzz/run-profile.sh reads
each with `wasp report` before fuzzing).

    python3 tests/fuzz/make_profile_corpus.py [DIR]
"""
import os
import struct
import sys
import zlib

DEADSTORE, SILENTSTORE, SILENTLOAD = 0, 1, 2
JAVA, NATIVE, STUB, UNKNOWN = 0, 1, 2, 3


def u32(v):
    return struct.pack("<I", v)


def i32(v):
    return struct.pack("<i", v)


def u64(v):
    return struct.pack("<Q", v)


def f64(v):
    return struct.pack("<d", v)


def s(text):
    b = text.encode()
    return u32(len(b)) + b


def section(tag, payload):
    return tag.encode() + u64(len(payload)) + payload


def table(rows):
    """The u32 count, then the rows' bytes."""
    return u32(len(rows)) + b"".join(rows)


def profile(*sections, version=1):
    body = b"WASPPROF" + u32(version) + b"".join(sections) + section("END_", b"")
    return body + u32(zlib.crc32(body))


class Strings:
    """The STRS table, string 0 the empty one."""

    def __init__(self):
        self.items = [""]

    def id(self, text):
        if text not in self.items:
            self.items.append(text)
        return self.items.index(text)

    def section(self):
        return section("STRS", table([s(t) for t in self.items]))


def meta(**kv):
    return section("META", table([s(k.replace("__", ".")) + s(v) for k, v in kv.items()]))


def counters(**kv):
    return section("CNTR", table([s(k.replace("__", ".")) + u64(v) for k, v in kv.items()]))


def frames_and_contexts(st):
    """Three Java frames, a native and a stub frame; four contexts."""
    frames = [
        (JAVA, st.id("Main.main"), st.id("Main.java"), 10),
        (JAVA, st.id("Main.work"), st.id("Main.java"), 42),
        (JAVA, st.id("Main.sweep"), st.id("Main.java"), -1),
        (NATIVE, st.id("libc.so.6`memset"), st.id("/lib/libc.so.6"), -1),
        (STUB, st.id("StubRoutines::arraycopy"), 0, -1),
    ]
    contexts = [
        (st.id("0x7f00: movl %eax, 0x10(%rbx)"), [0, 1]),
        (st.id("0x7f08: movl %ecx, 0x10(%rbx)"), [0, 2]),
        (0, [0, 1, 3]),
        (0, []),
    ]
    frms = section("FRMS", table([u32(k) + u32(n) + u32(f) + i32(l) for k, n, f, l in frames]))
    ctxs = section("CTXS", table([u32(i) + u32(len(fs)) + b"".join(u32(x) for x in fs)
                                  for i, fs in contexts]))
    return frms, ctxs


def totals(*rows):
    return section("TOTL", table([u32(a) + f64(b) + f64(w) + f64(wa) + f64(p)
                                  for a, b, w, wa, p in rows]))


def pairs_profile():
    st = Strings()
    frms, ctxs = frames_and_contexts(st)
    pairs = section("PAIR", table([
        u32(DEADSTORE) + u32(0) + u32(0) + u32(1) + f64(4096.0) + f64(12.5),
        u32(SILENTSTORE) + u32(1) + u32(1) + u32(1) + f64(800.0) + f64(3.0),
        u32(SILENTLOAD) + u32(0) + u32(2) + u32(0) + f64(64.0) + f64(1.0),
    ]))
    return profile(
        meta(java_command="Main", events="deadstore+silentstore+silentload", sampler="timer"),
        st.section(), frms, ctxs, pairs,
        totals((DEADSTORE, 8192.0, 4096.0, 0.0, 20.0), (SILENTSTORE, 1600.0, 0.0, 800.0, 6.0),
               (SILENTLOAD, 128.0, 64.0, 0.0, 2.0)),
        counters(samples=900, samples__memory=400, armed=300, trapped=120, classified=100,
                 dropped__no_context=3),
        section("MRGD", u32(2)))


def sites(st):
    return section("SITE", table([
        u32(3) + u32(st.id("double[]")) + f64(12.0) + f64(49152.0),
        u32(2) + u32(st.id("java.lang.String")) + f64(3.0) + f64(72.0),
    ]))


def objects_profile():
    st = Strings()
    frms, ctxs = frames_and_contexts(st)
    site = sites(st)
    accesses = section("SACC", table([
        u32(0) + u32(0) + f64(30.0) + f64(0.0),
        u32(0) + u32(1) + f64(5.5) + f64(1.0),
        u32(1) + u32(1) + f64(2.0) + f64(0.0),
    ]))
    return profile(
        meta(java_command="Objects", events="objects", objects__min_size="1024",
             objects__sampling_interval="262144", numa_nodes="2"),
        st.section(), frms, ctxs, site, accesses,
        counters(samples=500, objects__samples=480, objects__unattributed=40, objects__stale=2))


def replicas_profile():
    st = Strings()
    frms, ctxs = frames_and_contexts(st)
    site = sites(st)
    records = section("REPL", table([
        u32(0) + u32(0) + f64(90.0) + f64(10.0),
        u32(1) + u32(1) + f64(1.0) + f64(9.0),
    ]))
    checks = section("RCHK", table([u32(0) + f64(40.0) + f64(36.0) + f64(0.05) + f64(0.01)]))
    return profile(meta(java_command="Replicas", events="replicas"),
                   st.section(), frms, ctxs, site, records, checks, counters(samples=300))


def fields_profile():
    """FLDS: {u32 class, u32 member (strings), u32 offset (0xffffffff for an
    array element), u32 area (heap/heap_area.h), u32 ctx, f64 loads, f64 stores}."""
    st = Strings()
    frms, ctxs = frames_and_contexts(st)
    eden, old = 2, 4
    rows = section("FLDS", table([
        u32(st.id("Point")) + u32(st.id("x")) + u32(12) + u32(eden) + u32(0) + f64(40.0) + f64(2.0),
        u32(st.id("Point")) + u32(st.id("y")) + u32(16) + u32(old) + u32(1) + f64(0.0) + f64(7.5),
        u32(st.id("double[]")) + u32(0) + u32(0xffffffff) + u32(eden) + u32(2) + f64(3.0) + f64(0.0),
    ]))
    return profile(meta(java_command="FieldsField", events="fields"),
                   st.section(), frms, ctxs, rows, counters(samples=200, samples__memory=150))


def alloc_profile():
    """ALOC: {u32 class (string), u32 ctx, f64 samples}."""
    st = Strings()
    frms, ctxs = frames_and_contexts(st)
    rows = section("ALOC", table([
        u32(st.id("java.lang.String")) + u32(0) + f64(120.0),
        u32(st.id("int[]")) + u32(2) + f64(4.0),
    ]))
    return profile(meta(java_command="AllocMix", events="alloc"),
                   st.section(), frms, ctxs, rows, counters(samples=150))


def locks_profile():
    """LOCK: {u32 class, u32 where (strings), u32 ctx, f64 acquire, f64 release,
    f64 slow}."""
    st = Strings()
    frms, ctxs = frames_and_contexts(st)
    rows = section("LOCK", table([
        u32(st.id("java.lang.Object")) + u32(st.id("monitorenter")) + u32(1) + f64(30.0) +
        f64(29.0) + f64(3.0),
        u32(st.id("java.util.concurrent.locks.ReentrantLock")) + u32(0) + u32(3) + f64(1.0) +
        f64(0.0) + f64(0.0),
    ]))
    return profile(meta(java_command="LockContention", events="locks"),
                   st.section(), frms, ctxs, rows, counters(samples=90))


def fields_alloc_locks_profile():
    """The three together, with metadata numbers (MNUM), as -e fields+alloc+locks writes."""
    st = Strings()
    frms, ctxs = frames_and_contexts(st)
    cls, member, where = st.id("Point"), st.id("x"), st.id("monitorenter")
    mnum = section("MNUM", table([s("pid") + f64(4242.0), s("duration_seconds") + f64(1.5),
                                  s("watch_budget") + f64(0.02)]))
    return profile(
        meta(java_command="FieldsField 5", events="fields+alloc+locks", pid="4242",
             duration_seconds="1.5", watch_budget="0.02"),
        mnum, st.section(), frms, ctxs,
        section("FLDS", table([u32(cls) + u32(member) + u32(12) + u32(1) + u32(0) +
                               f64(5.0) + f64(1.0)])),
        section("ALOC", table([u32(cls) + u32(1) + f64(8.0)])),
        section("LOCK", table([u32(cls) + u32(where) + u32(2) + f64(2.0) + f64(2.0) + f64(1.0)])),
        counters(samples=60))


def unknown_section_profile():
    """An unknown section, skipped by its length (how the format grows)."""
    st = Strings()
    st.id("x")
    return profile(section("XTRA", b"\x01\x02\x03\x04"), st.section(),
                   totals((DEADSTORE, 0.0, 0.0, 0.0, 0.0)))


SEEDS = {
    "minimal": lambda: profile(),
    "pairs": pairs_profile,
    "objects": objects_profile,
    "replicas": replicas_profile,
    "unknown-section": unknown_section_profile,
    "fields": fields_profile,
    "alloc": alloc_profile,
    "locks": locks_profile,
    "fields-alloc-locks": fields_alloc_locks_profile,
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus", "profile")
    os.makedirs(out, exist_ok=True)
    for name, make in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(make())
        print("%s: %d bytes" % (os.path.join(out, name), os.path.getsize(os.path.join(out, name))))


if __name__ == "__main__":
    main()
