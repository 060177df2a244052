/*
 * The GC epoch and the sampling flag (see run_state.h).
 *
 * ASYNC-SIGNAL-SAFE: atomic loads and stores only.
 */
#include "watch/run_state.h"

static uint32_t epoch;
static int sampling;

uint32_t wasp_gc_epoch(void)
{
    return __atomic_load_n(&epoch, __ATOMIC_ACQUIRE);
}

void wasp_gc_epoch_bump(void)
{
    __atomic_add_fetch(&epoch, 1, __ATOMIC_RELEASE);
}

bool wasp_sampling(void)
{
    return __atomic_load_n(&sampling, __ATOMIC_ACQUIRE) != 0;
}

void wasp_sampling_set(bool on)
{
    __atomic_store_n(&sampling, on ? 1 : 0, __ATOMIC_RELEASE);
}
