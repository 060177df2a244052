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

/* Sentinels (the next TLAB's first page, heap-only engines) a thread's
 * chain follows, on average, per ms of its CPU time, and at most in a row
 * (or a sample's worth, if more). */
#define SENTINELS_PER_MS 0.5
#define SENTINELS_IN_A_ROW 4.0

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

/* A pick past the TLAB: on an engine of the Java heap only, whose faults
 * come out of its own budget, the chain goes on where the thread's next TLAB
 * begins when the JVM carves it right after this one (a thread allocating
 * alone in a heap region): that TLAB's first page boundary, past this one's
 * reserve for a filler, watched as a sentinel; a store by the thread there
 * starts the chain over from its new top (chain_restart). Elsewhere, or with
 * no sentinel left to follow, the chain ends at the TLAB's end: following
 * the thread into its next TLAB would cost a trap on its refill field, and
 * what the chain does not cover is made up for by weight (coverage.h). */
static int watch_sentinel(wasp_thread *t, uint64_t end, int moving)
{
    wasp_alloc_thread *at = wasp_alloc_state(t);
    wasp_slot *slot = NULL;
    if (wasp_watch_heap_only() && at->sentinel_tokens >= 1)
        slot = watch_at(t, moving, boundary_from(end + 64));
    else if (moving >= 0)
        wasp_watch_done(t, moving);
    if (!slot) {
        wasp_alloc_count(t, C_NO_ROOM);
        return 0;
    }
    slot->watch.cur = end;
    slot->tag = WASP_ALLOC_TAG_SENTINEL;
    slot->state = WASP_SLOT_ARMED;
    at->sentinel_tokens -= 1;
    return 1;
}

/* Watch the page boundary `pages` - 1 boundaries on from `first` (the first
 * that may be picked) when the thread's TLAB reaches it, with the chance p
 * it was picked with, in slot `moving` (the chain going on in the same
 * watch) or a new one (-1). Returns 1 when armed; `moving` is released when
 * not. */
static int watch_boundary(wasp_thread *t, uint64_t first, uint64_t pages, double p, int moving)
{
    uint64_t top, end;
    const wasp_java_layout *l = &wasp_java;
    wasp_alloc_coverage *cover = &wasp_alloc_state(t)->cover;
    uint64_t x = first + (pages - 1) * WASP_ALLOC_PAGE;
    int room = wasp_tlab_room(t->jni_env, &top, &end) && top >= l->heap_lo && end <= l->heap_hi;
    /* Its whole page in the TLAB's free part: nothing else touches it before
     * the object holding x is created (past the TLAB's end the thread's
     * next TLAB may begin, or another thread's). */
    if (room && x >= top && x + WASP_ALLOC_PAGE > end)
        return watch_sentinel(t, end, moving); /* the chain covered the TLAB to its end */
    if (!room || x < top) { /* x < top: already allocated, a large object holds it too */
        wasp_alloc_count(t, room ? C_PASSED : C_NO_ROOM);
        if (moving >= 0)
            wasp_watch_done(t, moving);
        if (room) /* the chain stops here */
            wasp_alloc_cover_stop(cover, top);
        return 0;
    }
    wasp_slot *slot = watch_at(t, moving, x);
    if (!slot) { /* the budget, or the engine (a failed move drops the watch) */
        wasp_alloc_count(t, C_NO_ROOM);
        wasp_alloc_cover_stop(cover, top);
        return 0;
    }
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

/* Watches the thread's allocation will never reach: a boundary whose TLAB
 * was retired before its top got there (the rest of a TLAB is left to a
 * filler object that stores no body), or a sentinel whose TLAB the thread
 * did not get (it went elsewhere, or to another thread). Dropped: the next
 * sample starts a chain. */
static int drop_stalled(wasp_thread *t)
{
    uint64_t top, end;
    int waiting = 0;
    if (!wasp_tlab_room(t->jni_env, &top, &end))
        return 0;
    for (int i = 0; i < t->nslots; i++) {
        const wasp_slot *slot = &t->slots[i];
        if (!ours(t, i))
            continue;
        /* In the TLAB it was picked in (watch.cur: that TLAB's end), the
         * thread may be creating its object right now (the top past it, the
         * byte not stored yet), and a sentinel lies past that TLAB. */
        int in_tlab = slot->addr >= top && slot->addr < end;
        if (end != slot->watch.cur && !in_tlab) {
            wasp_alloc_count(t, C_NO_ROOM);
            wasp_watch_done(t, i);
        } else {
            waiting = 1;
        }
    }
    return waiting;
}

/* The chance the thread's samples set now: each boundary's chance is its
 * own, whatever came before. */
static double chance_now(wasp_thread *t)
{
    const wasp_alloc_thread *at = wasp_alloc_state(t);
    return wasp_alloc_page_chance(at->gap > 0 ? at->gap : WASP_ALLOC_GAP_START);
}

/* The thread has a new TLAB (its sentinel was stored to): pick from its
 * top, in slot i. */
static void chain_restart(wasp_thread *t, int i)
{
    uint64_t top, end;
    if (!wasp_tlab_room(t->jni_env, &top, &end)) {
        wasp_watch_done(t, i);
        return;
    }
    wasp_alloc_count(t, C_SENTINEL);
    wasp_alloc_cover_from(&wasp_alloc_state(t)->cover, top, end);
    double p = chance_now(t);
    watch_boundary(t, boundary_from(top), wasp_alloc_pages_to_next(p, &t->rng), p, i);
}

void wasp_alloc_chain_on_sample(wasp_thread *t)
{
    wasp_alloc_thread *at = wasp_alloc_state(t);
    int waiting = drop_stalled(t);
    double ms = sample_ms(t);
    at->gap = at->gap > 0 ? wasp_alloc_next_gap(at->gap, at->caught, ms, &at->catch_rate)
                          : WASP_ALLOC_GAP_START;
    at->caught = 0;
    double tokens = SENTINELS_PER_MS * ms;
    double most = tokens > SENTINELS_IN_A_ROW ? tokens : SENTINELS_IN_A_ROW;
    at->sentinel_tokens = at->sentinel_tokens + tokens > most ? most : at->sentinel_tokens + tokens;
    if (waiting)
        return;
    uint64_t top, end;
    if (!wasp_tlab_room(t->jni_env, &top, &end)) {
        wasp_alloc_count(t, C_NO_ROOM);
        return;
    }
    /* Every boundary from the top on has the same chance. */
    wasp_alloc_cover_from(&at->cover, top, end);
    double p = wasp_alloc_page_chance(at->gap);
    watch_boundary(t, boundary_from(top), wasp_alloc_pages_to_next(p, &t->rng), p, -1);
}

void wasp_alloc_chain_next(wasp_thread *t, int i, wasp_alloc_passed *passed)
{
    wasp_alloc_thread *at = wasp_alloc_state(t);
    at->caught++;
    if (at->gap > 0) /* 0: no sample yet (chance_now starts from WASP_ALLOC_GAP_START) */
        at->gap = wasp_alloc_gap_after_catch(at->gap, at->caught, sample_ms(t));
    double p = chance_now(t);
    uint64_t x = t->slots[i].addr, top, end, start = wasp_tlab_start(t->jni_env);
    *passed = (wasp_alloc_passed){0, 0, p};
    /* Each boundary below the top is a pick of the object holding it, as if
     * watched: ending the chain there instead counted a large array once
     * however many of its boundaries were picked (int[] 3 times short of
     * its TLAB bytes on batik). Bounded by the TLAB's pages. */
    int in_tlab = wasp_tlab_room(t->jni_env, &top, &end) && start && start <= x && x < top;
    x += wasp_alloc_pages_to_next(p, &t->rng) * WASP_ALLOC_PAGE;
    while (in_tlab && x < top) {
        passed->n++;
        passed->last = x;
        wasp_alloc_count(t, C_PASSED);
        x += wasp_alloc_pages_to_next(p, &t->rng) * WASP_ALLOC_PAGE;
    }
    watch_boundary(t, x, 1, p, i);
}

int wasp_alloc_chain_stored(wasp_thread *t, int i)
{
    if (t->slots[i].tag == WASP_ALLOC_TAG_BOUNDARY)
        return 1;
    chain_restart(t, i);
    return 0;
}

int wasp_alloc_chain_page_stored(wasp_thread *t, uint64_t page)
{
    for (int i = 0; i < t->nslots; i++) {
        if (!ours(t, i) || t->slots[i].addr != page)
            continue;
        return wasp_alloc_chain_stored(t, i) ? i : -1;
    }
    return -1;
}
