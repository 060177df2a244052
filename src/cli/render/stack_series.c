/*
 * The flame-graph formats' series (stack_series.h).
 */
#include "cli/render/stack_series.h"

#include <math.h>
#include <string.h>

wasp_series *wasp_series_of(wasp_series_set *set, const wasp_stack *st)
{
    for (size_t i = 0; i < set->n; i++)
        if (strcmp(set->s[i].analysis, st->analysis) == 0 &&
            strcmp(set->s[i].side, st->side) == 0)
            return &set->s[i];
    if (set->n == WASP_SERIES_MAX)
        return NULL;
    wasp_series *r = &set->s[set->n++];
    *r = (wasp_series){st->analysis, st->side, st->by_bytes, 0, {0, 0}, {0, 0}};
    return r;
}

long long wasp_series_part(wasp_series *r, int k, double v)
{
    r->sum[k] += v;
    /* Measures are finite and not negative (the reader checks), but may be
     * beyond what a long long holds: the running total stops there. */
    long long total = r->sum[k] < 9e18 ? llround(r->sum[k]) : 9000000000000000000LL;
    long long part = total - r->printed[k];
    r->printed[k] = total;
    return part;
}
