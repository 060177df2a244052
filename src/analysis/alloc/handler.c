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
 *   allocation, not its time. The thread's samples only start a chain (after
 *   a TLAB ends it, a GC or the budget) and set how far apart boundaries are
 *   picked. Nothing lives on a page ahead of the top, so a page-protection
 *   watch faults there once, for the creation itself.
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
#include "analysis/alloc/records.h"
#include "watch/handler_part.h"
#include "heap/java_layout.h"
#include "heap/java_object.h"
#include "heap/klass_set.h"
#include "heap/tlab.h"
#include "isa/class_store.h"
#include "watch/run_state.h"

enum {
    C_AFTER,
    C_AHEAD,
    C_NONE,
    C_LOST,
    C_REJECTED,
    C_NO_LAYOUT,
    C_TABLE_FULL,
    C_CLASS_SET_FULL,
    C_ARMED,
    C_NO_ROOM,
    C_LATER,
    C_UNNAMED,
    C_GC,
    C_PASSED,
    C_REFILL,
    C_EARLY
};

/* What a slot of this analysis watches (slot->tag). */
enum { TAG_BOUNDARY = 0, TAG_REFILL = 1, TAG_SENTINEL = 2 };

/* TLAB refills a thread's chain follows, on average, per sample (of about
 * 1 ms of CPU: two traps each, some 20-40 us on a VM), and at most in a row. */
#define REFILLS_PER_SAMPLE 0.5
#define REFILLS_IN_A_ROW 4.0

/* Straight-line instructions scanned ahead of a PC for the class-word store:
 * from a TLAB bump's branch to the class word there are a handful
 * (prefetches, the mark word). */
enum { SCAN_INSNS = 12 };

static void count(wasp_thread *t, int which)
{
    t->rec.part_counters[WASP_ID_alloc][which]++;
}

static wasp_alloc_thread *state(wasp_thread *t)
{
    return t->part_state[WASP_ID_alloc];
}

static void record(wasp_thread *t, uint64_t klass, uint32_t ctx, double weight)
{
    if (!wasp_klass_set_add(klass))
        count(t, C_CLASS_SET_FULL);
    wasp_alloc_thread *at = state(t);
    uint64_t h = (klass ^ ctx) * 0x9e3779b97f4a7c15ull;
    uint32_t slot = (uint32_t)(h >> 40);
    for (uint32_t i = 0; i < 32; i++) {
        wasp_alloc_rec *r = &at->recs[(slot + i) & (WASP_ALLOC_SLOTS - 1)];
        if (r->ctx == 0) {
            r->klass = klass;
            r->ctx = ctx + 1;
        } else if (r->ctx != ctx + 1 || r->klass != klass) {
            continue;
        }
        r->samples++;
        r->weight += weight;
        return;
    }
    count(t, C_TABLE_FULL);
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
    count(t, cs->ahead ? C_AHEAD : C_AFTER);
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
        record(t, klass, store_context(t, v, &cs, before), 1.0);
        break;
    case WASP_CSTORE_LOST:
        count(t, C_LOST);
        break;
    case WASP_CSTORE_REJECTED:
        count(t, C_REJECTED);
        break;
    default:
        count(t, C_NONE);
    }
}

/* The first page boundary at or after addr. */
static uint64_t boundary_from(uint64_t addr)
{
    return (addr + WASP_ALLOC_PAGE - 1) & ~(uint64_t)(WASP_ALLOC_PAGE - 1);
}

/* 8 bytes at addr watched for stores: slot `moving` moved there (the chain
 * going on in the same watch), or a new one (-1). */
static wasp_slot *watch_at(wasp_thread *t, int moving, uint64_t addr)
{
    return moving >= 0 ? wasp_watch_move(t, moving, addr, 8, 0)
                       : wasp_watch_claim(t, WASP_ID_alloc, addr, 8, 0);
}

/* The chain goes on in the thread's next TLAB: watch where the JVM stores
 * its end, to pick from its start (every boundary has chance p wherever the
 * picking starts). It costs two traps a TLAB (the old one retired, the new
 * one stored), so a thread follows REFILLS_PER_SAMPLE refills a sample on
 * average, and none where the TLAB's end cannot be watched (the page engine
 * watches the Java heap only). Else the thread's next sample starts a new
 * chain: what the thread allocates until then is not sampled, which favours
 * what it creates slowly (docs/alloc.md, Limits). */
static int watch_refill(wasp_thread *t, int moving)
{
    uint64_t not_heap = t->rec.counters[WASP_C_DROP_NOT_HEAP];
    wasp_alloc_thread *at = state(t);
    uint64_t field = at->no_refill_watch || at->refill_tokens < 1 ? 0
                   : wasp_tlab_end_field(t->jni_env);
    wasp_slot *slot = field ? watch_at(t, moving, field) : NULL;
    int tag = TAG_REFILL;
    uint64_t top, end;
    if (!slot && field) {
        /* Outside the Java heap (the page engine's): not again. */
        at->no_refill_watch |= t->rec.counters[WASP_C_DROP_NOT_HEAP] != not_heap;
        moving = -1; /* the move dropped it */
    }
    if (!slot && at->no_refill_watch && at->refill_tokens >= 1 &&
        wasp_tlab_room(t->jni_env, &top, &end)) {
        /* Where the thread's next TLAB begins when the JVM carves it right
         * after this one (a thread allocating alone in a heap region): its
         * first page boundary, past this TLAB's reserve for a filler. */
        slot = watch_at(t, moving, boundary_from(end + 64));
        tag = TAG_SENTINEL;
        if (slot)
            slot->watch.cur = end;
    } else if (!slot && !field && moving >= 0) {
        wasp_watch_done(t, moving);
    }
    if (!slot) {
        count(t, C_NO_ROOM);
        return 0;
    }
    slot->tag = (uint32_t)tag;
    slot->state = WASP_SLOT_ARMED;
    at->refill_tokens -= 1;
    return 1;
}

/* Watch the page boundary `pages` - 1 boundaries on from `first` (the first
 * that may be picked) when the thread's TLAB reaches it, with the chance p
 * it was picked with, in slot `moving` or a new one (-1). Returns 1 when
 * armed; `moving` is released when not. */
static int watch_boundary(wasp_thread *t, uint64_t first, uint64_t pages, double p, int moving)
{
    uint64_t top, end;
    const wasp_java_layout *l = &wasp_java;
    uint64_t x = first + (pages - 1) * WASP_ALLOC_PAGE;
    int room = wasp_tlab_room(t->jni_env, &top, &end) && top >= l->heap_lo && end <= l->heap_hi;
    if (!room || x < top) { /* x < top: already allocated, a large object holds it too */
        count(t, room ? C_PASSED : C_NO_ROOM);
        if (moving >= 0)
            wasp_watch_done(t, moving);
        return 0;
    }
    /* Its whole page in the TLAB's free part: nothing else touches it before
     * the object holding x is created (past the TLAB's end the thread's
     * next TLAB may begin). */
    if (x + WASP_ALLOC_PAGE > end)
        return watch_refill(t, moving);
    wasp_slot *slot = watch_at(t, moving, x);
    if (!slot)
        return 0;
    memcpy(&slot->watch.v1, &p, sizeof p);
    slot->tag = TAG_BOUNDARY;
    slot->state = WASP_SLOT_ARMED; /* the first store to the byte is the creation */
    count(t, C_ARMED);
    return 1;
}

/* Whether the thread has a boundary watched. */
static int chained(const wasp_thread *t)
{
    for (int i = 0; i < t->nslots; i++)
        if (t->reservoir[i].in_use && t->reservoir[i].analysis == WASP_ID_alloc &&
            t->slots[i].state == WASP_SLOT_ARMED)
            return 1;
    return 0;
}

/* A caught creation's object, now that it is built: the one the trapping
 * store's base points to, or the latest the thread had allocated then (the
 * runtime clearing its body), found by its size. */
static int object_of(const wasp_alloc_pending *c, wasp_java_object *o)
{
    int found = (c->start && wasp_java_object_at(c->start, c->byte, o)) ||
                (c->end && wasp_java_object_ending(c->byte, c->end, o));
    return found && (!c->klass || o->klass == c->klass);
}

/* Creations caught since the thread's last sample: their objects are built
 * now. */
static void name_pending(wasp_thread *t)
{
    wasp_alloc_thread *at = state(t);
    uint32_t epoch = wasp_gc_epoch();
    for (uint32_t i = 0; i < at->npending; i++) {
        const wasp_alloc_pending *c = &at->pending[i];
        wasp_java_object o;
        if (c->epoch != epoch) {
            count(t, C_GC); /* moved or freed since */
        } else if (object_of(c, &o)) {
            count(t, C_LATER);
            record(t, o.klass, c->ctx, wasp_alloc_weight(o.size, c->chance));
        } else {
            count(t, C_UNNAMED);
        }
    }
    at->npending = 0;
}

/* A sentinel whose TLAB the thread did not get (it went elsewhere, or to
 * another thread): the next sample starts a chain. */
static void drop_stalled_sentinel(wasp_thread *t)
{
    uint64_t top, end;
    if (!wasp_tlab_room(t->jni_env, &top, &end))
        return;
    for (int i = 0; i < t->nslots; i++) {
        const wasp_slot *slot = &t->slots[i];
        if (!t->reservoir[i].in_use || t->reservoir[i].analysis != WASP_ID_alloc ||
            slot->state != WASP_SLOT_ARMED || slot->tag != TAG_SENTINEL)
            continue;
        int same_tlab = end == slot->watch.cur;
        if (slot->addr < top || (!same_tlab && (slot->addr < top || slot->addr >= end))) {
            count(t, C_NO_ROOM);
            wasp_watch_done(t, i);
        }
    }
}

static void on_sample(wasp_thread *t, const wasp_sample_view *v)
{
    if (!__atomic_load_n(&wasp_java.ready, __ATOMIC_ACQUIRE)) {
        count(t, C_NO_LAYOUT);
        return;
    }
    if (v->s->has_addr) {
        sampled_store(t, v);
        return;
    }
    wasp_alloc_thread *at = state(t);
    name_pending(t);
    wasp_watch_epoch_check(t);
    drop_stalled_sentinel(t);
    int waiting = chained(t);
    at->gap = at->gap > 0 ? wasp_alloc_next_gap(at->gap, at->caught, &at->catch_rate)
                          : WASP_ALLOC_GAP_START;
    at->caught = 0;
    at->refill_tokens += REFILLS_PER_SAMPLE;
    if (at->refill_tokens > REFILLS_IN_A_ROW)
        at->refill_tokens = REFILLS_IN_A_ROW;
    if (waiting)
        return;
    uint64_t top, end;
    if (!wasp_tlab_room(t->jni_env, &top, &end)) {
        count(t, C_NO_ROOM);
        return;
    }
    /* Every boundary from the top on has the same chance. */
    double p = wasp_alloc_page_chance(at->gap);
    watch_boundary(t, boundary_from(top), wasp_alloc_pages_to_next(p, &t->rng), p, -1);
}

/* For the thread's next sample to name. */
static void defer(wasp_thread *t, const wasp_alloc_pending *c)
{
    wasp_alloc_thread *at = state(t);
    if (at->npending == WASP_ALLOC_PENDING) {
        count(t, C_UNNAMED);
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
    if (!wasp_watch_trap_insn(t, slot, pc, &v->regs, &acc, insn)) {
        *ctx = wasp_capture_context(t, v->uc, pc, insn, 0);
        return 0;
    }
    *ctx = wasp_capture_context(t, v->uc, pc - acc.len, insn, acc.len);
    if (acc.has_index)
        return acc.has_base ? acc.base_val : 0;
    return acc.addr - (uint64_t)acc.disp;
}

/* The object holding the watched boundary of slot i is being created (its
 * boundary stored to, or its page: see on_window_access): name it now or at
 * the thread's next sample, and pick the next boundary with chance p. */
static void caught(wasp_thread *t, int i, const ucontext_t *uc, double p)
{
    wasp_slot *slot = &t->slots[i];
    /* The objects of earlier catches are built: the thread went on to create
     * this one. */
    name_pending(t);
    wasp_alloc_pending c = {.byte = slot->addr, .epoch = wasp_gc_epoch()};
    memcpy(&c.chance, &slot->watch.v1, sizeof c.chance);
    wasp_address_sample s = {.pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP]};
    wasp_sample_view v;
    wasp_view_init(&v, uc, &s);
    wasp_class_store cs;
    uint8_t before[WASP_MAX_INSN];
    wasp_java_object o;
    if (class_store(&v, SCAN_INSNS, &c.klass, &cs, before) == WASP_CSTORE_FOUND &&
        wasp_java_object_being_created(cs.obj, c.klass, c.byte, &o)) {
        c.ctx = store_context(t, &v, &cs, before);
        c.start = cs.obj;
        if (o.size) /* an instance: its class gives its size */
            record(t, c.klass, c.ctx, wasp_alloc_weight(o.size, c.chance));
        else        /* an array: its length may not be stored yet */
            defer(t, &c);
    } else {
        uint64_t end;
        c.klass = 0;
        c.start = store_base(t, slot, &v, &c.ctx);
        if (!wasp_tlab_room(t->jni_env, &c.end, &end) || c.end <= c.byte)
            c.end = 0;
        defer(t, &c);
    }
    state(t)->caught++;
    watch_boundary(t, c.byte + WASP_ALLOC_PAGE, wasp_alloc_pages_to_next(p, &t->rng), p, i);
}

/* The chance the thread's samples set now: each boundary's chance is its
 * own, whatever came before. */
static double chance_now(wasp_thread *t)
{
    const wasp_alloc_thread *at = state(t);
    return wasp_alloc_page_chance(at->gap > 0 ? at->gap : WASP_ALLOC_GAP_START);
}

/* The thread has a new TLAB: pick from its top, in slot i. */
static void restart_chain(wasp_thread *t, int i)
{
    uint64_t top, end;
    if (!wasp_tlab_room(t->jni_env, &top, &end)) {
        wasp_watch_done(t, i);
        return;
    }
    count(t, C_REFILL);
    double p = chance_now(t);
    watch_boundary(t, boundary_from(top), wasp_alloc_pages_to_next(p, &t->rng), p, i);
}

/* A watched boundary was stored to, the TLAB's end (a refill), or a
 * sentinel (the thread's next TLAB came right after the last). */
static void on_trap(wasp_thread *t, int i, const ucontext_t *uc)
{
    uint64_t top, end;
    switch (t->slots[i].tag) {
    case TAG_BOUNDARY:
        caught(t, i, uc, chance_now(t));
        return;
    case TAG_REFILL:
        if (!wasp_tlab_room(t->jni_env, &top, &end))
            return; /* the old TLAB retired: the new one's end is stored next */
        restart_chain(t, i);
        return;
    default:
        restart_chain(t, i);
    }
}

/* The thread stored to a watched boundary's page, not the boundary (the page
 * engine's faults): an object on that page is being created, the page was
 * free when its boundary was picked, so it is the one holding the boundary
 * (or one after it, initialized first). Caught now: a large object cleared
 * from its end would otherwise fault a page's worth of times first. On a
 * sentinel's page: the thread's new TLAB. */
static void on_window_access(wasp_thread *t, const ucontext_t *uc, const wasp_window_access *a)
{
    if (!(a->acc.kind & WASP_ACCESS_STORE))
        return;
    uint64_t page = a->acc.addr & ~(uint64_t)(WASP_ALLOC_PAGE - 1);
    for (int i = 0; i < t->nslots; i++) {
        const wasp_slot *slot = &t->slots[i];
        if (!t->reservoir[i].in_use || t->reservoir[i].analysis != WASP_ID_alloc ||
            slot->state != WASP_SLOT_ARMED || slot->addr != page)
            continue;
        if (slot->tag == TAG_BOUNDARY) {
            count(t, C_EARLY);
            caught(t, i, uc, chance_now(t));
        } else if (slot->tag == TAG_SENTINEL) {
            restart_chain(t, i);
        }
        return;
    }
}

/* The thread ended: what it created is still in place (no GC since). */
static void on_thread_end(wasp_thread *t)
{
    name_pending(t);
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
                 [C_REFILL] = "alloc.tlab_refills",
                 [C_EARLY] = "alloc.caught_on_the_page"},
    .thread_state = sizeof(wasp_alloc_thread),
};
