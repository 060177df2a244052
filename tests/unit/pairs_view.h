/*
 * The pair analyses' data of a profile (analysis/pairs/profile.h), as the
 * unit tests read it: the pairs array, their count, one analysis's totals.
 */
#ifndef WASP_TEST_PAIRS_VIEW_H
#define WASP_TEST_PAIRS_VIEW_H

#include "analysis/pairs/profile.h"

static inline uint32_t pair_count(const wasp_profile *p)
{
    uint32_t n;
    wasp_profile_pairs(p, &n);
    return n;
}

static inline const wasp_pair *pairs_of(const wasp_profile *p)
{
    uint32_t n;
    return wasp_profile_pairs(p, &n);
}

static inline wasp_totals totals_of(const wasp_profile *p, wasp_analysis a)
{
    return wasp_profile_totals(p, a);
}

#endif
