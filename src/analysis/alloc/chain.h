/*
 * Which bytes the alloc analysis watches on the software samplers
 * (docs/alloc.md): page boundaries of a thread's TLAB ahead of its top, each
 * picked with the chance byte_sampling.h sets, one at a time, in a chain that
 * goes from catch to catch and, watching the TLAB's refill, from one TLAB to
 * the next. handler.c names what is caught.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler of the thread given.
 */
#ifndef WASP_ANALYSIS_ALLOC_CHAIN_H
#define WASP_ANALYSIS_ALLOC_CHAIN_H

#include <stdint.h>

#include "watch/thread_state.h"

/* What a slot of this analysis watches (slot->tag): a picked boundary (its
 * chance in watch.v1, a double), the TLAB's end field (a refill), or the
 * first page of where the next TLAB would begin (a sentinel). Boundaries and
 * sentinels keep the end of the TLAB they were picked in (watch.cur). */
enum { WASP_ALLOC_TAG_BOUNDARY = 0, WASP_ALLOC_TAG_REFILL = 1, WASP_ALLOC_TAG_SENTINEL = 2 };

/* A sample of the thread: the chance follows the creations caught since
 * the last one, and a chain starts from the TLAB's top when none goes on. */
void wasp_alloc_chain_on_sample(wasp_thread *t);
/* The boundary of slot i was caught: the next pick, in the same slot. */
void wasp_alloc_chain_next(wasp_thread *t, int i);
/* Slot i (a refill or sentinel watch) trapped: a new TLAB, or the old one's
 * retirement. */
void wasp_alloc_chain_on_refill(wasp_thread *t, int i);
/* The thread stored to a page it watches (the page engine): slot i's
 * boundary on that page, or -1; a sentinel's page starts the chain over. */
int wasp_alloc_chain_page_stored(wasp_thread *t, uint64_t page);

#endif
