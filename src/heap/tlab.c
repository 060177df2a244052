/*
 * The TLAB layout (see tlab.h), filled by the agent, and the handler's read.
 *
 * ASYNC-SIGNAL-SAFE: plain reads of the calling thread's own JavaThread.
 */
#include "heap/tlab.h"

wasp_tlab_layout wasp_tlab;

int wasp_tlab_room(void *jni_env, uint64_t *top, uint64_t *end)
{
    if (!jni_env || !__atomic_load_n(&wasp_tlab.ready, __ATOMIC_ACQUIRE))
        return 0;
    const char *env = jni_env;
    *top = *(const volatile uint64_t *)(env + wasp_tlab.top_from_env);
    *end = *(const volatile uint64_t *)(env + wasp_tlab.end_from_env);
    return *top != 0 && *end > *top;
}

uint64_t wasp_tlab_start(void *jni_env)
{
    if (!jni_env || !__atomic_load_n(&wasp_tlab.ready, __ATOMIC_ACQUIRE))
        return 0;
    return *(const volatile uint64_t *)((const char *)jni_env + wasp_tlab.start_from_env);
}

int wasp_tlab_counts(void *jni_env, uint32_t *refills, uint64_t *desired, uint64_t *retired)
{
    if (!jni_env || !__atomic_load_n(&wasp_tlab.ready, __ATOMIC_ACQUIRE) || !wasp_tlab.has_counts)
        return 0;
    const char *env = jni_env;
    *refills = *(const volatile uint32_t *)(env + wasp_tlab.refills_from_env);
    *desired = 8 * *(const volatile uint64_t *)(env + wasp_tlab.desired_from_env);
    if (wasp_tlab.max_bytes && *desired > wasp_tlab.max_bytes)
        *desired = wasp_tlab.max_bytes;
    *retired = *(const volatile uint64_t *)(env + wasp_tlab.allocated_from_env);
    return 1;
}
