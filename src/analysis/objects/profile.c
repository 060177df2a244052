/*
 * The objects analysis's part in the profile (DJXPerf): the accesses to the
 * objects of each allocation site, keyed by (site, accessing context) in a
 * site record table (profile/site_records.h). Each site also chains its
 * accesses (head / next) so that listing one site's accesses does not scan
 * them all. Beside them, keyed records (profile/keyed_records.h) of where
 * untracked objects' classes are allocated (section SUNT).
 */
#include "analysis/objects/profile.h"
#include "catalog/ids.h"
#include "profile/keyed_records.h"
#include "profile/site_records.h"

#include <stdlib.h>
#include <string.h>

WASP_SITE_RECORD_LAYOUT(wasp_site_access, site, access_ctx, samples, remote);

enum {
    SEC_ACCESSES = WASP_TAG('S', 'A', 'C', 'C'),
    SEC_UNTRACKED = WASP_TAG('S', 'U', 'N', 'T'),
    ROLE_ACCESS = WASP_OBJECTS_ROLE_ACCESS
};

typedef struct objects_data {
    wasp_site_records accesses;
    wasp_keyed_table untracked; /* wasp_untracked_alloc records */
    uint32_t *head;  /* site -> its newest access, WASP_NOID when none */
    uint32_t nheads, cap_heads;
    uint32_t *next;  /* access -> the previous access of its site, WASP_NOID at the end */
    uint32_t cap_next;
} objects_data;

WASP_KEYED_LAYOUT(wasp_untracked_alloc, 3, allocations, 2);

static const wasp_keyed_layout untracked_layout = {
    .id = WASP_ID_objects,
    .tag = SEC_UNTRACKED,
    .what = "untracked allocation",
    .nkeys = 3,
    .nsums = 2,
    .key = {WASP_KEY_ROLE, WASP_KEY_STRING, WASP_KEY_CONTEXT},
    .limit = {WASP_OBJECTS_ROLE_ALLOC + 1},
    .size = sizeof(wasp_untracked_alloc),
    .sums_offset = offsetof(wasp_untracked_alloc, allocations),
    .weight_sums = 1, /* by allocations */
    .data_size = sizeof(objects_data),
    .table_offset = offsetof(objects_data, untracked),
};

const wasp_untracked_alloc *wasp_profile_untracked_allocs(const wasp_profile *p, uint32_t *n)
{
    return wasp_keyed_all(p, &untracked_layout, n);
}

int wasp_profile_add_untracked_alloc(wasp_profile *p, uint32_t cls, uint32_t ctx,
                                     double allocations, double bytes)
{
    wasp_untracked_alloc e = {WASP_OBJECTS_ROLE_ALLOC, cls, ctx, allocations, bytes};
    return wasp_keyed_add(p, &untracked_layout, &e);
}

static void free_data(void *data)
{
    objects_data *o = data;
    wasp_site_records_free(&o->accesses);
    wasp_keyed_table_free(&o->untracked);
    free(o->head);
    free(o->next);
    free(o);
}

const wasp_site_access *wasp_profile_site_accesses(const wasp_profile *p, uint32_t *n)
{
    const objects_data *o = p->parts[WASP_ID_objects];
    return wasp_site_records_all(o ? &o->accesses : NULL, n);
}

/* Room for a head per site up to `site` and a link for one more access, made
 * before the access is added so that a failure leaves nothing half linked. */
static int reserve_links(objects_data *o, uint32_t site)
{
    if (site >= o->nheads) {
        if (wasp_grow(&o->head, &o->cap_heads, site + 1, sizeof *o->head) != 0)
            return -1;
        for (; o->nheads <= site; o->nheads++)
            o->head[o->nheads] = WASP_NOID;
    }
    return wasp_grow(&o->next, &o->cap_next, o->accesses.n + 1, sizeof *o->next);
}

int wasp_profile_add_site_access_checked(wasp_profile *p, uint32_t site, uint32_t access_ctx,
                                         double samples, double remote)
{
    if (site >= p->nsites || access_ctx >= p->ncontexts)
        return -1;
    objects_data *o = wasp_profile_part_data(p, WASP_ID_objects, sizeof *o);
    if (!o || reserve_links(o, site) != 0)
        return -1;
    uint32_t before = o->accesses.n;
    uint32_t id = wasp_site_records_add(&o->accesses, site, access_ctx, samples, remote);
    if (id == WASP_NOID)
        return -1;
    if (id == before) {
        o->next[id] = o->head[site];
        o->head[site] = id;
    }
    return 0;
}

void wasp_profile_add_site_access(wasp_profile *p, uint32_t site, uint32_t access_ctx,
                                  double samples, double remote)
{
    (void)wasp_profile_add_site_access_checked(p, site, access_ctx, samples, remote);
}

/* The first access of a site's chain (WASP_NOID when none); next: o->next. */
static uint32_t first_access(const objects_data *o, uint32_t site)
{
    return o && site < o->nheads ? o->head[site] : WASP_NOID;
}

double wasp_profile_site_samples(const wasp_profile *p, uint32_t site, double *remote)
{
    const objects_data *o = p->parts[WASP_ID_objects];
    uint32_t n;
    const wasp_site_access *x = wasp_profile_site_accesses(p, &n);
    double s = 0, r = 0;
    for (uint32_t a = first_access(o, site); a != WASP_NOID; a = o->next[a]) {
        s += x[a].samples;
        r += x[a].remote;
    }
    if (remote)
        *remote = r;
    return s;
}

/* ---- ranking ---- */

uint32_t *wasp_profile_sorted_sites(const wasp_profile *p, uint32_t *n)
{
    *n = 0;
    uint32_t k = p->nsites;
    wasp_ranked *r = malloc((k ? k : 1) * sizeof *r);
    if (!r)
        return NULL;
    for (uint32_t i = 0; i < k; i++) {
        const wasp_site *s = &p->sites[i];
        r[i] = (wasp_ranked){{0, s->bytes, s->allocations}, {s->ctx, s->class_name}, i};
    }
    uint32_t nx;
    const wasp_site_access *x = wasp_profile_site_accesses(p, &nx);
    for (uint32_t i = 0; i < nx; i++)
        if (x[i].site < k)
            r[x[i].site].weight[0] += x[i].samples;
    uint32_t *out = wasp_ranked_order(r, k);
    if (out)
        *n = k;
    return out;
}

uint32_t *wasp_profile_sorted_site_accesses(const wasp_profile *p, uint32_t site, uint32_t *n)
{
    const objects_data *o = p->parts[WASP_ID_objects];
    uint32_t nx, k = 0;
    const wasp_site_access *x = wasp_profile_site_accesses(p, &nx);
    *n = 0;
    for (uint32_t a = first_access(o, site); a != WASP_NOID; a = o->next[a])
        k++;
    wasp_ranked *r = malloc((k ? k : 1) * sizeof *r);
    if (!r)
        return NULL;
    k = 0;
    for (uint32_t a = first_access(o, site); a != WASP_NOID; a = o->next[a])
        r[k++] = (wasp_ranked){{wasp_profile_context_walked(p, x[a].access_ctx), x[a].samples},
                               {x[a].access_ctx},
                               a}; /* unwalked stacks last (profile.h) */
    uint32_t *out = wasp_ranked_order(r, k);
    if (out)
        *n = k;
    return out;
}

/* ---- does the report show objects? ---- */

bool wasp_profile_has_objects(const wasp_profile *p)
{
    uint32_t n;
    wasp_profile_site_accesses(p, &n);
    const char *events = wasp_profile_get_meta(p, "events");
    if (n || wasp_events_name(events, "objects"))
        return true;
    /* Sites and address samples come with the analyses that track objects
     * (replicas) too: when the run names its analyses, those alone are
     * not the objects analysis (a section of rows all 0% said nothing). */
    if (events && *events)
        return false;
    if (p->nsites)
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
    uint32_t n;
    const wasp_site_access *x = wasp_profile_site_accesses(p, &n);
    for (uint32_t i = 0; i < n; i++)
        if (x[i].remote != 0)
            return false;
    return true;
}

/* ---- the profile part ---- */

static int check(const wasp_profile *p, char *err, size_t errlen)
{
    const objects_data *o = p->parts[WASP_ID_objects];
    if (o && wasp_site_records_check(p, &o->accesses, "site access", err, errlen) != 0)
        return -1;
    return wasp_keyed_check(p, &untracked_layout, err, errlen);
}

static void encode(const wasp_profile *p, wasp_wbuf *b)
{
    const objects_data *o = p->parts[WASP_ID_objects];
    if (o)
        wasp_site_records_encode(&o->accesses, SEC_ACCESSES, b);
    wasp_keyed_encode(p, &untracked_layout, b);
}

static int decode(wasp_profile *p, wasp_decoder *d)
{
    if (wasp_site_records_decode(p, d, SEC_ACCESSES, "site access",
                                 wasp_profile_add_site_access_checked) != 0)
        return -1;
    return wasp_keyed_decode(p, &untracked_layout, d);
}

static int merge(wasp_profile *dst, const wasp_profile *src, const wasp_id_map *m)
{
    const objects_data *o = src->parts[WASP_ID_objects];
    if (o && wasp_site_records_merge(dst, &o->accesses, m, ROLE_ACCESS,
                                     wasp_profile_add_site_access_checked) != 0)
        return -1;
    return wasp_keyed_merge(dst, src, &untracked_layout, m);
}

static int weigh(const wasp_profile *p, wasp_context_weights *w)
{
    const objects_data *o = p->parts[WASP_ID_objects];
    if (o && wasp_site_records_weigh(&o->accesses, w, ROLE_ACCESS, false) != 0)
        return -1;
    return wasp_keyed_weigh(p, &untracked_layout, w);
}

const wasp_profile_part wasp_profile_part_objects = {
    .sections = {SEC_ACCESSES, SEC_UNTRACKED},
    .context_roles = 2,
    .free = free_data,
    .check = check,
    .encode = encode,
    .decode = decode,
    .merge = merge,
    .weigh = weigh,
};
