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

uint64_t wasp_tlab_refill_field(void *jni_env)
{
    if (!jni_env || !__atomic_load_n(&wasp_tlab.ready, __ATOMIC_ACQUIRE))
        return 0;
    return (uint64_t)(uintptr_t)jni_env + (uint64_t)wasp_tlab.refill_from_env;
}
