/* The JXPerf Sec. 4 fractions and the ranking of pairs for the reports. */
#include "analysis/pairs/profile.h"
#include "profile/part.h"

#include <stdlib.h>

double wasp_fraction_prog(const wasp_profile *p, wasp_analysis a)
{
    wasp_totals t = wasp_profile_totals(p, a);
    if (!(t.bytes > 0))
        return 0;
    /* Sums of weighted bytes can round a hair past their total. */
    double f = (t.wasted + t.wasted_approx) / t.bytes;
    return f < 1.0 ? f : 1.0;
}

double wasp_fraction_pair(const wasp_profile *p, const wasp_pair *pair)
{
    double total = wasp_profile_totals(p, (wasp_analysis)pair->analysis).bytes;
    return total > 0 ? pair->bytes / total : 0;
}

/* Ranked by bytes, then watch, trap and flags. Returns a non-NULL array even
 * when there are no pairs, so that NULL only ever means "out of memory". */
uint32_t *wasp_profile_sorted_pairs(const wasp_profile *p, wasp_analysis a, uint32_t *n)
{
    *n = 0;
    uint32_t all, k = 0;
    const wasp_pair *q = wasp_profile_pairs(p, &all);
    for (uint32_t i = 0; i < all; i++)
        k += q[i].analysis == (uint32_t)a;
    wasp_ranked *r = malloc((k ? k : 1) * sizeof *r);
    if (!r)
        return NULL;
    k = 0;
    for (uint32_t i = 0; i < all; i++)
        if (q[i].analysis == (uint32_t)a) {
            /* pairs with an unwalked side last (profile.h) */
            double walked = wasp_profile_context_walked(p, q[i].watch_ctx) &&
                            wasp_profile_context_walked(p, q[i].trap_ctx);
            r[k++] = (wasp_ranked){{walked, q[i].bytes}, {q[i].watch_ctx, q[i].trap_ctx, q[i].flags},
                                   i};
        }
    uint32_t *out = wasp_ranked_order(r, k);
    if (out)
        *n = k;
    return out;
}
