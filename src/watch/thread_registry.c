/*
 * The registry of profiled threads (see thread_registry.h).
 *
 * ASYNC-SIGNAL-SAFE: wasp_thread_at and wasp_registry_count run in the
 * signal handlers; they are atomic loads. Reserving and releasing take a
 * mutex: only the agent's threads code calls them, never a handler.
 */
#include "watch/thread_registry.h"

#include <pthread.h>

static wasp_thread *threads[WASP_MAX_THREADS];
static uint32_t nthreads;

/* Released indexes, oldest first: a ring of WASP_REGISTRY_FREE_RING. */
static pthread_mutex_t free_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t freed[WASP_REGISTRY_FREE_RING];
static uint32_t free_head, free_count;

uint32_t wasp_registry_reserve(void)
{
    pthread_mutex_lock(&free_lock);
    if (free_count > WASP_REGISTRY_REUSE_AFTER) {
        uint32_t index = freed[free_head];
        free_head = (free_head + 1) % WASP_REGISTRY_FREE_RING;
        free_count--;
        pthread_mutex_unlock(&free_lock);
        return index;
    }
    pthread_mutex_unlock(&free_lock);
    return __atomic_fetch_add(&nthreads, 1, __ATOMIC_ACQ_REL);
}

void wasp_registry_release(uint32_t index)
{
    pthread_mutex_lock(&free_lock);
    if (index < WASP_MAX_THREADS && free_count < WASP_REGISTRY_FREE_RING) {
        freed[(free_head + free_count) % WASP_REGISTRY_FREE_RING] = index;
        free_count++;
    } /* else the index is never handed out again: a ring that full means
         tens of thousands of threads ended in a row, not one index lost */
    pthread_mutex_unlock(&free_lock);
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
