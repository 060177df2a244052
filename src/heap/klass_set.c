/*
 * The set of sampled classes (see klass_set.h).
 *
 * ASYNC-SIGNAL-SAFE: wasp_klass_set_add and _has use atomics only.
 */
#include "heap/klass_set.h"

#include <string.h>

static uint64_t slots[WASP_KLASS_SET_SLOTS];

static uint32_t home(uint64_t k)
{
    k ^= k >> 29;
    k *= 0xbf58476d1ce4e5b9ull;
    return (uint32_t)(k >> 40) & (WASP_KLASS_SET_SLOTS - 1);
}

int wasp_klass_set_add(uint64_t klass)
{
    return wasp_klass_set_slot(klass) >= 0;
}

uint64_t wasp_klass_set_at(uint32_t slot)
{
    return slot < WASP_KLASS_SET_SLOTS ? __atomic_load_n(&slots[slot], __ATOMIC_RELAXED) : 0;
}

int32_t wasp_klass_set_slot(uint64_t klass)
{
    if (!klass)
        return -1;
    uint32_t h = home(klass);
    for (uint32_t i = 0; i < 64; i++) {
        uint32_t at = (h + i) & (WASP_KLASS_SET_SLOTS - 1);
        uint64_t cur = __atomic_load_n(&slots[at], __ATOMIC_RELAXED);
        if (cur == klass)
            return (int32_t)at;
        if (!cur) {
            uint64_t expected = 0;
            if (__atomic_compare_exchange_n(&slots[at], &expected, klass, 0, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED) ||
                expected == klass)
                return (int32_t)at;
        }
    }
    return -1;
}

int wasp_klass_set_has(uint64_t klass)
{
    if (!klass)
        return 0;
    uint32_t h = home(klass);
    for (uint32_t i = 0; i < 64; i++) {
        uint64_t cur = __atomic_load_n(&slots[(h + i) & (WASP_KLASS_SET_SLOTS - 1)], __ATOMIC_RELAXED);
        if (cur == klass)
            return 1;
        if (!cur)
            return 0;
    }
    return 0;
}

void wasp_klass_set_clear(void)
{
    memset(slots, 0, sizeof slots);
}
