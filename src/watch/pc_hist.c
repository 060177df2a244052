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
/* Samples that found no table: a handler lost to drains ENTER_TRIES times in
 * a row (the handler's thread was preempted through whole drains). They
 * count in the next drain's totals, as not compiled, so that no drain's
 * total misses a sample. */
static uint64_t unplaced, unplaced_via_caller;

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
    __atomic_store_n(&unplaced, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&unplaced_via_caller, 0, __ATOMIC_RELAXED);
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

enum { ENTER_TRIES = 16 };

/* The current table, counted as entered (NULL: not initialised, or the
 * sample went to `unplaced`). A drain that made the other table current
 * after the load below sees this handler inside, or this handler sees the
 * change and tries again: each failed try needs a drain to have flipped the
 * tables, so a few tries fail only when the thread is preempted through a
 * drain between its load and its check, again and again. */
static table *enter(int via_caller)
{
    for (int tries = 0; tries < ENTER_TRIES; tries++) {
        uint32_t i = __atomic_load_n(&current, __ATOMIC_SEQ_CST);
        if (i > 1)
            return NULL;
        __atomic_add_fetch(&tables[i].inside, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&current, __ATOMIC_SEQ_CST) == i)
            return &tables[i];
        __atomic_sub_fetch(&tables[i].inside, 1, __ATOMIC_SEQ_CST);
    }
    __atomic_add_fetch(&unplaced, 1, __ATOMIC_RELAXED);
    if (via_caller)
        __atomic_add_fetch(&unplaced_via_caller, 1, __ATOMIC_RELAXED);
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
    table *t = enter(0);
    if (!t)
        return;
    count_key(t, pc_key(id, pc), !id);
    leave(t);
}

void wasp_pc_hist_count_caller(uint32_t id, uint64_t pc)
{
    table *t = enter(1);
    if (!t)
        return;
    __atomic_add_fetch(&t->totals.via_caller, 1, __ATOMIC_RELAXED);
    count_key(t, pc_key(id, pc), !id);
    leave(t);
}

void wasp_pc_hist_count_interpreted(const void *method, int32_t bci)
{
    uint64_t m = (uint64_t)(uintptr_t)method;
    table *t = enter(0);
    if (!t)
        return;
    int keyed = m && !(m & 7) && !(m >> 47) && bci >= 0 && bci <= 0xffff;
    count_key(t, keyed ? (uint64_t)bci << 48 | interpreted_bit | m >> 3 : 0, 1);
    leave(t);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Until no handler counts in t: handlers are short and never wait, so this
 * is microseconds, unless a handler's thread was preempted inside (then a
 * scheduler's slice or more). Bounded all the same, by time, since a thread
 * may be stopped inside a handler by a debugger: after 100 ms the table is
 * read as it is (its totals are taken by exchange, so a late handler's
 * sample counts in the table's next drain; a slot's may be lost). */
static void wait_out(table *t)
{
    uint64_t start = 0;
    for (int i = 0; __atomic_load_n(&t->inside, __ATOMIC_SEQ_CST); i++) {
        if (i < 1000) {
            sched_yield();
            continue;
        }
        uint64_t now = now_ns();
        if (!start)
            start = now;
        else if (now - start > 100000000u)
            return;
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
    /* Taken by exchange: a handler wait_out gave up on counts in the next
     * drain of this table, not nowhere. */
    totals->total = __atomic_exchange_n(&t->totals.total, 0, __ATOMIC_RELAXED);
    totals->not_compiled = __atomic_exchange_n(&t->totals.not_compiled, 0, __ATOMIC_RELAXED);
    totals->dropped = __atomic_exchange_n(&t->totals.dropped, 0, __ATOMIC_RELAXED);
    totals->via_caller = __atomic_exchange_n(&t->totals.via_caller, 0, __ATOMIC_RELAXED);
    uint64_t lost = __atomic_exchange_n(&unplaced, 0, __ATOMIC_RELAXED);
    totals->total += lost;
    totals->not_compiled += lost;
    totals->via_caller += __atomic_exchange_n(&unplaced_via_caller, 0, __ATOMIC_RELAXED);
    t->outside_slots = 0;
}
