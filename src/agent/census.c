/*
 * The census of objects that existed before wasp attached (see census.h).
 *
 * JVMTI heap iteration gives sizes but not addresses, so the walk only tags
 * the objects big enough to track; GetObjectsWithTags then hands them back
 * as references, from which allocation tracking takes a weak reference and
 * the current address, as for a newly allocated object. Tags are cleared
 * again, so the JVM keeps no tag table entries of ours.
 *
 * Not async-signal-safe: runs on the attach thread.
 */
#include "agent/census.h"

#include <stdio.h>
#include <string.h>

#include "agent/alloc.h"
#include "agent/jvm.h"
#include "common/clock.h"

enum { CENSUS_TAG = 0x77617370 /* "wasp" */, CLASS_CACHE = 64 };

typedef struct census_walk {
    jlong min_size;
    long tagged;
} census_walk;

static jint JNICALL tag_if_big(jlong class_tag, jlong size, jlong *tag_ptr, jint length,
                               void *user_data)
{
    (void)class_tag, (void)length;
    census_walk *w = user_data;
    if (size < w->min_size || size > WASP_ALLOC_MAX_SIZE)
        return JVMTI_VISIT_OBJECTS;
    *tag_ptr = CENSUS_TAG;
    return ++w->tagged < WASP_CENSUS_MAX_OBJECTS ? JVMTI_VISIT_OBJECTS : JVMTI_VISIT_ABORT;
}

/* Class names by class, so a heap of a million arrays of one type asks JVMTI
 * for the name once. */
typedef struct class_cache {
    jclass cls[CLASS_CACHE]; /* global references */
    char name[CLASS_CACHE][128];
    int n, next;
} class_cache;

static const char *class_name_of(JNIEnv *env, class_cache *c, jobject obj)
{
    static const char unknown[] = "?";
    jclass k = (*env)->GetObjectClass(env, obj);
    if (!k)
        return unknown;
    for (int i = 0; i < c->n; i++)
        if ((*env)->IsSameObject(env, c->cls[i], k)) {
            (*env)->DeleteLocalRef(env, k);
            return c->name[i];
        }
    int slot = c->n < CLASS_CACHE ? c->n++ : c->next++ % CLASS_CACHE;
    if (c->cls[slot])
        (*env)->DeleteGlobalRef(env, c->cls[slot]);
    c->cls[slot] = (*env)->NewGlobalRef(env, k);
    snprintf(c->name[slot], sizeof c->name[slot], "%s", unknown);
    wasp_jvm_class_name(k, c->name[slot], sizeof c->name[slot]);
    (*env)->DeleteLocalRef(env, k);
    return c->name[slot];
}

long wasp_census_run(jvmtiEnv *jvmti, JNIEnv *env, char *why, size_t len)
{
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_tag_objects = 1;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
        snprintf(why, len, "this JVM does not let agents tag objects");
        return -1;
    }
    long long t0 = wasp_mono_ms();
    census_walk walk = {.min_size = wasp_alloc_min_size() ? wasp_alloc_min_size() : 1};
    jvmtiHeapCallbacks cb;
    memset(&cb, 0, sizeof cb);
    cb.heap_iteration_callback = tag_if_big;
    jvmtiError e = (*jvmti)->IterateThroughHeap(jvmti, JVMTI_HEAP_FILTER_TAGGED, NULL, &cb, &walk);
    double walk_ms = (double)(wasp_mono_ms() - t0);

    jlong tag = CENSUS_TAG;
    jint count = 0;
    jobject *objs = NULL;
    if (e == JVMTI_ERROR_NONE &&
        (*jvmti)->GetObjectsWithTags(jvmti, 1, &tag, &count, &objs, NULL) != JVMTI_ERROR_NONE) {
        count = 0;
        objs = NULL;
    }
    class_cache classes;
    memset(&classes, 0, sizeof classes);
    long tracked = 0;
    for (jint i = 0; i < count; i++) {
        (*jvmti)->SetTag(jvmti, objs[i], 0);
        jlong size = 0;
        if ((*jvmti)->GetObjectSize(jvmti, objs[i], &size) == JVMTI_ERROR_NONE &&
            wasp_alloc_track_existing(env, objs[i], class_name_of(env, &classes, objs[i]),
                                      (uint32_t)size) == 0)
            tracked++;
        (*env)->DeleteLocalRef(env, objs[i]);
    }
    for (int i = 0; i < classes.n; i++)
        (*env)->DeleteGlobalRef(env, classes.cls[i]);
    if (objs)
        (*jvmti)->Deallocate(jvmti, (unsigned char *)objs);
    (*jvmti)->RelinquishCapabilities(jvmti, &caps);
    if (e != JVMTI_ERROR_NONE) {
        snprintf(why, len, "the heap walk failed (JVMTI error %d)", (int)e);
        return -1;
    }
    snprintf(why, len, "heap walked in %.0f ms%s", walk_ms,
             walk.tagged >= WASP_CENSUS_MAX_OBJECTS ? ", stopped at the object limit" : "");
    return tracked;
}
