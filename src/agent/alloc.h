/*
 * Allocation tracking for the object-level analyses (objects, replicas): which objects exist,
 * where they are, and where they were allocated. Not for signal handlers.
 */
#ifndef WASP_ALLOC_H
#define WASP_ALLOC_H

#include <jvmti.h>
#include <stdint.h>

#include "agent/options.h"
#include "watch/records.h"

/* One allocation site: the class and the allocation calling context. */
typedef struct wasp_alloc_site {
    char *class_name;     /* "double[]", "java.util.HashMap" */
    wasp_rframe *frames;  /* leaf first, as JVMTI reports them */
    uint32_t nframes;
    int before_attach;    /* objects found in the heap at attach: no allocation path */
    double allocations;
    double bytes;
} wasp_alloc_site;

/* Capabilities and settings, at agent load. Returns 0, or -1 with a reason. */
int wasp_alloc_init(jvmtiEnv *jvmti, const wasp_options *o, char *why, size_t len);
/* Start tracking (the map keeper thread, the allocation events). In the live phase. */
int wasp_alloc_start(jvmtiEnv *jvmti, JNIEnv *env, char *why, size_t len);
/* Stop tracking: no more events, the keeper thread ends. */
void wasp_alloc_stop(jvmtiEnv *jvmti);

void JNICALL wasp_alloc_on_object(jvmtiEnv *jvmti, JNIEnv *env, jthread thread, jobject object,
                                  jclass klass, jlong size);
/* The largest object tracked: a tracked object's size is kept in 31 bits. */
enum { WASP_ALLOC_MAX_SIZE = 0x7fffffff };

/* Track an object that was in the heap before wasp attached (census.c):
 * its site is its class alone, marked before_attach. Live phase, while
 * tracking runs. Returns 0, -1 when it could not be tracked. */
int wasp_alloc_track_existing(JNIEnv *env, jobject object, const char *class_name,
                              uint32_t size);
/* The largest allocation sampling interval used (alloc-interval, or more
 * when the event rate went above alloc-rate). */
uint64_t wasp_alloc_max_interval(void);
/* SampledObjectAlloc events the JVM delivered, tracked or not. */
uint64_t wasp_alloc_events(void);
/* The minimum object size tracked (min-size). */
uint32_t wasp_alloc_min_size(void);

/* From the GarbageCollectionFinish event: wake the keeper to rebuild the map. */
void wasp_alloc_on_gc_finish(jvmtiEnv *jvmti);

/* Visit every site (under the tracker's lock); id is what handlers record. */
void wasp_alloc_each_site(void (*visit)(uint32_t id, const wasp_alloc_site *site, void *arg),
                          void *arg);
/* A copy of site id (its frames and name stay valid: sites are never freed).
 * Returns 0, -1 for an unknown id. */
int wasp_alloc_site_get(uint32_t id, wasp_alloc_site *out);
/* Verification of replica findings (OJXPerf's α): for the `top` sites with the
 * most comparisons (counts[site]), compare consecutive live tracked objects
 * whole, and at sampled words, to measure how often a sampled field is equal
 * although the objects differ. Primitive arrays only. Live phase. */
typedef struct wasp_alloc_check {
    uint32_t site;
    double pairs, identical, alpha, false_positive;
} wasp_alloc_check;
void wasp_alloc_verify(jvmtiEnv *jvmti, JNIEnv *env, uint32_t top, const uint32_t *counts);
/* Verify during the run too (the keeper, every few rounds), so that objects
 * that die before the end are compared: the `top` sites by counts[site]. */
void wasp_alloc_verify_during_run(uint32_t top, const uint32_t *counts);
/* The checks the last verification produced. */
const wasp_alloc_check *wasp_alloc_checks(uint32_t *n);
/* Whether thread is the keeper (so it is not profiled itself). */
int wasp_alloc_is_keeper(const char *thread_name);

#endif
