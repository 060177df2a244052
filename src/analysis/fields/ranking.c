/*
 * Ranking the fields analysis's entries (see ranking.h).
 */
#include "analysis/fields/ranking.h"

#include <stdlib.h>
#include <string.h>

#include "profile/part.h"
#include "profile/profile.h"

/* qsort has no context argument: the entries being sorted, and their profile. */
static const wasp_field_entry *sorting;
static const wasp_profile *sorting_profile;

static int by_member(const void *a, const void *b)
{
    const wasp_field_entry *x = &sorting[*(const uint32_t *)a], *y = &sorting[*(const uint32_t *)b];
    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    if (x->member != y->member)
        return x->member < y->member ? -1 : 1;
    /* a member's contexts: unwalked stacks last (profile.h) */
    bool wx = wasp_profile_context_walked(sorting_profile, x->ctx),
         wy = wasp_profile_context_walked(sorting_profile, y->ctx);
    if (wx != wy)
        return wx ? -1 : 1;
    double sx = x->loads + x->stores, sy = y->loads + y->stores;
    if (sx != sy)
        return sx > sy ? -1 : 1;
    return x->ctx < y->ctx ? -1 : x->ctx > y->ctx;
}

static int by_samples(const void *a, const void *b)
{
    const wasp_field_group *x = a, *y = b;
    double sx = x->loads + x->stores, sy = y->loads + y->stores;
    if (sx != sy)
        return sx > sy ? -1 : 1;
    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

void wasp_field_ranking_free(wasp_field_ranking *r)
{
    for (uint32_t i = 0; i < r->nmembers; i++)
        free(r->members[i].entries);
    free(r->members);
    free(r->classes);
    memset(r, 0, sizeof *r);
}

static void add(wasp_field_group *g, const wasp_field_entry *e)
{
    g->loads += e->loads;
    g->stores += e->stores;
    g->area[e->area < WASP_AREA_COUNT ? e->area : 0] += e->loads + e->stores;
}

int wasp_field_rank(const wasp_profile *p, wasp_field_ranking *r)
{
    memset(r, 0, sizeof *r);
    uint32_t n;
    const wasp_field_entry *e = wasp_profile_fields(p, &n);
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    r->members = calloc(n ? n : 1, sizeof *r->members);
    r->classes = calloc(n ? n : 1, sizeof *r->classes);
    if (!idx || !r->members || !r->classes) {
        free(idx);
        wasp_field_ranking_free(r);
        return -1;
    }
    const uint32_t empty = 0; /* strings[0] is "" */
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        double s = e[i].loads + e[i].stores;
        r->area[e[i].area < WASP_AREA_COUNT ? e[i].area : 0] += s;
        if (wasp_heap_area_in_heap((wasp_heap_area)e[i].area)) {
            r->heap += s;
            if (e[i].cls != empty)
                r->named += s;
        }
        if (e[i].cls != empty)
            idx[k++] = i;
    }
    sorting = e;
    sorting_profile = p;
    qsort(idx, k, sizeof *idx, by_member);
    for (uint32_t i = 0; i < k;) {
        uint32_t j = i;
        while (j < k && e[idx[j]].cls == e[idx[i]].cls && e[idx[j]].offset == e[idx[i]].offset &&
               e[idx[j]].member == e[idx[i]].member)
            j++;
        wasp_field_group *g = &r->members[r->nmembers++];
        g->cls = e[idx[i]].cls;
        g->member = e[idx[i]].member;
        g->offset = e[idx[i]].offset;
        g->entries = malloc((j - i) * sizeof *g->entries);
        if (!g->entries) {
            free(idx);
            wasp_field_ranking_free(r);
            return -1;
        }
        /* Entries of one member are sorted by samples already (by_member). */
        for (uint32_t x = i; x < j; x++) {
            add(g, &e[idx[x]]);
            g->entries[g->nentries++] = idx[x];
        }
        /* The class's group: members of one class are adjacent. */
        if (!r->nclasses || r->classes[r->nclasses - 1].cls != g->cls)
            r->classes[r->nclasses++].cls = g->cls;
        for (uint32_t x = i; x < j; x++)
            add(&r->classes[r->nclasses - 1], &e[idx[x]]);
        i = j;
    }
    free(idx);
    qsort(r->members, r->nmembers, sizeof *r->members, by_samples);
    qsort(r->classes, r->nclasses, sizeof *r->classes, by_samples);
    return 0;
}
