/*
 * A Java thread's thread-local allocation buffer (TLAB), as HotSpot's
 * VMStructs place it: Thread::_tlab's _start, _top (where the thread's next object
 * will start) and _end. Objects are allocated from it by bumping _top, so
 * the bytes from _top up are the thread's next objects, in order. Filled once
 * by the agent (agent/tlab_load.c) and published with `ready`; read by the
 * signal handler of the thread whose TLAB it is (the alloc analysis).
 *
 * ASYNC-SIGNAL-SAFE: plain reads of the calling thread's own JavaThread,
 * which lives as long as the thread runs (as watch/frame_anchor.h).
 */
#ifndef WASP_HEAP_TLAB_H
#define WASP_HEAP_TLAB_H

#include <stdint.h>

typedef struct wasp_tlab_layout {
    volatile int ready;
    /* JavaThread's TLAB _start, _top and end, from its JNIEnv: the end is
     * _allocation_end where its place is known (agent/tlab_load.c), not _end,
     * which JVMTI's allocation sampling sets short of it */
    int64_t start_from_env, top_from_env, end_from_env;
    /* Its _number_of_refills (unsigned, zeroed at each GC) and _desired_size
     * (heap words), when has_counts. */
    int has_counts;
    /* The largest TLAB the collector hands out, in bytes, when it is below
     * what _desired_size asks (ZGC: a small object's limit, 1/8 of a small
     * page; the TLAB is cut to it whatever the size asked); 0: none. */
    uint64_t max_bytes;
    int64_t refills_from_env, desired_from_env;
    /* Thread::_allocated_bytes (the bytes of its retired TLABs and of its
     * objects allocated outside TLABs, never zeroed), when has_counts. */
    int64_t allocated_from_env;
} wasp_tlab_layout;

extern wasp_tlab_layout wasp_tlab;

/* The calling thread's TLAB free part [*top, *end), through its JNIEnv:
 * 1, or 0 when the layout is unknown or the thread has no TLAB room (a
 * refill in progress may be seen half done: callers check what they use). */
int wasp_tlab_room(void *jni_env, uint64_t *top, uint64_t *end);
/* Where the calling thread's TLAB begins: objects in [start, top) are the
 * ones it allocated from this TLAB. 0 when unknown. */
uint64_t wasp_tlab_start(void *jni_env);
/* How many TLABs the calling thread took since the last GC, the size in
 * bytes the JVM asks for its next ones, and the bytes it allocated before
 * its current TLAB (Thread::_allocated_bytes: add the TLAB's used part for
 * all, HotSpot's cooked_allocated_bytes): 1, or 0 when unknown. */
int wasp_tlab_counts(void *jni_env, uint32_t *refills, uint64_t *desired, uint64_t *retired);

#endif
