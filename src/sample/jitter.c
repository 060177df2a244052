/*
 * Randomised sampling intervals (jitter.h).
 *
 * ASYNC-SIGNAL-SAFE: wasp_jitter_next runs in the SIGTRAP handler (integer
 * arithmetic on the caller's state, nothing shared).
 */
#include "sample/jitter.h"

/* splitmix64's finaliser: spreads nearby seeds (consecutive tids) apart. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t wasp_jitter_seed(uint64_t a, uint64_t b)
{
    uint64_t s = mix(a + 0x9e3779b97f4a7c15ull) ^ mix(b);
    return s ? s : 0x9e3779b97f4a7c15ull; /* xorshift's state must not be 0 */
}

uint64_t wasp_jitter_next(uint64_t *state, uint64_t mean, uint32_t spread)
{
    if (!spread || !mean)
        return mean;
    if (spread >= WASP_JITTER_ONE)
        spread = WASP_JITTER_ONE - 1;
    uint64_t x = *state ? *state : 1;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    uint64_t r = x * 0x2545f4914f6cdd1dull; /* xorshift64*: the high bits are the good ones */
    uint64_t w = (uint64_t)(((unsigned __int128)mean * spread) >> 16); /* < mean */
    /* mean - w + an offset uniform over the 2w + 1 values 0..2w: mean w, so
     * the interval's mean is exactly mean. */
    uint64_t offset = (uint64_t)(((unsigned __int128)r * (2 * w + 1)) >> 64);
    return mean - w + offset;
}

uint32_t wasp_jitter_fixed(double spread)
{
    if (!(spread > 0))
        return 0;
    if (spread >= 1)
        return WASP_JITTER_ONE - 1;
    return (uint32_t)(spread * WASP_JITTER_ONE + 0.5);
}
