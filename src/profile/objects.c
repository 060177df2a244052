/*
 * Object-centric data (DJXPerf): allocation sites, keyed by (allocation
 * context, class), and the accesses to their objects, keyed by (site,
 * accessing context). Interning goes through hash indices like the rest of
 * the model; each site also chains its accesses (site_head / access_next) so
 * that listing one site's accesses does not scan them all.
 */
#include "profile/hindex.h"
#include "profile/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Grows arr (elements of el bytes) and its parallel array par (pel bytes) to
 * the same capacity. On failure *cap is unchanged (either array may already
 * be larger than it says, which is harmless). */
static int grow2(void *arr, size_t el, void *par, size_t pel, uint32_t *cap, uint32_t need)
{
    uint32_t c1 = *cap, c2 = *cap;
    if (wasp_grow(arr, &c1, need, el) != 0 || wasp_grow(par, &c2, need, pel) != 0)
        return -1;
    *cap = c1 < c2 ? c1 : c2;
    return 0;
}

/* ---- sites ---- */

struct site_key {
    const wasp_profile *p;
    uint32_t ctx, cls;
};

static bool site_eq(const void *ctx, uint32_t id)
{
    const struct site_key *k = ctx;
    const wasp_site *s = &k->p->sites[id];
    return s->ctx == k->ctx && s->class_name == k->cls;
}

uint32_t wasp_profile_intern_site(wasp_profile *p, uint32_t ctx, uint32_t class_name)
{
    if (ctx >= p->ncontexts || class_name >= p->nstrings)
        return WASP_NOID;
    uint32_t h = wasp_fnv1a_u32(wasp_fnv1a_u32(WASP_FNV_INIT, ctx), class_name);
    struct site_key k = {p, ctx, class_name};
    uint32_t id = wasp_hindex_find(p->site_index, h, site_eq, &k);
    if (id != WASP_HINDEX_NONE)
        return id;
    if (p->nsites == WASP_NOID - 1 ||
        grow2(&p->sites, sizeof *p->sites, &p->site_head, sizeof *p->site_head, &p->cap_sites,
              p->nsites + 1) != 0)
        return WASP_NOID;
    id = p->nsites;
    if (wasp_hindex_add(p->site_index, h, id) != 0)
        return WASP_NOID;
    p->sites[id] = (wasp_site){.ctx = ctx, .class_name = class_name};
    p->site_head[id] = WASP_NOID;
    p->nsites++;
    return id;
}

int wasp_profile_add_site_allocs_checked(wasp_profile *p, uint32_t site, double allocations,
                                         double bytes)
{
    if (site >= p->nsites)
        return -1;
    p->sites[site].allocations += allocations;
    p->sites[site].bytes += bytes;
    return 0;
}

void wasp_profile_add_site_allocs(wasp_profile *p, uint32_t site, double allocations, double bytes)
{
    (void)wasp_profile_add_site_allocs_checked(p, site, allocations, bytes);
}

/* ---- accesses ---- */

struct access_key {
    const wasp_profile *p;
    uint32_t site, ctx;
};

static bool access_eq(const void *ctx, uint32_t id)
{
    const struct access_key *k = ctx;
    const wasp_site_access *a = &k->p->accesses[id];
    return a->site == k->site && a->access_ctx == k->ctx;
}

int wasp_profile_add_site_access_checked(wasp_profile *p, uint32_t site, uint32_t access_ctx,
                                         double samples, double remote)
{
    if (site >= p->nsites || access_ctx >= p->ncontexts)
        return -1;
    uint32_t h = wasp_fnv1a_u32(wasp_fnv1a_u32(WASP_FNV_INIT, site), access_ctx);
    struct access_key k = {p, site, access_ctx};
    uint32_t id = wasp_hindex_find(p->access_index, h, access_eq, &k);
    if (id == WASP_HINDEX_NONE) {
        if (p->naccesses == WASP_NOID - 1 ||
            grow2(&p->accesses, sizeof *p->accesses, &p->access_next, sizeof *p->access_next,
                  &p->cap_accesses, p->naccesses + 1) != 0)
            return -1;
        id = p->naccesses;
        if (wasp_hindex_add(p->access_index, h, id) != 0)
            return -1;
        p->accesses[id] = (wasp_site_access){.site = site, .access_ctx = access_ctx};
        p->access_next[id] = p->site_head[site];
        p->site_head[site] = id;
        p->naccesses++;
    }
    p->accesses[id].samples += samples;
    p->accesses[id].remote += remote;
    return 0;
}

void wasp_profile_add_site_access(wasp_profile *p, uint32_t site, uint32_t access_ctx,
                                  double samples, double remote)
{
    (void)wasp_profile_add_site_access_checked(p, site, access_ctx, samples, remote);
}

double wasp_profile_site_samples(const wasp_profile *p, uint32_t site, double *remote)
{
    double s = 0, r = 0;
    if (site < p->nsites)
        for (uint32_t a = p->site_head[site]; a != WASP_NOID; a = p->access_next[a]) {
            s += p->accesses[a].samples;
            r += p->accesses[a].remote;
        }
    if (remote)
        *remote = r;
    return s;
}

/* ---- ranking ---- */

struct site_rank {
    double samples, bytes, allocations;
    uint32_t ctx, cls, index;
};

static int site_rank_cmp(const void *x, const void *y)
{
    const struct site_rank *a = x, *b = y;
    int c = wasp_cmp_desc(a->samples, b->samples);
    if (!c)
        c = wasp_cmp_desc(a->bytes, b->bytes);
    if (!c)
        c = wasp_cmp_desc(a->allocations, b->allocations);
    if (!c)
        c = wasp_cmp_u32(a->ctx, b->ctx);
    if (!c)
        c = wasp_cmp_u32(a->cls, b->cls);
    return c ? c : wasp_cmp_u32(a->index, b->index);
}

uint32_t *wasp_profile_sorted_sites(const wasp_profile *p, uint32_t *n)
{
    *n = 0;
    uint32_t k = p->nsites;
    struct site_rank *r = malloc((k ? k : 1) * sizeof *r);
    uint32_t *out = malloc((k ? k : 1) * sizeof *out);
    if (!r || !out) {
        free(r);
        free(out);
        return NULL;
    }
    for (uint32_t i = 0; i < k; i++) {
        const wasp_site *s = &p->sites[i];
        r[i] = (struct site_rank){0, s->bytes, s->allocations, s->ctx, s->class_name, i};
    }
    for (uint32_t i = 0; i < p->naccesses; i++)
        if (p->accesses[i].site < k)
            r[p->accesses[i].site].samples += p->accesses[i].samples;
    qsort(r, k, sizeof *r, site_rank_cmp);
    for (uint32_t i = 0; i < k; i++)
        out[i] = r[i].index;
    free(r);
    *n = k;
    return out;
}

uint32_t *wasp_profile_sorted_site_accesses(const wasp_profile *p, uint32_t site, uint32_t *n)
{
    *n = 0;
    uint32_t k = 0;
    if (site < p->nsites)
        for (uint32_t a = p->site_head[site]; a != WASP_NOID; a = p->access_next[a])
            k++;
    wasp_ranked *r = malloc((k ? k : 1) * sizeof *r);
    if (!r)
        return NULL;
    k = 0;
    if (site < p->nsites)
        for (uint32_t a = p->site_head[site]; a != WASP_NOID; a = p->access_next[a])
            r[k++] = (wasp_ranked){p->accesses[a].samples, p->accesses[a].access_ctx, a};
    uint32_t *out = wasp_ranked_order(r, k);
    if (out)
        *n = k;
    return out;
}

/* ---- does the report show objects? ---- */

bool wasp_profile_has_objects(const wasp_profile *p)
{
    if (p->nsites || p->naccesses ||
        wasp_events_name(wasp_profile_get_meta(p, "events"), "objects"))
        return true;
    for (uint32_t i = 0; i < p->ncounters; i++)
        if (strcmp(p->counters[i].name, "objects.samples") == 0)
            return true;
    return false;
}

bool wasp_profile_objects_single_node(const wasp_profile *p)
{
    const char *nodes = wasp_profile_get_meta(p, "numa_nodes");
    if (!nodes || strcmp(nodes, "1") != 0)
        return false;
    for (uint32_t i = 0; i < p->naccesses; i++)
        if (p->accesses[i].remote != 0)
            return false;
    return true;
}
