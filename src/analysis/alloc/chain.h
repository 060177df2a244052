/*
 * Which bytes the alloc analysis watches on the software samplers
 * (docs/alloc.md): page boundaries of a thread's TLAB ahead of its top, each
 * picked with the chance byte_sampling.h sets, one at a time, in a chain that
 * starts at a sample and goes from catch to catch to the TLAB's end, or on
 * into the next TLAB where that costs no trap of its own (coverage.h weighs
 * for what it does not cover). handler.c names what is caught.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler of the thread given.
 */
#ifndef WASP_ANALYSIS_ALLOC_CHAIN_H
#define WASP_ANALYSIS_ALLOC_CHAIN_H

#include <stdint.h>

#include "analysis/alloc/records.h"
#include "watch/thread_state.h"

/* What a slot of this analysis watches (slot->tag): a picked boundary (its
 * chance in watch.v1, a double), or the first page of where the next TLAB
 * would begin (a sentinel, on engines of the Java heap only). Both keep the
 * end of the TLAB they were picked in (watch.cur). */
enum { WASP_ALLOC_TAG_BOUNDARY = 0, WASP_ALLOC_TAG_SENTINEL = 1 };

/* A sample of the thread: the chance follows the creations caught since
 * the last one, and a chain starts from the TLAB's top when none goes on. */
void wasp_alloc_chain_on_sample(wasp_thread *t);
/* The boundary of slot i was caught: the next pick, in the same slot.
 * Picks below the TLAB's top lie in an object allocated already (a large
 * one, holding several boundaries): not watched, told in *passed for the
 * handler to count, and the chain goes on past them. */
void wasp_alloc_chain_next(wasp_thread *t, int i, wasp_alloc_passed *passed);
/* Slot i's bytes were stored to: 1 for a boundary (a creation caught),
 * else 0 (a sentinel: the chain starts over in the new TLAB). */
int wasp_alloc_chain_stored(wasp_thread *t, int i);
/* The thread stored to a page it watches (the page engine): the slot of
 * the boundary on that page, or -1 (none; a sentinel's page starts the
 * chain over). */
int wasp_alloc_chain_page_stored(wasp_thread *t, uint64_t page);

#endif
