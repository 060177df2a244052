/*
 * What the alloc analysis keeps per thread: sampled object creations by
 * (class, context of the creation), each with its weight (the inverse of the
 * chance that a creation of its size was sampled, alloc/handler.c) and the
 * bytes that stands for (weight times size: what docs/alloc.md's bytes
 * estimate adds up). The
 * agent part names the classes when the run stops (agent.c).
 *
 * ASYNC-SIGNAL-SAFE: the table is filled by the SIGTRAP handler of its own
 * thread and read by the dump after sampling stopped.
 */
#ifndef WASP_ANALYSIS_ALLOC_RECORDS_H
#define WASP_ANALYSIS_ALLOC_RECORDS_H

#include <stdint.h>

#include "analysis/alloc/coverage.h"

enum { WASP_ALLOC_SLOTS = 2048 }; /* per thread; a power of two */

typedef struct wasp_alloc_rec {
    uint64_t klass;   /* Klass* */
    uint32_t ctx;     /* the thread's records' context id + 1; 0 = empty slot */
    uint32_t samples; /* sampled creations */
    double weight;    /* their weights' sum */
    double bytes;     /* each one's weight times its size, summed; 0 when sizes are not known */
    double bytes_sq;  /* the squares of each one's bytes, summed: their spread */
} wasp_alloc_rec;

/* Boundaries the chain picked after a caught one that lay below the TLAB's
 * top, in an object allocated already (chain.c): more picks of the caught
 * object when it holds the last of them (it is the latest, as a large array
 * being cleared is). */
typedef struct wasp_alloc_passed {
    uint32_t n;     /* how many */
    uint64_t last;  /* the last one */
    double chance;  /* the chance each had */
} wasp_alloc_passed;

/* A creation caught by its watched byte, named at the thread's next sample
 * (alloc/handler.c): by then the object is built, its header stored. */
typedef struct wasp_alloc_pending {
    uint64_t byte;       /* the watched byte */
    uint64_t start;      /* where the object may start (the trapping store's base), 0 */
    uint64_t end;        /* the TLAB top at the trap: where the latest object ends */
    uint64_t klass;      /* the class when known already (its class-word store), else 0 */
    double chance;       /* the chance its page boundary had to be picked */
    uint32_t ctx, epoch; /* the creation's context id, the GC epoch of the trap */
    wasp_alloc_passed more; /* boundaries picked after it below the top (chain.h) */
} wasp_alloc_pending;

enum { WASP_ALLOC_PENDING = 4 };

typedef struct wasp_alloc_thread {
    wasp_alloc_rec recs[WASP_ALLOC_SLOTS];
    wasp_alloc_pending pending[WASP_ALLOC_PENDING];
    uint32_t npending;
    uint32_t caught; /* creations caught since the thread's last sample */
    double gap;      /* mean bytes between picked boundaries (byte_sampling.h); 0: not yet */
    double catch_rate; /* creations caught per sample, a moving average */
    double sentinel_tokens; /* next TLABs the chain may still follow (chain.c) */
    wasp_alloc_coverage cover; /* what the chain covered since the last sample (coverage.h) */
} wasp_alloc_thread;

#endif
