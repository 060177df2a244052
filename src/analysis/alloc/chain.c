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

/* Watch the page boundary `pages` - 1 boundaries on from `first` (the first
 * that may be picked) when the thread's TLAB reaches it, with the chance p
 * it was picked with, in slot `moving` (the chain going on in the same
 * watch) or a new one (-1). Returns 1 when armed; `moving` is released when
 * not. A pick past the TLAB ends the chain: following the thread into its
 * next TLAB would cost a trap a refill, and what the chain does not cover
 * is made up for by the weights (coverage.h). */
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
    int in_tlab = room && x >= top && x + WASP_ALLOC_PAGE <= end;
    wasp_slot *slot = NULL;
    if (in_tlab)
        slot = moving >= 0 ? wasp_watch_move(t, moving, x, 8, 0)
                           : wasp_watch_claim(t, WASP_ID_alloc, x, 8, 0);
    else if (moving >= 0)
        wasp_watch_done(t, moving);
    if (!slot) {
        if (!room || x >= top) /* no room, past the TLAB, or the engine refused */
            wasp_alloc_count(t, C_NO_ROOM);
        else /* already allocated: a large object holds it too */
            wasp_alloc_count(t, C_PASSED);
        /* Past the TLAB the chain covered it to its end; else it stops here. */
        if (room && x + WASP_ALLOC_PAGE <= end)
            wasp_alloc_cover_stop(cover, top);
        return 0;
    }
    memcpy(&slot->watch.v1, &p, sizeof p);
    slot->watch.cur = end;
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

/* A boundary the thread's allocation will never reach: its TLAB was
 * retired before the top got there (the rest of a TLAB is left to a filler
 * object that stores no body). Dropped: the next sample starts a chain. */
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
         * byte not stored yet). */
        if (end != slot->watch.cur) {
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

void wasp_alloc_chain_on_sample(wasp_thread *t)
{
    wasp_alloc_thread *at = wasp_alloc_state(t);
    int waiting = drop_stalled(t);
    double ms = sample_ms(t);
    at->gap = at->gap > 0 ? wasp_alloc_next_gap(at->gap, at->caught, ms, &at->catch_rate)
                          : WASP_ALLOC_GAP_START;
    at->caught = 0;
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

int wasp_alloc_chain_page_stored(wasp_thread *t, uint64_t page)
{
    for (int i = 0; i < t->nslots; i++)
        if (ours(t, i) && t->slots[i].addr == page)
            return i;
    return -1;
}
