/*
 * Object replicas (OJXPerf): per allocation site, the comparisons of a
 * sampled field of a newly accessed object with the same field of the
 * previously accessed object of the site, keyed by (site, access context),
 * and an optional per-site verification (whole objects compared at the end of
 * the run) that measures α. θ, ω and γ are OJXPerf's Section 6:
 *
 *   θ = same / (same + different)
 *   ω = θ − α                                        (lower bound of X_N / X)
 *   γ = 1/(2(X−1)) + sqrt(1/(4(X−1)²) + (θ−α)/(1−α)) (upper bound of X_N / X)
 *
 * X_N / X being the share of the site's X objects in its largest group of
 * identical objects.
 */
#include "profile/hindex.h"
#include "profile/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- records ---- */

struct replica_key {
    const wasp_profile *p;
    uint32_t site, ctx;
};

static bool replica_eq(const void *ctx, uint32_t id)
{
    const struct replica_key *k = ctx;
    const wasp_replica *r = &k->p->replicas[id];
    return r->site == k->site && r->access_ctx == k->ctx;
}

int wasp_profile_add_replica_checked(wasp_profile *p, uint32_t site, uint32_t access_ctx,
                                     double same, double different)
{
    if (site >= p->nsites || access_ctx >= p->ncontexts)
        return -1;
    if (!p->replica_index && !(p->replica_index = wasp_hindex_new()))
        return -1;
    uint32_t h = wasp_fnv1a_u32(wasp_fnv1a_u32(WASP_FNV_INIT, site), access_ctx);
    struct replica_key k = {p, site, access_ctx};
    uint32_t id = wasp_hindex_find(p->replica_index, h, replica_eq, &k);
    if (id == WASP_HINDEX_NONE) {
        if (p->nreplicas == WASP_NOID - 1 ||
            wasp_grow(&p->replicas, &p->cap_replicas, p->nreplicas + 1, sizeof *p->replicas) != 0)
            return -1;
        id = p->nreplicas;
        if (wasp_hindex_add(p->replica_index, h, id) != 0)
            return -1;
        p->replicas[id] = (wasp_replica){.site = site, .access_ctx = access_ctx};
        p->nreplicas++;
    }
    p->replicas[id].same += same;
    p->replicas[id].different += different;
    return 0;
}

void wasp_profile_add_replica(wasp_profile *p, uint32_t site, uint32_t access_ctx, double same,
                              double different)
{
    (void)wasp_profile_add_replica_checked(p, site, access_ctx, same, different);
}

/* ---- checks (few: the verified sites; a linear search is enough) ---- */

static wasp_replica_check *find_check(const wasp_profile *p, uint32_t site)
{
    for (uint32_t i = 0; i < p->nreplica_checks; i++)
        if (p->replica_checks[i].site == site)
            return &p->replica_checks[i];
    return NULL;
}

const wasp_replica_check *wasp_profile_replica_check(const wasp_profile *p, uint32_t site)
{
    return find_check(p, site);
}

static wasp_replica_check *new_check(wasp_profile *p, uint32_t site)
{
    if (p->nreplica_checks == WASP_NOID - 1 ||
        wasp_grow(&p->replica_checks, &p->cap_replica_checks, p->nreplica_checks + 1,
                  sizeof *p->replica_checks) != 0)
        return NULL;
    wasp_replica_check *c = &p->replica_checks[p->nreplica_checks++];
    *c = (wasp_replica_check){.site = site};
    return c;
}

void wasp_profile_set_replica_check(wasp_profile *p, const wasp_replica_check *c)
{
    if (c->site >= p->nsites)
        return;
    wasp_replica_check *d = find_check(p, c->site);
    if (!d && !(d = new_check(p, c->site)))
        return;
    *d = *c;
}

/* Pair-weighted mean; when neither side has pairs, a's value stays. */
static double weighted(double a, double wa, double b, double wb)
{
    if (!(wa + wb > 0))
        return a;
    return (a * wa + b * wb) / (wa + wb);
}

int wasp_profile_merge_replica_check_checked(wasp_profile *p, const wasp_replica_check *c)
{
    if (c->site >= p->nsites)
        return -1;
    wasp_replica_check *d = find_check(p, c->site);
    if (!d) {
        if (!(d = new_check(p, c->site)))
            return -1;
        *d = *c;
        return 0;
    }
    d->alpha = weighted(d->alpha, d->pairs, c->alpha, c->pairs);
    d->false_positive = weighted(d->false_positive, d->pairs, c->false_positive, c->pairs);
    d->pairs += c->pairs;
    d->identical += c->identical;
    return 0;
}

void wasp_profile_free_replicas(wasp_profile *p)
{
    free(p->replicas);
    free(p->replica_checks);
    wasp_hindex_free(p->replica_index);
    p->replicas = NULL;
    p->replica_checks = NULL;
    p->replica_index = NULL;
    p->nreplicas = p->cap_replicas = p->nreplica_checks = p->cap_replica_checks = 0;
}

/* ---- θ, ω, γ ---- */

double wasp_replica_theta(const wasp_profile *p, uint32_t site, double *comparisons)
{
    double same = 0, all = 0;
    for (uint32_t i = 0; i < p->nreplicas; i++)
        if (p->replicas[i].site == site) {
            same += p->replicas[i].same;
            all += p->replicas[i].same + p->replicas[i].different;
        }
    if (comparisons)
        *comparisons = all;
    return all > 0 ? same / all : 0;
}

double wasp_replica_omega(double theta, double alpha)
{
    return theta - alpha;
}

double wasp_replica_gamma(double theta, double alpha, double x)
{
    if (!(x > 1) || !(alpha < 1))
        return NAN;
    double t = 1 / (x - 1);
    double a = (theta - alpha) / (1 - alpha);
    if (!(a > 0))
        a = 0;
    return t / 2 + sqrt(t * t / 4 + a);
}

/* ---- ranking ---- */

struct site_rank {
    double same, all, score, theta;
    uint32_t ctx, cls, index;
};

static int site_rank_cmp(const void *x, const void *y)
{
    const struct site_rank *a = x, *b = y;
    int c = wasp_cmp_desc(a->score, b->score);
    if (!c)
        c = wasp_cmp_desc(a->theta, b->theta);
    if (!c)
        c = wasp_cmp_desc(a->all, b->all);
    if (!c)
        c = wasp_cmp_u32(a->ctx, b->ctx);
    if (!c)
        c = wasp_cmp_u32(a->cls, b->cls);
    return c ? c : wasp_cmp_u32(a->index, b->index);
}

uint32_t *wasp_profile_sorted_replica_sites(const wasp_profile *p, uint32_t *n)
{
    *n = 0;
    uint32_t k = p->nsites;
    struct site_rank *r = calloc(k ? k : 1, sizeof *r);
    uint32_t *out = malloc((k ? k : 1) * sizeof *out);
    if (!r || !out) {
        free(r);
        free(out);
        return NULL;
    }
    for (uint32_t i = 0; i < p->nreplicas; i++) {
        const wasp_replica *q = &p->replicas[i];
        if (q->site < k) {
            r[q->site].same += q->same;
            r[q->site].all += q->same + q->different;
        }
    }
    uint32_t m = 0;
    for (uint32_t i = 0; i < k; i++) {
        if (!(r[i].all >= 1))
            continue;
        double theta = r[i].same / r[i].all;
        double samples = wasp_profile_site_samples(p, i, NULL);
        struct site_rank e = r[i];
        e.theta = theta;
        e.score = theta * (samples > 0 ? samples : e.all);
        e.ctx = p->sites[i].ctx;
        e.cls = p->sites[i].class_name;
        e.index = i;
        r[m++] = e; /* m <= i: entries not yet read are untouched */
    }
    qsort(r, m, sizeof *r, site_rank_cmp);
    for (uint32_t i = 0; i < m; i++)
        out[i] = r[i].index;
    free(r);
    *n = m;
    return out;
}

uint32_t *wasp_profile_sorted_site_replicas(const wasp_profile *p, uint32_t site, uint32_t *n)
{
    *n = 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < p->nreplicas; i++)
        k += p->replicas[i].site == site;
    wasp_ranked *r = malloc((k ? k : 1) * sizeof *r);
    if (!r)
        return NULL;
    k = 0;
    for (uint32_t i = 0; i < p->nreplicas; i++)
        if (p->replicas[i].site == site)
            r[k++] = (wasp_ranked){p->replicas[i].same + p->replicas[i].different,
                                   p->replicas[i].access_ctx, i};
    uint32_t *out = wasp_ranked_order(r, k);
    if (out)
        *n = k;
    return out;
}

/* ---- does the report show replicas? ---- */

bool wasp_profile_has_replicas(const wasp_profile *p)
{
    return p->nreplicas || p->nreplica_checks ||
           wasp_events_name(wasp_profile_get_meta(p, "events"), "replicas");
}
