/*
 * The registry of profiled threads: a thread's index (in its perf events'
 * signal data) to its state (thread_state.h). Indexes are handed out once
 * and never reused in a process; a slot holds the state from publication
 * until the thread ends. Written only by agent/threads.c (reserve, publish,
 * remove, outside signal handlers); read by the signal handlers (handler.c,
 * page.c) and by the agent when it walks every thread.
 *
 * ASYNC-SIGNAL-SAFE: the readers are atomic loads.
 */
#ifndef WASP_THREAD_REGISTRY_H
#define WASP_THREAD_REGISTRY_H

#include <stdint.h>

#include "watch/thread_state.h"

/* A fresh index for a new thread's state; WASP_MAX_THREADS or more when the
 * registry is full (that thread stays unprofiled). */
uint32_t wasp_registry_reserve(void);
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
