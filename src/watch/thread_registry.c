/*
 * The registry of profiled threads (see thread_registry.h).
 *
 * ASYNC-SIGNAL-SAFE: wasp_thread_at and wasp_registry_count run in the
 * signal handlers; they are atomic loads.
 */
#include "watch/thread_registry.h"

static wasp_thread *threads[WASP_MAX_THREADS];
static uint32_t nthreads;

uint32_t wasp_registry_reserve(void)
{
    return __atomic_fetch_add(&nthreads, 1, __ATOMIC_ACQ_REL);
}

void wasp_registry_publish(uint32_t index, wasp_thread *t)
{
    __atomic_store_n(&threads[index], t, __ATOMIC_RELEASE);
}

void wasp_registry_remove(uint32_t index)
{
    __atomic_store_n(&threads[index], NULL, __ATOMIC_RELEASE);
}

wasp_thread *wasp_thread_at(uint32_t index)
{
    return index < WASP_MAX_THREADS ? __atomic_load_n(&threads[index], __ATOMIC_ACQUIRE) : NULL;
}

uint32_t wasp_registry_count(void)
{
    uint32_t n = __atomic_load_n(&nthreads, __ATOMIC_ACQUIRE);
    return n < WASP_MAX_THREADS ? n : WASP_MAX_THREADS;
}
