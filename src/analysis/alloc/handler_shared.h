/*
 * What the alloc analysis's handler files share (handler.c: samples, traps,
 * naming; chain.c: which bytes are watched): its counters and per-thread
 * state.
 *
 * ASYNC-SIGNAL-SAFE: used in the SIGTRAP handler of the thread given.
 */
#ifndef WASP_ANALYSIS_ALLOC_HANDLER_SHARED_H
#define WASP_ANALYSIS_ALLOC_HANDLER_SHARED_H

#include "analysis/alloc/records.h"
#include "watch/handler_part.h"

/* t->rec.part_counters[WASP_ID_alloc][...]; named in handler.c. */
enum wasp_alloc_counter {
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
    C_EARLY,
    C_SENTINEL,
    C_WINDOW_BYTES,
    C_COVERED_BYTES,
    C_PASSED_OTHER
};

static inline void wasp_alloc_count(wasp_thread *t, int which)
{
    t->rec.part_counters[WASP_ID_alloc][which]++;
}

static inline wasp_alloc_thread *wasp_alloc_state(wasp_thread *t)
{
    return t->part_state[WASP_ID_alloc];
}

#endif
