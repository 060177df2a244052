/*
 * What one SampledObjectAlloc event needs from the JVM — the allocating
 * thread's Java frames, the object's class name, where the object is now —
 * at the least cost (alloc_event.c says what each costs and why).
 * Not for signal handlers: JVMTI callback threads.
 */
#ifndef WASP_ALLOC_EVENT_H
#define WASP_ALLOC_EVENT_H

#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

#include "watch/records.h"

enum { WASP_ALLOC_EVENT_MAX_FRAMES = 256 };

/* The calling thread's Java frames, leaf first, at most depth (itself at
 * most WASP_ALLOC_EVENT_MAX_FRAMES). Returns the number of frames, 0 when
 * the JVM could not say. */
uint32_t wasp_alloc_event_frames(jvmtiEnv *jvmti, jthread thread, wasp_rframe *out, uint32_t depth);

/* The Java name of klass into out (as wasp_jvm_class_name), remembered per
 * class for the current GC epoch. out is left as it is when the JVM cannot
 * say. */
void wasp_alloc_event_class(jclass klass, char *out, size_t len);

/* Where the object behind a JNI reference is: 1 with *addr (ZGC colour bits
 * kept) and the GC *epoch the address belongs to, 0 when a collection
 * started or ran around the read (the address may be stale). The caller is
 * in native code, so a collection may move the object at any time; the epoch
 * read before and after the address brackets it. */
int wasp_object_address_now(jobject object, uint64_t *addr, uint32_t *epoch);

#endif
