/*
 * Object creation without an allocation hook (Inoue and Nakatani, OOPSLA'09,
 * Section 5.1), in the handler. Two ways, by sampler:
 *
 * - A PMU sample of a store names the store: when it stored an object's class
 *   word, it is a sampled creation (the paper's way). Each creation has one
 *   such store, so creations are sampled in proportion to their number.
 *
 * - A CPU-time sample (no PMU) lands where time goes, and the time around a
 *   creation differs by class, program phase and machine (class-word stores
 *   found near CPU-time samples gave 37-95% overlap with the real counts).
 *   So creations are sampled by the bytes they take instead: page boundaries
 *   of the thread's TLAB ahead of its top, each picked with the same chance
 *   (byte_sampling.h), are watched, and the first store to one is made when
 *   the object that holds it is created. At that trap the next boundary is
 *   picked, further on in the same TLAB: a chain that follows the thread's
 *   allocation, not its time. The thread's samples start a chain (after a
 *   TLAB ends it, a GC or the budget) and set how far apart boundaries are
 *   picked; what a thread allocates while no chain runs is made up for by
 *   weighing each catch by its window's coverage (coverage.h). Nothing lives
 *   on a page ahead of the top, so a page-protection watch faults there
 *   once, for the creation itself. Which boundaries are watched, and how the
 *   chain goes on: chain.c; this file names what is caught.
 *
 * Naming the caught object: by the class-word store near the trapping
 * instruction (the one that ran, or a few ahead), when there is one;
 * else at the thread's next sample, when the object is built: the object
 * whose header the trapping store's base register points to, or the nearest
 * header below the byte. Not at the trap: the JVM's runtime and the
 * interpreter clear an object's body before they store its header, which
 * until then may hold what the memory held before the last GC.
 *
 * The class is the value stored, checked against the class's layout helper;
 * the allocation site is the calling context of the store. Collectors copy
 * objects in GC threads, which are never sampled, and a GC ends every watch
 * and every pending creation.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler. Memory is read only through
 * wasp_read_code and wasp_safe_read, and the thread's own JavaThread.
 */
#include <string.h>

#include "analysis/alloc/byte_sampling.h"
#include "analysis/alloc/chain.h"
#include "analysis/alloc/handler_shared.h"
#include "heap/java_layout.h"
#include "heap/java_object.h"
#include "heap/klass_set.h"
#include "heap/tlab.h"
#include "isa/class_store.h"
#include "watch/engine.h"
#include "watch/run_state.h"

/* Straight-line instructions scanned ahead of a PC for the class-word store:
 * from a TLAB bump's branch to the class word there are a handful
 * (prefetches, the mark word). */
enum { SCAN_INSNS = 12 };

/* Adds a sampled creation (`bytes`: its weight times its size, 0 when the
 * size is not known); returns its record's index, or -1 (table full). */
static int record(wasp_thread *t, uint64_t klass, uint32_t ctx, double weight, double bytes)
{
    if (!wasp_klass_set_add(klass))
        wasp_alloc_count(t, C_CLASS_SET_FULL);
    wasp_alloc_thread *at = wasp_alloc_state(t);
    uint64_t h = (klass ^ ctx) * 0x9e3779b97f4a7c15ull;
    uint32_t slot = (uint32_t)(h >> 40);
    for (uint32_t i = 0; i < 32; i++) {
        uint32_t k = (slot + i) & (WASP_ALLOC_SLOTS - 1);
        wasp_alloc_rec *r = &at->recs[k];
        if (r->ctx == 0) {
            r->klass = klass;
            r->ctx = ctx + 1;
        } else if (r->ctx != ctx + 1 || r->klass != klass) {
            continue;
        }
        r->samples++;
        r->weight += weight;
        r->bytes += bytes;
        r->bytes_sq += bytes * bytes;
        return (int)k;
    }
    wasp_alloc_count(t, C_TABLE_FULL);
    return -1;
}

/* A creation a chain caught, the object at start of size bytes: its weight
 * waits for its window's coverage (coverage.h). The boundaries picked after
 * it below the top (more) are more picks of it when it holds the last one,
 * each weighing as a catch; else they lay in objects allocated after it,
 * not named, and are counted apart. */
static void record_caught(wasp_thread *t, uint64_t klass, uint32_t ctx, uint64_t start,
                          uint64_t size, double chance, const wasp_alloc_passed *more)
{
    double weight = wasp_alloc_weight(size, chance);
    if (more->n && more->last < start + size)
        weight += more->n * wasp_alloc_weight(size, more->chance);
    else if (more->n)
        t->rec.part_counters[WASP_ID_alloc][C_PASSED_OTHER] += more->n;
    double bytes = weight * (double)size;
    int k = record(t, klass, ctx, weight, bytes);
    if (k >= 0)
        wasp_alloc_cover_caught(&wasp_alloc_state(t)->cover, (uint32_t)k, weight, bytes);
}

/* A catch that added weight and bytes to rec weighs factor times that. */
static void add_weight(void *arg, uint32_t rec, double weight, double bytes, double factor)
{
    wasp_alloc_rec *r = &((wasp_alloc_thread *)arg)->recs[rec];
    r->weight += weight * (factor - 1.0);
    r->bytes += bytes * (factor - 1.0);
    r->bytes_sq += bytes * bytes * (factor * factor - 1.0);
}

/* The thread's window closes (its sample, or its end): its catches weigh by
 * the share of its allocation the chain covered. */
static void close_window(wasp_thread *t)
{
    wasp_alloc_thread *at = wasp_alloc_state(t);
    uint64_t allocated, covered;
    wasp_alloc_cover_close(&at->cover, t->jni_env, wasp_gc_epoch(),
                           __atomic_load_n(&t->alloc_outside_bytes, __ATOMIC_RELAXED), add_weight,
                           at, &allocated, &covered);
    t->rec.part_counters[WASP_ID_alloc][C_WINDOW_BYTES] += allocated;
    t->rec.part_counters[WASP_ID_alloc][C_COVERED_BYTES] += covered;
}

/* The class-word store at the instruction that ended at v's PC or a few
 * ahead (`insns`; a PMU sample: the instruction itself). */
static wasp_class_store_found class_store(const wasp_sample_view *v, int insns, uint64_t *klass,
                                          wasp_class_store *cs, uint8_t *before)
{
    const wasp_java_layout *l = &wasp_java;
    uint64_t pc = v->s->pc;
    size_t nb = 0;
    if (!v->s->has_addr &&
        wasp_read_code(pc - WASP_MAX_INSN, before, WASP_MAX_INSN, pc) == WASP_MAX_INSN)
        nb = WASP_MAX_INSN;
    return wasp_isa_find_class_store(before, nb, v->code, v->n, pc, &v->regs, l->klass_offset,
                                     l->compressed_klass ? 4 : 8, insns,
                                     wasp_java_class_store_accept, klass, cs);
}

/* The calling context of a class-word store found by class_store. */
static uint32_t store_context(wasp_thread *t, const wasp_sample_view *v,
                              const wasp_class_store *cs, const uint8_t *before)
{
    wasp_alloc_count(t, cs->ahead ? C_AHEAD : C_AFTER);
    const uint8_t *insn = cs->ahead ? v->code + (cs->at - v->s->pc) : before + WASP_MAX_INSN - cs->len;
    return wasp_capture_context(t, v->uc, cs->at, insn, cs->len);
}

/* A PMU sample of a store: a creation when it stored a class word. */
static void sampled_store(wasp_thread *t, const wasp_sample_view *v)
{
    uint64_t klass = 0;
    wasp_class_store cs;
    uint8_t before[WASP_MAX_INSN];
    switch (class_store(v, 1, &klass, &cs, before)) {
    case WASP_CSTORE_FOUND:
        record(t, klass, store_context(t, v, &cs, before), 1.0, 0.0); /* sizes: not read */
        break;
    case WASP_CSTORE_LOST:
        wasp_alloc_count(t, C_LOST);
        break;
    case WASP_CSTORE_REJECTED:
        wasp_alloc_count(t, C_REJECTED);
        break;
    default:
        wasp_alloc_count(t, C_NONE);
    }
}

/* A caught creation's object, now that it is built: the one the trapping
 * store's base points to, or the latest the thread had allocated then (the
 * runtime clearing its body), found by its size. */
static int object_of(wasp_thread *t, const wasp_alloc_pending *c, wasp_java_object *o)
{
    int found = (c->start &&
                 wasp_java_object_at(c->start, c->byte, wasp_object_hit_recent(t), o)) ||
                (c->end && wasp_java_object_ending(c->byte, c->end, o));
    return found && (!c->klass || o->klass == c->klass);
}

/* Creations caught since the thread's last sample: their objects are built
 * now. */
static void name_pending(wasp_thread *t)
{
    wasp_alloc_thread *at = wasp_alloc_state(t);
    uint32_t epoch = wasp_gc_epoch();
    for (uint32_t i = 0; i < at->npending; i++) {
        const wasp_alloc_pending *c = &at->pending[i];
        wasp_java_object o;
        if (c->epoch != epoch) {
            wasp_alloc_count(t, C_GC); /* moved or freed since */
        } else if (object_of(t, c, &o)) {
            wasp_alloc_count(t, C_LATER);
            record_caught(t, o.klass, c->ctx, o.start, o.size, c->chance, &c->more);
        } else {
            wasp_alloc_count(t, C_UNNAMED);
        }
    }
    at->npending = 0;
}

static void on_sample(wasp_thread *t, const wasp_sample_view *v)
{
    if (!__atomic_load_n(&wasp_java.ready, __ATOMIC_ACQUIRE)) {
        wasp_alloc_count(t, C_NO_LAYOUT);
        return;
    }
    if (v->s->has_addr) {
        sampled_store(t, v);
        return;
    }
    name_pending(t);
    close_window(t);
    wasp_watch_epoch_check(t);
    wasp_alloc_chain_on_sample(t);
}

/* For the thread's next sample to name. */
static void defer(wasp_thread *t, const wasp_alloc_pending *c)
{
    wasp_alloc_thread *at = wasp_alloc_state(t);
    if (at->npending == WASP_ALLOC_PENDING) {
        wasp_alloc_count(t, C_UNNAMED);
        return;
    }
    at->pending[at->npending++] = *c;
}

/* Where the object a trapping store wrote may start: its base register, or
 * its address less the displacement (a field, or a header word). */
static uint64_t store_base(wasp_thread *t, const wasp_slot *slot, const wasp_sample_view *v,
                           uint32_t *ctx)
{
    uint64_t pc = v->s->pc;
    wasp_access acc;
    uint8_t insn[WASP_MAX_INSN];
    if (wasp_watch_trap_insn(t, slot, pc, &v->regs, &acc, insn) != 1) {
        *ctx = wasp_capture_context(t, v->uc, pc, insn, 0);
        return 0;
    }
    *ctx = wasp_capture_context(t, v->uc, wasp_watch_trap_insn_pc(pc, &acc), insn, acc.len);
    if (acc.element)
        return 0; /* a string instruction (the runtime clearing a body): no base */
    if (acc.has_index)
        return acc.has_base ? acc.base_val : 0;
    return acc.addr - (uint64_t)acc.disp;
}

/* The object holding the watched boundary of slot i is being created (its
 * boundary stored to, or its page: see on_window_access): name it now or at
 * the thread's next sample, and pick the next boundary. */
static void caught(wasp_thread *t, int i, const ucontext_t *uc)
{
    wasp_slot *slot = &t->slots[i];
    /* The objects of earlier catches are built: the thread went on to create
     * this one. */
    name_pending(t);
    wasp_alloc_pending c = {.byte = slot->addr, .epoch = wasp_gc_epoch()};
    memcpy(&c.chance, &slot->watch.v1, sizeof c.chance);
    wasp_address_sample s = {.pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP]};
    wasp_sample_view v;
    wasp_view_init(&v, t, uc, &s);
    wasp_class_store cs;
    uint8_t before[WASP_MAX_INSN];
    wasp_java_object o = {0};
    if (class_store(&v, SCAN_INSNS, &c.klass, &cs, before) == WASP_CSTORE_FOUND &&
        wasp_java_object_being_created(cs.obj, c.klass, c.byte, &o)) {
        c.ctx = store_context(t, &v, &cs, before);
        c.start = cs.obj;
    } else {
        uint64_t end;
        c.klass = 0;
        o.size = 0;
        c.start = store_base(t, slot, &v, &c.ctx); /* reads the slot's watch: before it moves */
        if (!wasp_tlab_room(t->jni_env, &c.end, &end) || c.end <= c.byte)
            c.end = 0;
    }
    wasp_alloc_chain_next(t, i, &c.more); /* the slot moves on; c keeps what was caught */
    if (o.size) /* an instance: its class gives its size */
        record_caught(t, c.klass, c.ctx, c.start, o.size, c.chance, &c.more);
    else        /* an array (its length may not be stored yet), or not named yet */
        defer(t, &c);
}

/* A watched boundary was stored to, or a sentinel (the thread's next TLAB
 * came right after the last). */
static void on_trap(wasp_thread *t, int i, const ucontext_t *uc)
{
    if (wasp_alloc_chain_stored(t, i))
        caught(t, i, uc);
}

/* The thread stored to a watched boundary's page, not the boundary (the page
 * engine's faults): an object on that page is being created, the page was
 * free when its boundary was picked, so it is the one holding the boundary
 * (or one after it, initialized first). Caught now: a large object cleared
 * from its end would otherwise fault a page's worth of times first. */
static void on_window_access(wasp_thread *t, const ucontext_t *uc, const wasp_window_access *a)
{
    if (a->hit || !(a->acc.kind & WASP_ACCESS_STORE))
        return; /* a hit of the boundary was caught by on_trap, its chain moved on */
    int i = wasp_alloc_chain_page_stored(t, a->acc.addr & ~(uint64_t)(WASP_ALLOC_PAGE - 1));
    if (i >= 0) {
        wasp_alloc_count(t, C_EARLY);
        caught(t, i, uc);
    }
}

/* Samples start the chains, each covering the rest of the thread's TLAB,
 * and steer the gap, whose targets are per ms of CPU (byte_sampling.h). On
 * debug registers one every 8 ms covers enough for 92-94% overlap on
 * SableCC's 42 s run, where 4 ms gave 91-92% and cost a point more of CPU
 * (docs/alloc.md, step 6); the page engine keeps the common default (its
 * faults, not the samples, are its cost). */
static uint64_t period_ns(const wasp_watch_engine *engine)
{
    return engine && !engine->set_heap ? 8000000 : 0;
}

/* The thread ended: what it created is still in place (no GC since). */
static void on_thread_end(wasp_thread *t)
{
    name_pending(t);
    close_window(t);
}

const wasp_handler_part wasp_handler_alloc = {
    .needs = WASP_NEEDS_JAVA | WASP_NEEDS_WATCH | WASP_NEEDS_TLAB,
    .wants = WASP_WANTS_STORES,
    .on_sample = on_sample,
    .on_trap = on_trap,
    .on_window_access = on_window_access,
    .on_thread_end = on_thread_end,
    .counters = {[C_AFTER] = "alloc.store_ran",
                 [C_AHEAD] = "alloc.store_ahead",
                 [C_NONE] = "alloc.no_store",
                 [C_LOST] = "alloc.value_lost",
                 [C_REJECTED] = "alloc.not_a_class",
                 [C_NO_LAYOUT] = "alloc.no_layout",
                 [C_TABLE_FULL] = "alloc.table_full",
                 [C_CLASS_SET_FULL] = "alloc.class_set_full",
                 [C_ARMED] = "alloc.armed",
                 [C_NO_ROOM] = "alloc.chain_ended",
                 [C_LATER] = "alloc.named_later",
                 [C_UNNAMED] = "alloc.unnamed_object",
                 [C_GC] = "alloc.gc_before_naming",
                 [C_PASSED] = "alloc.boundary_passed",
                 [C_PASSED_OTHER] = "alloc.passed_not_counted",
                 [C_EARLY] = "alloc.caught_on_the_page",
                 [C_SENTINEL] = "alloc.tlab_refills",
                 [C_WINDOW_BYTES] = "alloc.window_bytes",
                 [C_COVERED_BYTES] = "alloc.covered_bytes"},
    .thread_state = sizeof(wasp_alloc_thread),
    .period_ns = period_ns,
};
