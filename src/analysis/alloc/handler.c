/*
 * Object creation from sampled header stores (Inoue and Nakatani, OOPSLA'09,
 * Section 5.1) in the handler: a store to an object's class word happens
 * once, when the object is initialized, so a sample at such a store (the one
 * that just ran, or one a few straight-line instructions ahead) is a sampled
 * creation: its class is the value stored, its allocation site the store's
 * calling context. No allocation hook. Collectors copy objects in GC threads,
 * which are never sampled (only Java threads are).
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler. Memory is read only through
 * wasp_read_code and wasp_safe_read (the class's layout helper).
 */
#include "analysis/alloc/records.h"
#include "watch/handler_part.h"
#include "heap/java_layout.h"
#include "heap/java_object.h"
#include "heap/klass_set.h"
#include "isa/class_store.h"

enum { C_AFTER, C_AHEAD, C_NONE, C_LOST, C_REJECTED, C_NO_LAYOUT, C_TABLE_FULL, C_CLASS_SET_FULL };

/* Straight-line instructions scanned ahead of the PC: from a TLAB bump's
 * branch to the class word there are a handful (prefetches, the mark word). */
enum { SCAN_INSNS = 12 };

static void count(wasp_thread *t, int which)
{
    t->rec.part_counters[WASP_ID_alloc][which]++;
}

static void record(wasp_thread *t, uint64_t klass, uint32_t ctx)
{
    wasp_alloc_thread *at = t->part_state[WASP_ID_alloc];
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
        return;
    }
    count(t, C_TABLE_FULL);
}

static void on_sample(wasp_thread *t, const wasp_sample_view *v)
{
    const wasp_java_layout *l = &wasp_java;
    if (!__atomic_load_n(&l->ready, __ATOMIC_ACQUIRE)) {
        count(t, C_NO_LAYOUT);
        return;
    }
    uint64_t pc = v->s->pc;
    uint8_t before[WASP_MAX_INSN];
    size_t nb = 0;
    if (!v->s->has_addr && wasp_read_code(pc - sizeof before, before, sizeof before, pc) == sizeof before)
        nb = sizeof before;
    /* A PMU sample names the store itself (it ran): only that instruction. */
    uint64_t klass = 0;
    wasp_class_store cs;
    wasp_class_store_found f = wasp_isa_find_class_store(
        before, nb, v->code, v->n, pc, &v->regs, l->klass_offset, l->compressed_klass ? 4 : 8,
        v->s->has_addr ? 1 : SCAN_INSNS, wasp_java_class_store_accept, &klass, &cs);
    switch (f) {
    case WASP_CSTORE_FOUND:
        break;
    case WASP_CSTORE_LOST:
        count(t, C_LOST);
        return;
    case WASP_CSTORE_REJECTED:
        count(t, C_REJECTED);
        return;
    default:
        count(t, C_NONE);
        return;
    }
    count(t, cs.ahead ? C_AHEAD : C_AFTER);
    if (!wasp_klass_set_add(klass))
        count(t, C_CLASS_SET_FULL);
    const uint8_t *insn = cs.ahead ? v->code + (cs.at - pc) : before + sizeof before - cs.len;
    record(t, klass, wasp_capture_context(t, v->uc, cs.at, insn, cs.len));
}

const wasp_handler_part wasp_handler_alloc = {
    .needs = WASP_NEEDS_JAVA,
    .wants = WASP_WANTS_STORES,
    .on_sample = on_sample,
    .counters = {[C_AFTER] = "alloc.store_ran",
                 [C_AHEAD] = "alloc.store_ahead",
                 [C_NONE] = "alloc.no_store",
                 [C_LOST] = "alloc.value_lost",
                 [C_REJECTED] = "alloc.not_a_class",
                 [C_NO_LAYOUT] = "alloc.no_layout",
                 [C_TABLE_FULL] = "alloc.table_full",
                 [C_CLASS_SET_FULL] = "alloc.class_set_full"},
    .thread_state = sizeof(wasp_alloc_thread),
};
