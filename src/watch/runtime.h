/*
 * Process-wide profiler state the signal handler reads: the thread registry
 * (written by agent/threads.c), the GC epoch (agent.c's GC events), and the
 * session's settings and mechanisms (agent.c and agent/probe.c, before
 * sampling starts). Tracked objects have their own (heap/tracked.h); each
 * thread's state is its own (thread_state.h), each analysis's its own.
 * Written before sampling starts or with atomic stores.
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
    int context;               /* WASP_CONTEXT_WALK, _CHAIN, _CHAIN_CHECK (watch/caller_chain.h) */
    int nslots;
    wasp_agct_fn agct;
    void *jvm;                 /* JavaVM*, for threads adopted at attach */
    wasp_source *source;
    const struct wasp_watch_engine *watch; /* NULL when no analysis watches */
    double watch_budget;       /* watch events' share of CPU time, 0: no limit */
    uint64_t watch_event_ns;   /* one watch event's cost, measured at start-up */
} wasp_runtime;

extern wasp_runtime wasp_rt;

#endif
