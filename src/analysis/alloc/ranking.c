/*
 * Ranking the alloc analysis's entries (see ranking.h).
 */
#include "analysis/alloc/ranking.h"

#include <stdlib.h>
#include <string.h>

#include "profile/part.h"
#include "profile/profile.h"

void wasp_alloc_ranking_free(wasp_alloc_ranking *r)
{
    free(r->classes);
    free(r->sites);
    memset(r, 0, sizeof *r);
}

int wasp_alloc_rank(const wasp_profile *p, wasp_alloc_ranking *r)
{
    memset(r, 0, sizeof *r);
    uint32_t n, ns = p->nstrings;
    const wasp_alloc_entry *e = wasp_profile_allocs(p, &n);
    wasp_ranked *sites = malloc((n ? n : 1) * sizeof *sites);
    wasp_alloc_class *by_string = calloc(ns ? ns : 1, sizeof *by_string);
    if (!sites || !by_string)
        goto fail;
    for (uint32_t i = 0; i < n; i++) {
        sites[i] = (wasp_ranked){{e[i].samples}, {e[i].cls, e[i].ctx}, i};
        r->samples += e[i].samples;
        if (e[i].cls < ns) {
            by_string[e[i].cls].samples += e[i].samples;
            by_string[e[i].cls].nsites++;
        }
    }
    r->sites = wasp_ranked_order(sites, n);
    sites = NULL; /* freed by wasp_ranked_order */
    if (!r->sites)
        goto fail;
    r->nsites = n;
    uint32_t k = 0;
    for (uint32_t s = 0; s < ns; s++)
        if (by_string[s].nsites)
            k++;
    wasp_ranked *classes = malloc((k ? k : 1) * sizeof *classes);
    r->classes = malloc((k ? k : 1) * sizeof *r->classes);
    if (!classes || !r->classes) {
        free(classes);
        goto fail;
    }
    k = 0;
    for (uint32_t s = 0; s < ns; s++)
        if (by_string[s].nsites)
            classes[k++] = (wasp_ranked){{by_string[s].samples}, {s}, s};
    uint32_t *order = wasp_ranked_order(classes, k);
    if (!order)
        goto fail;
    for (uint32_t i = 0; i < k; i++) {
        r->classes[i] = by_string[order[i]];
        r->classes[i].cls = order[i];
    }
    r->nclasses = k;
    free(order);
    free(by_string);
    return 0;
fail:
    free(sites);
    free(by_string);
    wasp_alloc_ranking_free(r);
    return -1;
}
