/*
 * The alloc analysis's chain of watched TLAB page boundaries (see chain.h,
 * docs/alloc.md).
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler of the thread given; reads
 * only the thread's own JavaThread (its TLAB).
 */
#include "analysis/alloc/chain.h"

#include <string.h>

#include "analysis/alloc/byte_sampling.h"
#include "analysis/alloc/handler_shared.h"
#include "heap/java_layout.h"
#include "heap/tlab.h"

/* TLAB refills a thread's chain follows, on average, per ms of its CPU time
 * (a trap each, some 20-40 us on a VM), and at most in a row (or a sample's
 * worth, if more). */
#define REFILLS_PER_MS 0.5
#define REFILLS_IN_A_ROW 4.0

/* The thread's sample interval, in ms of its CPU time. */
static double sample_ms(const wasp_thread *t)
{
    return t->sampler.period_ns ? (double)t->sampler.period_ns / 1e6 : 1.0;
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

/* The chain goes on in the thread's next TLAB: watch the field the JVM
 * stores when it refills the TLAB (heap/tlab.h), to pick from the new one's
 * top (every boundary has chance p wherever the picking starts). A trap
 * each, so a thread follows REFILLS_PER_MS refills a ms of CPU on average,
 * and none where the field cannot be watched (the page engine watches the
 * Java heap only). Else the thread's next sample starts a new chain: what the
 * thread allocates until then is not sampled, which favours what it creates
 * slowly (docs/alloc.md, Limits). */
static int watch_refill(wasp_thread *t, int moving)
{
    uint64_t not_heap = t->rec.counters[WASP_C_DROP_NOT_HEAP];
    wasp_alloc_thread *at = wasp_alloc_state(t);
    uint64_t top, end;
    uint64_t field = at->no_refill_watch || at->refill_tokens < 1 ||
                             !wasp_tlab_room(t->jni_env, &top, &end)
                         ? 0
                         : wasp_tlab_refill_field(t->jni_env);
    wasp_slot *slot = field ? watch_at(t, moving, field) : NULL;
    int tag = WASP_ALLOC_TAG_REFILL;
    if (slot)
        slot->watch.cur = end; /* a new TLAB ends elsewhere */
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
        tag = WASP_ALLOC_TAG_SENTINEL;
        if (slot)
            slot->watch.cur = end;
    } else if (!slot && !field && moving >= 0) {
        wasp_watch_done(t, moving);
    }
    if (!slot) {
        wasp_alloc_count(t, C_NO_ROOM);
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
        wasp_alloc_count(t, room ? C_PASSED : C_NO_ROOM);
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
    slot->watch.cur = end;
    slot->tag = WASP_ALLOC_TAG_BOUNDARY;
    slot->state = WASP_SLOT_ARMED; /* the first store to the byte is the creation */
    wasp_alloc_count(t, C_ARMED);
    return 1;
}

/* Whether slot i holds a watch of this analysis. */
static int ours(const wasp_thread *t, int i)
{
    return t->reservoir[i].in_use && t->reservoir[i].analysis == WASP_ID_alloc &&
           t->slots[i].state == WASP_SLOT_ARMED;
}

/* Whether the thread's chain goes on (a boundary, refill or sentinel watched). */
static int chained(const wasp_thread *t)
{
    for (int i = 0; i < t->nslots; i++)
        if (ours(t, i))
            return 1;
    return 0;
}

/* Watches the thread's allocation will never reach: a boundary whose TLAB
 * was retired before its top got there (the rest of a TLAB is left to a
 * filler object that stores no body), or a sentinel whose TLAB the thread
 * did not get (it went elsewhere, or to another thread). The next sample
 * starts a chain. */
static void drop_stalled(wasp_thread *t)
{
    uint64_t top, end;
    if (!wasp_tlab_room(t->jni_env, &top, &end))
        return;
    for (int i = 0; i < t->nslots; i++) {
        const wasp_slot *slot = &t->slots[i];
        if (!ours(t, i) || slot->tag == WASP_ALLOC_TAG_REFILL)
            continue;
        /* In the TLAB it was picked in (watch.cur: that TLAB's end), the
         * thread may be creating its object right now (the top past it, the
         * byte not stored yet), and a sentinel lies past that TLAB. */
        int in_tlab = slot->addr >= top && slot->addr < end;
        if (end != slot->watch.cur && !in_tlab) {
            wasp_alloc_count(t, C_NO_ROOM);
            wasp_watch_done(t, i);
        }
    }
}

/* The chance the thread's samples set now: each boundary's chance is its
 * own, whatever came before. */
static double chance_now(wasp_thread *t)
{
    const wasp_alloc_thread *at = wasp_alloc_state(t);
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
    wasp_alloc_count(t, C_REFILL);
    double p = chance_now(t);
    watch_boundary(t, boundary_from(top), wasp_alloc_pages_to_next(p, &t->rng), p, i);
}

void wasp_alloc_chain_on_sample(wasp_thread *t)
{
    wasp_alloc_thread *at = wasp_alloc_state(t);
    drop_stalled(t);
    int waiting = chained(t);
    double ms = sample_ms(t);
    at->gap = at->gap > 0 ? wasp_alloc_next_gap(at->gap, at->caught, ms, &at->catch_rate)
                          : WASP_ALLOC_GAP_START;
    at->caught = 0;
    double tokens = REFILLS_PER_MS * ms, most = tokens > REFILLS_IN_A_ROW ? tokens : REFILLS_IN_A_ROW;
    at->refill_tokens += tokens;
    if (at->refill_tokens > most)
        at->refill_tokens = most;
    if (waiting)
        return;
    uint64_t top, end;
    if (!wasp_tlab_room(t->jni_env, &top, &end)) {
        wasp_alloc_count(t, C_NO_ROOM);
        return;
    }
    /* Every boundary from the top on has the same chance. */
    double p = wasp_alloc_page_chance(at->gap);
    watch_boundary(t, boundary_from(top), wasp_alloc_pages_to_next(p, &t->rng), p, -1);
}

void wasp_alloc_chain_next(wasp_thread *t, int i)
{
    wasp_alloc_thread *at = wasp_alloc_state(t);
    at->caught++;
    if (at->gap > 0) /* 0: no sample yet (chance_now starts from WASP_ALLOC_GAP_START) */
        at->gap = wasp_alloc_gap_after_catch(at->gap, at->caught, sample_ms(t));
    double p = chance_now(t);
    watch_boundary(t, t->slots[i].addr + WASP_ALLOC_PAGE, wasp_alloc_pages_to_next(p, &t->rng),
                   p, i);
}

void wasp_alloc_chain_on_refill(wasp_thread *t, int i)
{
    uint64_t top, end;
    if (t->slots[i].tag == WASP_ALLOC_TAG_REFILL &&
        (!wasp_tlab_room(t->jni_env, &top, &end) || end == t->slots[i].watch.cur)) {
        /* Not a new TLAB yet: the old one retired (the _end field: the new
         * one is stored next), or an object allocated outside it (the
         * limit raised). The watch stays. */
        wasp_alloc_count(t, C_REFILL_WAIT);
        return;
    }
    restart_chain(t, i);
}

int wasp_alloc_chain_page_stored(wasp_thread *t, uint64_t page)
{
    for (int i = 0; i < t->nslots; i++) {
        const wasp_slot *slot = &t->slots[i];
        if (!ours(t, i) || slot->addr != page)
            continue;
        if (slot->tag == WASP_ALLOC_TAG_BOUNDARY)
            return i;
        if (slot->tag == WASP_ALLOC_TAG_SENTINEL)
            restart_chain(t, i);
        return -1;
    }
    return -1;
}
