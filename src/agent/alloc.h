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
    int untracked;        /* objects under min-size, sampled but not tracked: where their
                             class is allocated, for the objects accessed by class */
    double allocations;
    double bytes;
} wasp_alloc_site;

/* Capabilities and settings, at agent load. Returns 0 (wasp_objects.on is
 * set: heap/tracked.h, written only here), or -1 with a reason. */
int wasp_alloc_init(jvmtiEnv *jvmti, const wasp_options *o, char *why, size_t len);
/* Start tracking (the map keeper thread, the allocation events), when init
 * set it up. In the live phase. 0, or -1 with a reason (tracking is off). */
int wasp_alloc_start(jvmtiEnv *jvmti, JNIEnv *env, char *why, size_t len);
/* The session ended and its profile is written: its sites, tracked objects
 * (their weak references, when env is given) and map entries go, so the next
 * session (wasp attach again) starts with none. */
void wasp_alloc_forget(JNIEnv *env);
/* Stop tracking, if on: no more events, the keeper thread ends. */
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
/* The allocation sampling interval in force now. */
uint64_t wasp_alloc_interval_now(void);
/* SampledObjectAlloc events the JVM delivered, tracked or not. */
uint64_t wasp_alloc_events(void);
/* The minimum object size tracked (min-size). */
uint32_t wasp_alloc_min_size(void);

/* From the GarbageCollectionFinish event: wake the keeper to rebuild the map. */
void wasp_alloc_on_gc_finish(jvmtiEnv *jvmti);

/* Visit every site (under the tracker's lock); id is what handlers record. */
void wasp_alloc_each_site(void (*visit)(uint32_t id, const wasp_alloc_site *site, void *arg),
                          void *arg);
/* The same, for a profile written now: each site's allocations and bytes,
 * then zero, so that the next write adds only later ones; *events: the
 * allocation events since the last write. Untracked sites are not visited. */
void wasp_alloc_take_sites(void (*visit)(uint32_t id, const wasp_alloc_site *site, void *arg),
                           void *arg, uint64_t *events);
/* From now until the session ends, sampled objects under min-size are
 * counted in untracked sites (their stacks walked: an analysis that wants
 * them asks, at set-up). */
void wasp_alloc_count_untracked(void);
/* Visit each untracked site with allocations since the last call (under the
 * tracker's lock), then zero them; returns the small objects left uncounted
 * meanwhile because the untracked sites were full. */
uint64_t wasp_alloc_take_untracked(void (*visit)(const wasp_alloc_site *site, void *arg),
                                   void *arg);
/* A copy of site id (its frames and name stay valid: sites are never freed).
 * Returns 0, -1 for an unknown id. */
int wasp_alloc_site_get(uint32_t id, wasp_alloc_site *out);
/* A tracked object: its weak reference, site and size, and one bit the
 * analysis with the keeper's tick may keep for it (wasp_alloc_on_tick). A
 * G1 humongous object has no reference (heap/humongous.h: one would keep it
 * from being reclaimed): ref is NULL, addr and klass say where it is and
 * what it must still be there. */
typedef struct wasp_alloc_object {
    jweak ref;
    uint64_t addr, klass; /* ref NULL: tracked by address */
    uint32_t site;
    uint32_t size : 31;
    uint32_t mark : 1;
} wasp_alloc_object;
/* The number of sites so far (ids 0 to it, less one). */
uint32_t wasp_alloc_site_count(void);
/* Visit the tracked objects of site, newest first, under the tracker's lock
 * (o stays valid until this returns), until visit returns nonzero. Collected
 * objects may still be there until the next rebuild: their ref resolves to
 * NULL, as does a humongous object's (tracked by address, no reference). */
void wasp_alloc_each_object(uint32_t site, int (*visit)(wasp_alloc_object *o, void *arg),
                            void *arg);
/* Work an analysis does on the keeper thread while tracking runs (the replicas
 * verification compares live objects before they die): fn(env) after each of
 * the keeper's passes, which come every ms milliseconds at the most (instead of
 * every 100). One at a time: fn replaces the one before; NULL: none. */
typedef void (*wasp_alloc_tick_fn)(JNIEnv *env);
void wasp_alloc_on_tick(wasp_alloc_tick_fn fn, uint32_t ms);
/* Whether thread is the keeper (so it is not profiled itself). */
int wasp_alloc_is_keeper(const char *thread_name);

#endif
