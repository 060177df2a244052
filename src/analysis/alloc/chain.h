/*
 * Which bytes the alloc analysis watches on the software samplers
 * (docs/alloc.md): page boundaries of a thread's TLAB ahead of its top, each
 * picked with the chance byte_sampling.h sets, one at a time, in a chain that
 * starts at a sample and goes from catch to catch to the TLAB's end
 * (coverage.h weighs for what it does not cover). handler.c names what is
 * caught.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler of the thread given.
 */
#ifndef WASP_ANALYSIS_ALLOC_CHAIN_H
#define WASP_ANALYSIS_ALLOC_CHAIN_H

#include <stdint.h>

#include "watch/thread_state.h"

/* A sample of the thread: the chance follows the creations caught since
 * the last one, and a chain starts from the TLAB's top when none goes on.
 * A slot's watch.v1 holds the chance its boundary was picked with (a
 * double), watch.cur the end of the TLAB it was picked in. */
void wasp_alloc_chain_on_sample(wasp_thread *t);
/* The boundary of slot i was caught: the next pick, in the same slot. */
void wasp_alloc_chain_next(wasp_thread *t, int i);
/* The thread stored to a page it watches (the page engine): the slot of
 * the boundary on that page, or -1. */
int wasp_alloc_chain_page_stored(wasp_thread *t, uint64_t page);

#endif
