/*
 * Java fields at sampled addresses (Inoue and Nakatani, OOPSLA'09, Section
 * 4.3) in the handler: the access a sample blames is looked up as a Java
 * object without allocation tracking (heap/java_object.c) — its class, the
 * field's offset or "an element" of an array — and counted with the heap area
 * it lies in and the access's calling context. Accesses outside the heap are
 * counted by area. An object compiled code is creating has no header until
 * its class-word store runs (C2 may clear the body first): a sample a few
 * instructions before that store names the object by the class it stores
 * (isa/class_store.h, as the creation profile finds creations). Any other
 * heap store without a header (the JVM's runtime clearing an object it
 * allocates, before it writes the header) is looked at again at the
 * thread's next sample, when the header is there, in the same GC epoch.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler.
 */
#include "analysis/fields/records.h"
#include "watch/handler_part.h"
#include "heap/heap_area.h"
#include "heap/java_object.h"
#include "heap/java_layout.h"
#include "heap/klass_set.h"
#include "heap/heap_addresses.h"
#include "isa/class_store.h"
#include "watch/object_hit.h"
#include "watch/run_state.h"

enum {
    C_BY_INSN = WASP_FIELD_C_BY_INSN,
    C_BY_SCAN = WASP_FIELD_C_BY_SCAN,
    C_OFF_HEAP = WASP_FIELD_C_OFF_HEAP,
    C_NO_HEADER = WASP_FIELD_C_NO_HEADER,
    C_NO_LAYOUT = WASP_FIELD_C_NO_LAYOUT,
    C_TABLE_FULL = WASP_FIELD_C_TABLE_FULL,
    C_CLASS_SET_FULL = WASP_FIELD_C_CLASS_SET_FULL,
    C_INITIALIZING = WASP_FIELD_C_INITIALIZING,
    C_BY_CLASS_STORE = WASP_FIELD_C_BY_CLASS_STORE,
    C_BY_LATER_LOOK = WASP_FIELD_C_BY_LATER_LOOK,
    C_BY_RECENT = WASP_FIELD_C_BY_RECENT
};

/* Straight-line instructions scanned ahead for the class-word store, as the
 * creation profile does (analysis/alloc/handler.c). */
enum { SCAN_INSNS = 12 };

static void count(wasp_thread *t, int which)
{
    t->rec.part_counters[WASP_ID_fields][which]++;
}

/* A record's key besides its context. */
typedef struct key {
    uint64_t klass;
    uint32_t offset;
    uint8_t area, width, float_size, allocating, is_static;
} key;

static uint32_t slot_of(const key *k, uint32_t ctx)
{
    uint64_t h = k->klass * 0x9e3779b97f4a7c15ull ^ ((uint64_t)k->offset << 32 | ctx) ^
                 (uint64_t)k->area ^ (uint64_t)k->width << 8 ^ (uint64_t)k->float_size << 16 ^
                 (uint64_t)k->allocating << 24 ^ (uint64_t)k->is_static << 25;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return (uint32_t)(h >> 40);
}

static void record(wasp_thread *t, const key *k, uint32_t ctx, int kind)
{
    wasp_field_thread *ft = t->part_state[WASP_ID_fields];
    uint32_t h = slot_of(k, ctx);
    for (uint32_t i = 0; i < 32; i++) {
        wasp_field_rec *r = &ft->recs[(h + i) & (WASP_FIELD_SLOTS - 1)];
        if (r->ctx == 0) {
            r->klass = k->klass;
            r->offset = k->offset;
            r->area = k->area;
            r->width = k->width;
            r->float_size = k->float_size;
            r->allocating = k->allocating;
            r->is_static = k->is_static;
            r->ctx = ctx + 1;
        } else if (r->ctx != ctx + 1 || r->klass != k->klass || r->offset != k->offset ||
                   r->area != k->area || r->width != k->width ||
                   r->float_size != k->float_size || r->allocating != k->allocating ||
                   r->is_static != k->is_static) {
            continue;
        }
        if (kind & WASP_ACCESS_LOAD)
            r->loads++;
        if (kind & WASP_ACCESS_STORE)
            r->stores++;
        return;
    }
    count(t, C_TABLE_FULL);
}

/* The object being created around the access: a class-word store ahead of
 * the sampled PC whose object covers the address. */
static int being_created(const wasp_sample_view *v, uint64_t addr, wasp_java_object *o)
{
    const wasp_java_layout *l = &wasp_java;
    uint64_t klass = 0;
    wasp_class_store cs;
    if (wasp_isa_find_class_store(NULL, 0, v->code, v->n, v->s->pc, &v->regs, l->klass_offset,
                                  l->compressed_klass ? 4 : 8, SCAN_INSNS,
                                  wasp_java_class_store_accept, &klass, &cs) != WASP_CSTORE_FOUND)
        return 0;
    return cs.ahead && wasp_java_object_being_created(cs.obj, klass, addr, o);
}

/* The key of an object found: its class, and the field's offset with the
 * access's width and kind (kept for the fit check against the field's type
 * at naming; elements were checked here: heap/java_object.c). A class's
 * static fields, in its mirror, are keyed by that class. The class joins
 * the set the agent names (counted when the set is full). */
static void key_object(wasp_thread *t, key *k, const wasp_java_object *o, const wasp_access *acc)
{
    k->klass = o->klass;
    uint64_t owner;
    if (wasp_java_static_owner(o, &owner)) {
        k->klass = owner;
        k->is_static = 1;
    }
    if (!wasp_klass_set_add(k->klass))
        count(t, C_CLASS_SET_FULL);
    k->offset = o->array && o->offset >= o->header ? WASP_FIELD_ELEMENTS : o->offset;
    if (k->offset != WASP_FIELD_ELEMENTS) {
        k->width = (uint8_t)(acc->size < 255 ? acc->size : 255);
        k->float_size = acc->float_size;
    }
}

/* Look again at a sample that found no header: named when the object's
 * header is there now and nothing has moved since, else kept unnamed under
 * the reason it had. */
static void settle(wasp_thread *t, wasp_field_pending *pe)
{
    key k = {.area = pe->area};
    wasp_java_object o;
    wasp_java_find how =
        pe->epoch == wasp_gc_epoch()
            ? wasp_java_object_find(pe->acc.addr, &pe->acc, wasp_object_hit_recent(t), &o)
            : WASP_JFIND_NO_HEADER;
    if (wasp_java_found(how)) {
        count(t, C_BY_LATER_LOOK);
        key_object(t, &k, &o, &pe->acc);
        k.allocating = 1;
    } else {
        count(t, pe->why);
    }
    record(t, &k, pe->ctx - 1, pe->acc.kind);
    pe->ctx = 0;
}

/* Keep a sample without a header for the thread's next sample; with no
 * room, the oldest is settled now. */
static void defer(wasp_thread *t, const wasp_access *acc, uint8_t area, uint32_t ctx, int why)
{
    wasp_field_thread *ft = t->part_state[WASP_ID_fields];
    wasp_field_pending *free_ = NULL;
    for (int i = 0; i < WASP_FIELD_PENDING && !free_; i++)
        if (!ft->pending[i].ctx)
            free_ = &ft->pending[i];
    if (!free_) {
        free_ = &ft->pending[0];
        settle(t, free_);
    }
    *free_ = (wasp_field_pending){.acc = *acc, .ctx = ctx + 1,
                                  .epoch = wasp_gc_epoch(),
                                  .area = area, .why = (uint8_t)why};
}

static void settle_all(wasp_thread *t)
{
    wasp_field_thread *ft = t->part_state[WASP_ID_fields];
    for (int i = 0; i < WASP_FIELD_PENDING; i++)
        if (ft->pending[i].ctx)
            settle(t, &ft->pending[i]);
}

static void on_sample(wasp_thread *t, const wasp_sample_view *v)
{
    settle_all(t); /* earlier samples' objects have their headers by now */
    wasp_object_hit h;
    int rc;
    if (!wasp_object_hit_access(v, &h, &rc)) {
        wasp_view_count_miss(t, rc);
        return;
    }
    wasp_java_object o;
    wasp_recent_objects *recent = wasp_object_hit_recent(t);
    wasp_java_find how = wasp_java_object_find(h.acc.addr, &h.acc, recent, &o);
    key k = {.area = (uint8_t)wasp_recent_heap_area(recent, h.acc.addr, v->regs.gpr[4])};
    int by_class_store = (how == WASP_JFIND_NO_HEADER || how == WASP_JFIND_INITIALIZING) &&
                         being_created(v, h.acc.addr, &o);
    if (by_class_store)
        how = WASP_JFIND_INSN; /* named by the class it is about to get */
    switch (how) {
    case WASP_JFIND_INSN:
    case WASP_JFIND_SCAN:
    case WASP_JFIND_RECENT:
        count(t, by_class_store            ? C_BY_CLASS_STORE
                 : how == WASP_JFIND_INSN  ? C_BY_INSN
                 : how == WASP_JFIND_SCAN  ? C_BY_SCAN
                                           : C_BY_RECENT);
        key_object(t, &k, &o, &h.acc);
        break;
    case WASP_JFIND_NOT_HEAP:
        count(t, C_OFF_HEAP);
        break;
    case WASP_JFIND_NO_LAYOUT:
        count(t, C_NO_LAYOUT);
        return;
    default: {
        /* No header (or no class word) yet. A plain store there is the
         * allocation clearing or initializing its object; a load or a
         * read-modify-write is not (an address computed from registers
         * that no longer held it, say), and memory allocated later would
         * misname it. Where objects move outside pauses (ZGC, Shenandoah)
         * the epoch does not say they stayed. */
        int why = how == WASP_JFIND_INITIALIZING ? C_INITIALIZING : C_NO_HEADER;
        if (h.acc.kind == WASP_ACCESS_STORE && !wasp_heap_addresses.moves_concurrently) {
            defer(t, &h.acc, k.area, wasp_capture_context(t, v->uc, h.at, h.insn, h.acc.len),
                  why);
            return;
        }
        count(t, why);
        break; /* kept under klass 0 in its heap area */
    }
    }
    uint32_t ctx = wasp_capture_context(t, v->uc, h.at, h.insn, h.acc.len);
    record(t, &k, ctx, h.acc.kind);
}

/* Fields and classes are ranked by their share of the samples, which 250 a
 * second of busy thread give in seconds. Every 4 ms, not the 2 ms of locks
 * and objects: a fields sample costs ~40 us of the program's CPU here (the
 * signal, then the access's context and the object's header and class, read
 * cold), and on BenchMix 2 ms cost 2.6-2.9%, 4 ms 1.6-2.0%
 * (docs/overhead-fourth-paper.md). */
static uint64_t period_ns(const wasp_watch_engine *engine)
{
    (void)engine;
    return 4000000;
}

const wasp_handler_part wasp_handler_fields = {
    .needs = WASP_NEEDS_JAVA,
    .wants = WASP_WANTS_MISSES,
    .on_sample = on_sample,
    .counters = {[C_BY_INSN] = "fields.by_instruction",
                 [C_BY_SCAN] = "fields.by_search",
                 [C_OFF_HEAP] = "fields.off_heap",
                 [C_NO_HEADER] = "fields.no_header",
                 [C_NO_LAYOUT] = "fields.no_layout",
                 [C_TABLE_FULL] = "fields.table_full",
                 [C_CLASS_SET_FULL] = "fields.class_set_full",
                 [C_INITIALIZING] = "fields.initializing",
                 [C_BY_CLASS_STORE] = "fields.by_class_store",
                 [C_BY_LATER_LOOK] = "fields.by_later_look",
                 [C_BY_RECENT] = "fields.by_recent_object"},
    .thread_state = sizeof(wasp_field_thread),
    .period_ns = period_ns,
};
