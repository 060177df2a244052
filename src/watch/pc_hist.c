/*
 * See pc_hist.h. A slot's key is pc | id << 48 (user addresses fit in 48
 * bits), claimed once by compare-and-swap and never released, so a drain
 * only exchanges counts. Linear probing, at most PROBES slots. Keys of id 0
 * (samples outside the published methods) take at most an eighth of the
 * slots: most are the interpreter's and native code's, which must not crowd
 * out compiled code's.
 *
 * ASYNC-SIGNAL-SAFE: wasp_pc_hist_count runs in the SIGTRAP handler: no
 * malloc, no locks, atomics only on the table allocated by init.
 */
#include "watch/pc_hist.h"

#include <stdlib.h>

typedef struct slot {
    uint64_t key; /* 0: free */
    uint64_t count;
} slot;

enum { PROBES = 32 };

static slot *table;
static uint32_t mask;
static uint64_t total, not_compiled, dropped, via_caller;
static uint32_t outside_slots, outside_cap; /* id 0's slots taken, and their bound */

int wasp_pc_hist_init(uint32_t slots)
{
    if (!slots || (slots & (slots - 1)))
        return -1;
    slot *t = table;
    if (!t || mask + 1 != slots) {
        t = calloc(slots, sizeof *t);
        if (!t)
            return -1;
        /* An earlier table stays allocated: a late handler may still read
         * it (a few MiB, once per resize at most). */
    } else {
        for (uint32_t i = 0; i < slots; i++)
            t[i] = (slot){0, 0};
    }
    __atomic_store_n(&total, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&not_compiled, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&dropped, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&via_caller, 0, __ATOMIC_RELAXED);
    mask = slots - 1;
    __atomic_store_n(&outside_slots, 0, __ATOMIC_RELAXED);
    outside_cap = slots / 8;
    __atomic_store_n(&table, t, __ATOMIC_RELEASE);
    return 0;
}

static uint32_t hash(uint64_t key)
{
    key ^= key >> 29;
    key *= 0xbf58476d1ce4e5b9ull;
    return (uint32_t)(key >> 32);
}

void wasp_pc_hist_count(uint32_t id, uint64_t pc)
{
    slot *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
    if (!t)
        return;
    __atomic_add_fetch(&total, 1, __ATOMIC_RELAXED);
    int user_pc = pc && !(pc >> 48);
    if (!id || id >= WASP_PC_HIST_MAX_ID || !user_pc) {
        __atomic_add_fetch(&not_compiled, 1, __ATOMIC_RELAXED);
        if (id || !user_pc)
            return;
    }
    uint64_t key = pc | (uint64_t)id << 48;
    uint32_t h = hash(key);
    for (uint32_t i = 0; i < PROBES; i++) {
        slot *s = &t[(h + i) & mask];
        uint64_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
        if (k == 0) {
            /* Racing claims may pass the bound by a slot each: harmless. */
            if (!id && __atomic_load_n(&outside_slots, __ATOMIC_RELAXED) >= outside_cap)
                return; /* counted as not compiled, its pc not kept */
            uint64_t expected = 0;
            if (__atomic_compare_exchange_n(&s->key, &expected, key, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                k = key;
                if (!id)
                    __atomic_add_fetch(&outside_slots, 1, __ATOMIC_RELAXED);
            } else {
                k = expected; /* another thread took it: maybe for this key */
            }
        }
        if (k == key) {
            __atomic_add_fetch(&s->count, 1, __ATOMIC_RELAXED);
            return;
        }
    }
    if (id)
        __atomic_add_fetch(&dropped, 1, __ATOMIC_RELAXED); /* id 0's: not compiled already */
}

void wasp_pc_hist_count_caller(uint32_t id, uint64_t pc)
{
    if (!__atomic_load_n(&table, __ATOMIC_ACQUIRE))
        return;
    __atomic_add_fetch(&via_caller, 1, __ATOMIC_RELAXED);
    wasp_pc_hist_count(id, pc);
}

void wasp_pc_hist_drain(wasp_pc_hist_visit visit, void *ctx, wasp_pc_hist_totals *totals)
{
    slot *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
    *totals = (wasp_pc_hist_totals){0, 0, 0, 0};
    if (!t)
        return;
    for (uint32_t i = 0; i <= mask; i++) {
        uint64_t key = __atomic_load_n(&t[i].key, __ATOMIC_ACQUIRE);
        if (!key)
            continue;
        uint64_t n = __atomic_exchange_n(&t[i].count, 0, __ATOMIC_RELAXED);
        if (n)
            visit(ctx, (uint32_t)(key >> 48), key & ((1ull << 48) - 1), n);
    }
    totals->total = __atomic_exchange_n(&total, 0, __ATOMIC_RELAXED);
    totals->not_compiled = __atomic_exchange_n(&not_compiled, 0, __ATOMIC_RELAXED);
    totals->dropped = __atomic_exchange_n(&dropped, 0, __ATOMIC_RELAXED);
    totals->via_caller = __atomic_exchange_n(&via_caller, 0, __ATOMIC_RELAXED);
}
