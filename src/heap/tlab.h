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
} wasp_tlab_layout;

extern wasp_tlab_layout wasp_tlab;

/* The calling thread's TLAB free part [*top, *end), through its JNIEnv:
 * 1, or 0 when the layout is unknown or the thread has no TLAB room (a
 * refill in progress may be seen half done: callers check what they use). */
int wasp_tlab_room(void *jni_env, uint64_t *top, uint64_t *end);
/* Where the calling thread's TLAB end is kept (written when the JVM gives
 * the thread a new TLAB), 0 when unknown. */
uint64_t wasp_tlab_end_field(void *jni_env);

#endif
