/*
 * Page boundaries picked from the allocation stream (see byte_sampling.h).
 *
 * ASYNC-SIGNAL-SAFE: arithmetic only (log and exp are pure functions).
 */
#include "analysis/alloc/byte_sampling.h"

#include <math.h>

#include "watch/reservoir.h"

double wasp_alloc_page_chance(double gap)
{
    return -expm1(-(double)WASP_ALLOC_PAGE / gap);
}

uint64_t wasp_alloc_pages_to_next(double p, uint64_t *rng)
{
    if (p >= 1.0)
        return 1;
    /* Geometric: the first success of independent trials of chance p. */
    double u = ((double)(wasp_rng_next(rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
    double k = floor(log(u) / log1p(-p));
    return k < 1e15 ? (uint64_t)k + 1 : (uint64_t)1e15;
}

double wasp_alloc_weight(uint64_t size, double p)
{
    return (double)WASP_ALLOC_PAGE / ((double)size * p);
}

static double within_bounds(double gap)
{
    return gap < WASP_ALLOC_GAP_MIN ? WASP_ALLOC_GAP_MIN
         : gap > WASP_ALLOC_GAP_MAX ? WASP_ALLOC_GAP_MAX : gap;
}

double wasp_alloc_next_gap(double gap, uint32_t caught, double sample_ms, double *rate)
{
    /* Slowly: a creation weighs by the chance it was picked with, and
     * chances that swing make a few creations weigh much. */
    *rate = 0.9 * *rate + 0.1 * caught;
    double f = *rate / (WASP_ALLOC_CATCHES_PER_MS * sample_ms);
    gap *= f < 0.8 ? 0.8 : f > 1.25 ? 1.25 : f;
    return within_bounds(gap);
}

double wasp_alloc_gap_after_catch(double gap, uint32_t caught, double sample_ms)
{
    double allowed = WASP_ALLOC_BURST_CATCHES_PER_MS * sample_ms;
    return (double)caught > (allowed < 1 ? 1 : allowed) ? within_bounds(2 * gap) : gap;
}
