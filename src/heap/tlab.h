/*
 * A Java thread's thread-local allocation buffer (TLAB), as HotSpot's
 * VMStructs place it: Thread::_tlab's _top (where the thread's next object
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
    int64_t top_from_env, end_from_env; /* JavaThread's TLAB _top and _end, from its JNIEnv */
    /* Its _refill_waste_limit, or _end when VMStructs lacks it: the field
     * wasp_tlab_refill_field gives. */
    int64_t refill_from_env;
} wasp_tlab_layout;

extern wasp_tlab_layout wasp_tlab;

/* The calling thread's TLAB free part [*top, *end), through its JNIEnv:
 * 1, or 0 when the layout is unknown or the thread has no TLAB room (a
 * refill in progress may be seen half done: callers check what they use). */
int wasp_tlab_room(void *jni_env, uint64_t *top, uint64_t *end);
/* A field of the calling thread's TLAB that the JVM stores when it gives
 * the thread a new TLAB, 0 when unknown. HotSpot's refill (fill) stores
 * _refill_waste_limit once, after the new TLAB's _start, _top and _end:
 * one store a refill, where _end takes two (retiring the old TLAB clears
 * it). It is also stored when an object is allocated outside the TLAB
 * (the TLAB unchanged). _end when VMStructs does not name the limit. */
uint64_t wasp_tlab_refill_field(void *jni_env);

#endif
