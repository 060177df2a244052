/*
 * See recompile.h.
 */
#include "agent/recompile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/code_map_load.h"
#include "common/clock.h"

/* Coarse methods looked at: a large service has a few tens of thousands
 * compiled; past this the rest keeps coarse lines. */
enum { MAX_METHODS = 65536 };

typedef struct held {
    jclass cls;
    jint hash;
} held;

static int by_hash(const void *a, const void *b)
{
    jint x = ((const held *)a)->hash, y = ((const held *)b)->hash;
    return x < y ? -1 : x > y;
}

/* The distinct modifiable classes of methods[0..n) into out (local
 * references): their number. */
static jint classes_of(jvmtiEnv *jvmti, JNIEnv *env, const jmethodID *methods, uint32_t n,
                       held *all, jclass *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        jclass c = NULL;
        jboolean modifiable = JNI_FALSE;
        if ((*jvmti)->GetMethodDeclaringClass(jvmti, methods[i], &c) != JVMTI_ERROR_NONE || !c)
            continue; /* unloaded since */
        if ((*jvmti)->IsModifiableClass(jvmti, c, &modifiable) != JVMTI_ERROR_NONE ||
            !modifiable || (*jvmti)->GetObjectHashCode(jvmti, c, &all[k].hash) != JVMTI_ERROR_NONE)
            continue;
        all[k++].cls = c;
    }
    qsort(all, k, sizeof *all, by_hash);
    jint m = 0;
    for (uint32_t i = 0; i < k; i++) {
        bool seen = false;
        for (uint32_t j = i; j-- > 0 && all[j].hash == all[i].hash && !seen;)
            seen = (*env)->IsSameObject(env, all[j].cls, all[i].cls);
        if (!seen)
            out[m++] = all[i].cls;
    }
    return m;
}

int wasp_recompile_all(jvmtiEnv *jvmti, JNIEnv *env, char *how, size_t len)
{
    jmethodID *methods = malloc(MAX_METHODS * sizeof *methods);
    uint32_t n = methods ? wasp_code_map_coarse_methods(methods, MAX_METHODS) : 0;
    held *all = malloc((n ? n : 1) * sizeof *all);
    jclass *classes = malloc((n ? n : 1) * sizeof *classes);
    if (!methods || !all || !classes) {
        snprintf(how, len, "out of memory");
        free(methods), free(all), free(classes);
        return -1;
    }
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof caps);
    caps.can_retransform_classes = 1;
    jvmtiError e = JVMTI_ERROR_NONE;
    int rc = -1;
    if (n == 0) {
        snprintf(how, len, "no code compiled before the attach is known");
    } else if ((*env)->PushLocalFrame(env, (jint)n + 16) != 0) {
        (*env)->ExceptionClear(env);
        snprintf(how, len, "no room for %u class references", (unsigned)n);
    } else {
        jint m = classes_of(jvmti, env, methods, n, all, classes);
        long long t0 = wasp_mono_ms();
        if ((e = (*jvmti)->AddCapabilities(jvmti, &caps)) != JVMTI_ERROR_NONE)
            snprintf(how, len, "this JVM does not let agents retransform classes (JVMTI error "
                     "%d)", (int)e);
        else if (m == 0)
            snprintf(how, len, "none of the %u methods' classes can be retransformed",
                     (unsigned)n);
        else if ((e = (*jvmti)->RetransformClasses(jvmti, m, classes)) != JVMTI_ERROR_NONE)
            snprintf(how, len, "retransforming %d classes failed (JVMTI error %d)", (int)m,
                     (int)e);
        else {
            snprintf(how, len, "%d classes of %u compiled methods retransformed, unchanged, in "
                     "%lld ms (the JVM stops at a safepoint for part of it)", (int)m, (unsigned)n,
                     wasp_mono_ms() - t0);
            rc = 0;
        }
        /* Held only for the call: kept, it would make the JIT record every
         * dependency for the rest of the session. */
        (*jvmti)->RelinquishCapabilities(jvmti, &caps);
        (*env)->PopLocalFrame(env, NULL);
    }
    free(methods), free(all), free(classes);
    return rc;
}
