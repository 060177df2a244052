/*
 * Allocation sites, keyed by (allocation context, class): shared by the
 * analyses of objects (objects, replicas, and those to come), like contexts.
 * Interning goes through a hash index like the rest of the model.
 */
#include "profile/hindex.h"
#include "profile/internal.h"

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
        wasp_grow(&p->sites, &p->cap_sites, p->nsites + 1, sizeof *p->sites) != 0)
        return WASP_NOID;
    id = p->nsites;
    if (wasp_hindex_add(p->site_index, h, id) != 0)
        return WASP_NOID;
    p->sites[p->nsites++] = (wasp_site){.ctx = ctx, .class_name = class_name};
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
