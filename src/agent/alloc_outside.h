/*
 * Objects allocated outside any TLAB, for the alloc analysis (`-e alloc`,
 * docs/alloc.md "Outside TLABs"): HotSpot allocates large arrays directly in
 * eden or the old generation, where the TLAB watches never look. JVMTI's
 * SampledObjectAlloc sees them; each sampled object found outside its
 * thread's current TLAB is counted, with the bytes it stands for, by
 * (class, allocation context) in a bounded table. Objects inside the TLAB
 * are left to the TLAB watches, so nothing is counted twice.
 *
 * Not async-signal-safe: JVMTI callbacks and the dump.
 */
#ifndef WASP_ALLOC_OUTSIDE_H
#define WASP_ALLOC_OUTSIDE_H

#include <jvmti.h>
#include <stdint.h>

#include "agent/alloc.h"

/* HotSpot's own default interval (JVMTI and JFR): an object of 1 MiB is
 * sampled with chance 1 - e^-2 = 86%. */
enum { WASP_ALLOC_OUTSIDE_INTERVAL = 512 * 1024 };

/* Start taking allocation samples (the capability, the interval unless the
 * objects analysis set one, the event): 0, or -1 with why[] set. */
int wasp_alloc_outside_start(jvmtiEnv *jvmti, uint32_t max_frames, char *why, size_t len);
/* No more samples (the event stays on while the objects analysis runs). */
void wasp_alloc_outside_stop(jvmtiEnv *jvmti);
/* From the SampledObjectAlloc callback, first. */
void wasp_alloc_outside_on_object(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jobject object,
                                  jclass klass, jlong size);

/* What was counted, for the profile. */
typedef struct wasp_alloc_outside_stats {
    uint64_t events;   /* samples the JVM delivered while on */
    uint64_t outside;  /* ... of objects outside the thread's TLAB: counted */
    uint64_t unplaced; /* ... whose place could not be told (a GC around the read): not counted */
    uint64_t full;     /* outside ones not counted: the table was full */
    uint64_t ns;       /* time spent in the callback, wasp's part */
    uint64_t interval; /* the sampling interval in force (the largest seen) */
} wasp_alloc_outside_stats;

/* Visit each (class, context) counted: site (name, frames; allocations and
 * bytes: the estimated creations and bytes), its samples and the sum of its
 * samples' bytes squared; then forget them all. Returns the stats. */
wasp_alloc_outside_stats wasp_alloc_outside_take(void (*visit)(const wasp_alloc_site *site,
                                                               double samples, double bytes_sq,
                                                               void *arg),
                                                 void *arg);

#endif
