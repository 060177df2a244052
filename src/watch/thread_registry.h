/*
 * The registry of profiled threads: a thread's index (in its perf events'
 * signal data) to its state (thread_state.h). A slot holds the state from
 * publication until the thread ends (or its session does). An index whose
 * thread ended is handed out again, oldest first, but only once more than
 * WASP_REGISTRY_REUSE_AFTER wait: a service that starts threads without end
 * would otherwise run out of the WASP_MAX_THREADS indexes after hours (at
 * 100 threads a second, in three) and profile no new thread, while the
 * delay keeps an index away from any late reader of its last thread. Written only by agent/threads.c (reserve, publish,
 * remove, outside signal handlers); read by the signal handlers (handler.c,
 * page.c) and by the agent when it walks every thread.
 *
 * ASYNC-SIGNAL-SAFE: the readers are atomic loads.
 */
#ifndef WASP_THREAD_REGISTRY_H
#define WASP_THREAD_REGISTRY_H

#include <stdint.h>

#include "watch/thread_state.h"

enum {
    WASP_REGISTRY_FREE_RING = 1u << 16, /* released indexes kept for reuse */
    WASP_REGISTRY_REUSE_AFTER = 4096    /* reuse one only when more than this are free */
};

/* An index for a new thread's state: a released one when enough are, else a
 * fresh one; WASP_MAX_THREADS or more when the registry is full (that thread
 * stays unprofiled). */
uint32_t wasp_registry_reserve(void);
/* The index is free again (removed, its thread's events closed): it may be
 * handed out later. */
void wasp_registry_release(uint32_t index);
/* Make t reachable at its index (release store: before its first signal). */
void wasp_registry_publish(uint32_t index, wasp_thread *t);
/* Empty an index (release store); its state is the caller's to free. */
void wasp_registry_remove(uint32_t index);

/* The thread at index, or NULL (out of range, not published or ended). */
wasp_thread *wasp_thread_at(uint32_t index);
/* Indexes handed out so far, at most WASP_MAX_THREADS: every thread is at an
 * index below it. */
uint32_t wasp_registry_count(void);

#endif
