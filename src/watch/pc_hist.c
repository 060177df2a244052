/*
 * See pc_hist.h. Two tables: handlers count in the current one while a
 * drain empties the other, so that a drain frees every slot (a long-lived
 * service samples more distinct PCs over hours than a table holds, and keys
 * kept from one dump to the next would fill it: the rest of the run dropped).
 * A drain makes the other table current, waits until no handler still counts
 * in the one it left (each table counts the handlers inside it), reads it and
 * empties it.
 *
 * In a table, a slot's key is pc | id << 48 (pc a user address below 2^47:
 * bit 47 clear), or for the interpreter's samples bci << 48 | 1 << 47 |
 * method >> 3 (jmethodIDs are 8-byte aligned user addresses below 2^47),
 * claimed by compare-and-swap. Linear probing, at most PROBES slots. Keys of
 * id 0 (samples outside the published methods) take at most an eighth of a
 * table's slots: most are the interpreter's and native code's, which must
 * not crowd out compiled code's.
 *
 * ASYNC-SIGNAL-SAFE: wasp_pc_hist_count and _count_caller run in the
 * sampling handler: no malloc, no locks, atomics only on the tables
 * allocated by init. The drain (the agent's dump, outside handlers) waits
 * for handlers, which never wait for it.
 */
#include "watch/pc_hist.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct slot {
    uint64_t key; /* 0: free */
    uint64_t count;
} slot;

typedef struct table {
    slot *slots;
    uint32_t inside;        /* handlers counting in it now */
    uint32_t outside_slots; /* id 0's slots taken */
    wasp_pc_hist_totals totals;
} table;

enum { PROBES = 32 };

static table tables[2];
static uint32_t current = 2; /* the table handlers count in; 2: none (not initialised) */
static uint32_t mask, outside_cap;

int wasp_pc_hist_init(uint32_t slots)
{
    if (!slots || (slots & (slots - 1)))
        return -1;
    __atomic_store_n(&current, 2, __ATOMIC_SEQ_CST);
    if (!tables[0].slots || mask + 1 != slots) {
        slot *a = calloc(slots, sizeof *a), *b = calloc(slots, sizeof *b);
        if (!a || !b) {
            free(a);
            free(b);
            return -1;
        }
        /* Earlier tables stay allocated: a late handler of an earlier
         * session may still write them (a few MiB, once per resize at most). */
        tables[0].slots = a;
        tables[1].slots = b;
    }
    mask = slots - 1;
    outside_cap = slots / 8;
    for (int i = 0; i < 2; i++) {
        memset(tables[i].slots, 0, (size_t)slots * sizeof(slot));
        tables[i].outside_slots = 0;
        tables[i].totals = (wasp_pc_hist_totals){0, 0, 0, 0};
    }
    __atomic_store_n(&current, 0, __ATOMIC_SEQ_CST);
    return 0;
}

static uint32_t hash(uint64_t key)
{
    key ^= key >> 29;
    key *= 0xbf58476d1ce4e5b9ull;
    return (uint32_t)(key >> 32);
}

/* The current table, counted as entered (NULL: none, or two drains came
 * and went meanwhile). A drain that made the other table current after the
 * load below sees this handler inside, or this handler sees the change. */
static table *enter(void)
{
    for (int tries = 0; tries < 2; tries++) {
        uint32_t i = __atomic_load_n(&current, __ATOMIC_SEQ_CST);
        if (i > 1)
            return NULL;
        __atomic_add_fetch(&tables[i].inside, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&current, __ATOMIC_SEQ_CST) == i)
            return &tables[i];
        __atomic_sub_fetch(&tables[i].inside, 1, __ATOMIC_SEQ_CST);
    }
    return NULL;
}

static void leave(table *t)
{
    __atomic_sub_fetch(&t->inside, 1, __ATOMIC_SEQ_CST);
}

static const uint64_t interpreted_bit = 1ull << 47;

/* A compiled method's sample's key: 0 (kept nowhere) for an id not told
 * apart or a pc that is no user address below 2^47. */
static uint64_t pc_key(uint32_t id, uint64_t pc)
{
    return id < WASP_PC_HIST_MAX_ID && pc && !(pc >> 47) ? pc | (uint64_t)id << 48 : 0;
}

/* Counts one sample under key (0: counted, kept nowhere, not compiled).
 * Samples outside the compiled methods are not compiled and keep their keys
 * within the eighth. */
static void count_key(table *t, uint64_t key, int outside)
{
    __atomic_add_fetch(&t->totals.total, 1, __ATOMIC_RELAXED);
    if (outside || !key)
        __atomic_add_fetch(&t->totals.not_compiled, 1, __ATOMIC_RELAXED);
    if (!key)
        return;
    uint32_t h = hash(key);
    for (uint32_t i = 0; i < PROBES; i++) {
        slot *s = &t->slots[(h + i) & mask];
        uint64_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
        if (k == 0) {
            /* Racing claims may pass the bound by a slot each: harmless. */
            if (outside && __atomic_load_n(&t->outside_slots, __ATOMIC_RELAXED) >= outside_cap)
                return; /* counted as not compiled, its pc not kept */
            uint64_t expected = 0;
            if (__atomic_compare_exchange_n(&s->key, &expected, key, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                k = key;
                if (outside)
                    __atomic_add_fetch(&t->outside_slots, 1, __ATOMIC_RELAXED);
            } else {
                k = expected; /* another thread took it: maybe for this key */
            }
        }
        if (k == key) {
            __atomic_add_fetch(&s->count, 1, __ATOMIC_RELAXED);
            return;
        }
    }
    if (!outside)
        __atomic_add_fetch(&t->totals.dropped, 1, __ATOMIC_RELAXED); /* outside: not compiled already */
}

void wasp_pc_hist_count(uint32_t id, uint64_t pc)
{
    table *t = enter();
    if (!t)
        return;
    count_key(t, pc_key(id, pc), !id);
    leave(t);
}

void wasp_pc_hist_count_caller(uint32_t id, uint64_t pc)
{
    table *t = enter();
    if (!t)
        return;
    __atomic_add_fetch(&t->totals.via_caller, 1, __ATOMIC_RELAXED);
    count_key(t, pc_key(id, pc), !id);
    leave(t);
}

void wasp_pc_hist_count_interpreted(const void *method, int32_t bci)
{
    uint64_t m = (uint64_t)(uintptr_t)method;
    table *t = enter();
    if (!t)
        return;
    int keyed = m && !(m & 7) && !(m >> 47) && bci >= 0 && bci <= 0xffff;
    count_key(t, keyed ? (uint64_t)bci << 48 | interpreted_bit | m >> 3 : 0, 1);
    leave(t);
}

/* Until no handler counts in t: handlers are short and never wait, so this
 * is microseconds; bounded all the same (a thread stopped inside a handler
 * by a debugger): after about 100 ms the table is read as it is. */
static void wait_out(table *t)
{
    for (int i = 0; __atomic_load_n(&t->inside, __ATOMIC_SEQ_CST) && i < 1100; i++) {
        if (i < 1000)
            sched_yield();
        else
            nanosleep(&(struct timespec){0, 100000}, NULL);
    }
}

void wasp_pc_hist_drain(wasp_pc_hist_visit visit, wasp_pc_hist_visit_interpreted interpreted,
                        void *ctx, wasp_pc_hist_totals *totals)
{
    *totals = (wasp_pc_hist_totals){0, 0, 0, 0};
    uint32_t old = __atomic_load_n(&current, __ATOMIC_SEQ_CST);
    if (old > 1)
        return;
    __atomic_store_n(&current, old ^ 1, __ATOMIC_SEQ_CST); /* emptied by the last drain */
    table *t = &tables[old];
    wait_out(t);
    for (uint32_t i = 0; i <= mask; i++) {
        slot *s = &t->slots[i];
        if (s->key && s->count && (s->key & interpreted_bit))
            interpreted(ctx, (const void *)(uintptr_t)((s->key & (interpreted_bit - 1)) << 3),
                        (int32_t)(s->key >> 48), s->count);
        else if (s->key && s->count)
            visit(ctx, (uint32_t)(s->key >> 48), s->key & ((1ull << 48) - 1), s->count);
        *s = (slot){0, 0};
    }
    *totals = t->totals;
    t->totals = (wasp_pc_hist_totals){0, 0, 0, 0};
    t->outside_slots = 0;
}
