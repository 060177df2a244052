/*
 * Process-wide profiler state the signal handler reads: the thread registry,
 * the GC epoch, the enabled analyses and settings. Written before sampling
 * starts (settings) or with atomic stores (registry, epoch, on/off).
 *
 * ASYNC-SIGNAL-SAFE: read by the SIGTRAP handler.
 */
#ifndef WASP_RUNTIME_H
#define WASP_RUNTIME_H

#include <stdint.h>

#include "sample/source.h"
#include "watch/thread_state.h"

typedef void (*wasp_agct_fn)(void *trace, int depth, void *ucontext);

typedef struct wasp_runtime {
    wasp_thread *volatile threads[WASP_MAX_THREADS];
    volatile uint32_t nthreads;
    volatile uint32_t epoch;   /* GC epoch: bumped at every GC start and finish */
    volatile int sampling;     /* 0: handlers ignore everything */
    uint32_t enabled;          /* the analyses running (a bit per analysis id) */
    double float_threshold;
    uint32_t max_frames;
    int nslots;
    wasp_agct_fn agct;
    void *jvm;                 /* JavaVM*, for threads adopted at attach */
    /* Tracked objects, for the analyses that need them (WASP_NEEDS_OBJECTS). */
    int tracking;                   /* allocations are tracked */
    struct wasp_objmap *objmap;
    volatile uint32_t objmap_epoch; /* GC epoch the object map describes */
    uint64_t heap_address_mask;     /* strips ZGC colour bits; ~0 otherwise */
    int heap_moves_concurrently;    /* ZGC or Shenandoah: objects move outside pauses */
    int numa_nodes;
    wasp_source *source;
    const struct wasp_watch_engine *watch; /* NULL when no analysis watches */
    double watch_budget;       /* watch events' share of CPU time, 0: no limit */
    uint64_t watch_event_ns;   /* one watch event's cost, measured at start-up */
} wasp_runtime;

extern wasp_runtime wasp_rt;

#endif
