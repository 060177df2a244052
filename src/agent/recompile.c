/*
 * See recompile.h.
 */
#include "agent/recompile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/code_map_load.h"
#include "common/batch_split.h"
#include "common/clock.h"

/* Coarse methods looked at: a large service has a few tens of thousands
 * compiled; past this the rest keeps coarse lines. */
enum { MAX_METHODS = 65536 };
/* RetransformClasses calls at most, each a safepoint: one failing class in
 * 500 costs about 18 (batch_split.h). */
enum { MAX_CALLS = 64 };

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

/* Errors of one class, which halving the batch can leave out: what another
 * agent's transformer (an APM agent's, say) may make of it at a
 * retransformation, or a class that cannot be retransformed after all.
 * Any other (a capability, the phase, memory) is every class's. */
static int class_error(int e)
{
    switch (e) {
    case JVMTI_ERROR_INVALID_CLASS:
    case JVMTI_ERROR_UNMODIFIABLE_CLASS:
    case JVMTI_ERROR_UNSUPPORTED_VERSION:
    case JVMTI_ERROR_INVALID_CLASS_FORMAT:
    case JVMTI_ERROR_CIRCULAR_CLASS_DEFINITION:
    case JVMTI_ERROR_FAILS_VERIFICATION:
    case JVMTI_ERROR_NAMES_DONT_MATCH:
    case JVMTI_ERROR_UNSUPPORTED_REDEFINITION_METHOD_ADDED:
    case JVMTI_ERROR_UNSUPPORTED_REDEFINITION_SCHEMA_CHANGED:
    case JVMTI_ERROR_UNSUPPORTED_REDEFINITION_HIERARCHY_CHANGED:
    case JVMTI_ERROR_UNSUPPORTED_REDEFINITION_METHOD_DELETED:
    case JVMTI_ERROR_UNSUPPORTED_REDEFINITION_CLASS_MODIFIERS_CHANGED:
    case JVMTI_ERROR_UNSUPPORTED_REDEFINITION_METHOD_MODIFIERS_CHANGED:
    case JVMTI_ERROR_UNSUPPORTED_REDEFINITION_CLASS_ATTRIBUTE_CHANGED:
        return 1;
    default:
        return 0;
    }
}

static int retransform(void *jvmti, void *classes, size_t n)
{
    jvmtiEnv *j = jvmti;
    return (int)(*j)->RetransformClasses(j, (jint)n, (const jclass *)classes);
}

/* The outcome of retransforming m classes of n methods into how. */
static int say_retransformed(const wasp_batch_result *r, jint m, uint32_t n, long long ms,
                             char *how, size_t len)
{
    if (r->done == 0) {
        snprintf(how, len, "retransforming %d classes failed (JVMTI error %d%s)", (int)m,
                 r->first_error, r->calls > 1 ? ", for each part tried alone too" : "");
        return -1;
    }
    int k = snprintf(how, len, "%zu classes of %u compiled methods retransformed, unchanged, "
                     "in %lld ms (the JVM stops at a safepoint for part of it)",
                     r->done, (unsigned)n, ms);
    if (r->left_out && k > 0 && (size_t)k < len)
        snprintf(how + k, len - (size_t)k, "; %zu left out, their methods still coarse: JVMTI "
                 "error %d%s", r->left_out, r->first_error,
                 r->stopped ? " (stopped halving the batch to find them)"
                            : " on each alone, as another agent's transformer may give");
    return 0;
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
        else {
            /* One class failing fails the whole call: halved to leave it out. */
            wasp_batch_result r = wasp_batch_split(classes, (size_t)m, sizeof *classes, MAX_CALLS,
                                                   retransform, class_error, jvmti);
            rc = say_retransformed(&r, m, n, wasp_mono_ms() - t0, how, len);
        }
        /* Held only for the call: kept, it would make the JIT record every
         * dependency for the rest of the session. */
        (*jvmti)->RelinquishCapabilities(jvmti, &caps);
        (*env)->PopLocalFrame(env, NULL);
    }
    free(methods), free(all), free(classes);
    return rc;
}
