/* The JXPerf Sec. 4 fractions and the ranking of pairs for the reports. */
#include "profile/internal.h"

#include <math.h>
#include <stdlib.h>

double wasp_fraction_prog(const wasp_profile *p, wasp_analysis a)
{
    if ((unsigned)a >= WASP_AN_COUNT)
        return 0;
    const wasp_totals *t = &p->totals[a];
    if (!(t->bytes > 0))
        return 0;
    return (t->wasted + t->wasted_approx) / t->bytes;
}

double wasp_fraction_pair(const wasp_profile *p, const wasp_pair *pair)
{
    if (pair->analysis >= WASP_AN_COUNT)
        return 0;
    double total = p->totals[pair->analysis].bytes;
    return total > 0 ? pair->bytes / total : 0;
}

/* A copy of the sort keys, so qsort needs no access to the profile. */
struct rank {
    double bytes;
    uint32_t watch, trap, flags, index;
};

static int rank_cmp(const void *x, const void *y)
{
    const struct rank *a = x, *b = y;
    int c = wasp_cmp_desc(a->bytes, b->bytes);
    if (!c)
        c = wasp_cmp_u32(a->watch, b->watch);
    if (!c)
        c = wasp_cmp_u32(a->trap, b->trap);
    if (!c)
        c = wasp_cmp_u32(a->flags, b->flags);
    return c ? c : wasp_cmp_u32(a->index, b->index);
}

/* Returns a non-NULL array even when there are no pairs (malloc of one
 * element), so that NULL only ever means "out of memory". */
uint32_t *wasp_profile_sorted_pairs(const wasp_profile *p, wasp_analysis a, uint32_t *n)
{
    *n = 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < p->npairs; i++)
        k += p->pairs[i].analysis == (uint32_t)a;
    struct rank *r = malloc((k ? k : 1) * sizeof *r);
    uint32_t *out = malloc((k ? k : 1) * sizeof *out);
    if (!r || !out) {
        free(r);
        free(out);
        return NULL;
    }
    k = 0;
    for (uint32_t i = 0; i < p->npairs; i++) {
        const wasp_pair *q = &p->pairs[i];
        if (q->analysis == (uint32_t)a)
            r[k++] = (struct rank){q->bytes, q->watch_ctx, q->trap_ctx, q->flags, i};
    }
    qsort(r, k, sizeof *r, rank_cmp);
    for (uint32_t i = 0; i < k; i++)
        out[i] = r[i].index;
    free(r);
    *n = k;
    return out;
}
