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

#include "analysis/analysis.h"
#include "sample/source.h"
#include "watch/thread_state.h"

typedef void (*wasp_agct_fn)(void *trace, int depth, void *ucontext);

enum { WASP_MAX_SITES_COUNTED = 1u << 16 };

typedef struct wasp_runtime {
    wasp_thread *volatile threads[WASP_MAX_THREADS];
    volatile uint32_t nthreads;
    volatile uint32_t epoch;   /* GC epoch: bumped at every GC start and finish */
    volatile int sampling;     /* 0: handlers ignore everything */
    const wasp_analysis_client *store_clients[WASP_AN_COUNT];
    int nstore_clients;
    const wasp_analysis_client *load_clients[WASP_AN_COUNT];
    int nload_clients;
    double float_threshold;
    uint32_t max_frames;
    int nslots;
    wasp_agct_fn agct;
    void *jvm;                 /* JavaVM*, for threads adopted at attach */
    /* Object-centric analysis. */
    int objects;
    struct wasp_objmap *objmap;
    volatile uint32_t objmap_epoch; /* GC epoch the object map describes */
    uint64_t heap_address_mask;     /* strips ZGC colour bits; ~0 otherwise */
    int heap_moves_concurrently;    /* ZGC or Shenandoah: objects move outside pauses */
    int numa_nodes;
    int replicas;                 /* the replicas analysis is on */
    int tracking;                 /* allocations are tracked (objects or replicas) */
    uint32_t *site_comparisons;   /* replica comparisons per site (ranks --verify-top) */
    wasp_source *source;
    const struct wasp_watch_engine *watch; /* NULL when no analysis watches */
    double watch_budget;       /* watch events' share of CPU time, 0: no limit */
    uint64_t watch_event_ns;   /* one watch event's cost, measured at start-up */
} wasp_runtime;

extern wasp_runtime wasp_rt;

#endif
