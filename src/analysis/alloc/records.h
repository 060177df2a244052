/*
 * What the alloc analysis keeps per thread: sampled object creations (stores
 * of an object's class word) by (class, context of the store). The agent part
 * names the classes when the run stops (agent.c).
 *
 * ASYNC-SIGNAL-SAFE: the table is filled by the SIGTRAP handler of its own
 * thread and read by the dump after sampling stopped.
 */
#ifndef WASP_ANALYSIS_ALLOC_RECORDS_H
#define WASP_ANALYSIS_ALLOC_RECORDS_H

#include <stdint.h>

enum { WASP_ALLOC_SLOTS = 2048 }; /* per thread; a power of two */

typedef struct wasp_alloc_rec {
    uint64_t klass;   /* Klass* */
    uint32_t ctx;     /* the thread's records' context id + 1; 0 = empty slot */
    uint32_t samples;
} wasp_alloc_rec;

typedef struct wasp_alloc_thread {
    wasp_alloc_rec recs[WASP_ALLOC_SLOTS];
} wasp_alloc_thread;

#endif
