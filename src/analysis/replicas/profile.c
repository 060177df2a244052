/*
 * The replicas analysis's part in the profile (OJXPerf): comparison records
 * keyed by (site, access context) in a site record table
 * (profile/site_records.h), of their equal comparisons those of zero words
 * in another (only where there are some: older profiles have none), and at
 * most one verification per site. θ, ω and
 * γ are OJXPerf's Section 6:
 *
 *   θ = same / (same + different)
 *   ω = θ − α                                        (lower bound of X_N / X)
 *   γ = 1/(2(X−1)) + sqrt(1/(4(X−1)²) + (θ−α)/(1−α)) (upper bound of X_N / X)
 *
 * X_N / X being the share of the site's X objects in its largest group of
 * identical objects.
 */
#include "analysis/replicas/profile.h"
#include "catalog/ids.h"
#include "analysis/objects/profile.h"
#include "common/wilson.h"
#include "profile/site_records.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

WASP_SITE_RECORD_LAYOUT(wasp_replica, site, access_ctx, same, different);

enum {
    SEC_RECORDS = WASP_TAG('R', 'E', 'P', 'L'),
    SEC_CHECKS = WASP_TAG('R', 'C', 'H', 'K'),
    SEC_ZEROS = WASP_TAG('R', 'Z', 'E', 'R'),
    ROLE_COMPARISON = 0, /* where the later object's field was compared */
    CHECK_FILE_BYTES = 36
};

typedef struct replicas_data {
    wasp_site_records records;
    wasp_site_records zeros; /* (site, ctx, equal comparisons of zero words, 0) */
    wasp_replica_check *checks; /* few (the verified sites): searched linearly */
    uint32_t nchecks, cap_checks;
} replicas_data;

static void free_data(void *data)
{
    replicas_data *r = data;
    wasp_site_records_free(&r->records);
    wasp_site_records_free(&r->zeros);
    free(r->checks);
    free(r);
}

const wasp_replica *wasp_profile_replicas(const wasp_profile *p, uint32_t *n)
{
    const replicas_data *r = p->parts[WASP_ID_replicas];
    return wasp_site_records_all(r ? &r->records : NULL, n);
}

const wasp_replica_check *wasp_profile_replica_checks(const wasp_profile *p, uint32_t *n)
{
    const replicas_data *r = p->parts[WASP_ID_replicas];
    *n = r ? r->nchecks : 0;
    return r ? r->checks : NULL;
}

/* ---- records ---- */

/* Adds to the record (site, ctx) of one of the part's tables (records or
 * zeros, picked by `table`): 0, or -1 when an id is out of range or out of
 * memory. */
static int add_to(wasp_profile *p, wasp_site_records *(*table)(replicas_data *), uint32_t site,
                  uint32_t ctx, double first, double second)
{
    if (site >= p->nsites || ctx >= p->ncontexts)
        return -1;
    replicas_data *r = wasp_profile_part_data(p, WASP_ID_replicas, sizeof *r);
    if (!r)
        return -1;
    return wasp_site_records_add(table(r), site, ctx, first, second) == WASP_NOID ? -1 : 0;
}

static wasp_site_records *records_of(replicas_data *r)
{
    return &r->records;
}

static wasp_site_records *zeros_of(replicas_data *r)
{
    return &r->zeros;
}

int wasp_profile_add_replica_checked(wasp_profile *p, uint32_t site, uint32_t access_ctx,
                                     double same, double different)
{
    return add_to(p, records_of, site, access_ctx, same, different);
}

void wasp_profile_add_replica(wasp_profile *p, uint32_t site, uint32_t access_ctx, double same,
                              double different)
{
    (void)wasp_profile_add_replica_checked(p, site, access_ctx, same, different);
}

/* The second sum is unused (0): the table shares site_records' layout. */
int wasp_profile_add_replica_zeros_checked(wasp_profile *p, uint32_t site, uint32_t access_ctx,
                                           double zeros, double unused)
{
    return add_to(p, zeros_of, site, access_ctx, zeros, unused);
}

void wasp_profile_add_replica_zeros(wasp_profile *p, uint32_t site, uint32_t access_ctx,
                                    double zeros)
{
    (void)wasp_profile_add_replica_zeros_checked(p, site, access_ctx, zeros, 0);
}

double wasp_replica_site_zero(const wasp_profile *p, uint32_t site)
{
    const replicas_data *r = p->parts[WASP_ID_replicas];
    double z = 0;
    for (uint32_t i = 0; r && i < r->zeros.n; i++) {
        wasp_site_record x = wasp_site_records_get(&r->zeros, i);
        if (x.site == site)
            z += x.sum[0];
    }
    return z;
}

/* ---- checks ---- */

static wasp_replica_check *find_check(const replicas_data *r, uint32_t site)
{
    for (uint32_t i = 0; r && i < r->nchecks; i++)
        if (r->checks[i].site == site)
            return &r->checks[i];
    return NULL;
}

const wasp_replica_check *wasp_profile_replica_check(const wasp_profile *p, uint32_t site)
{
    return find_check(p->parts[WASP_ID_replicas], site);
}

/* c->site's check, or a new one holding *c; NULL when out of memory or the
 * site is out of range. *added says which. */
static wasp_replica_check *check_for(wasp_profile *p, const wasp_replica_check *c, bool *added)
{
    *added = false;
    if (c->site >= p->nsites)
        return NULL;
    replicas_data *r = wasp_profile_part_data(p, WASP_ID_replicas, sizeof *r);
    if (!r)
        return NULL;
    wasp_replica_check *d = find_check(r, c->site);
    if (d)
        return d;
    if (r->nchecks == WASP_NOID - 1 ||
        wasp_grow(&r->checks, &r->cap_checks, r->nchecks + 1, sizeof *r->checks) != 0)
        return NULL;
    *added = true;
    d = &r->checks[r->nchecks++];
    *d = *c;
    return d;
}

void wasp_profile_set_replica_check(wasp_profile *p, const wasp_replica_check *c)
{
    bool added;
    wasp_replica_check *d = check_for(p, c, &added);
    if (d)
        *d = *c;
}

/* Pair-weighted mean; when neither side has pairs, a's value stays. */
static double weighted(double a, double wa, double b, double wb)
{
    if (!(wa + wb > 0))
        return a;
    return (a * wa + b * wb) / (wa + wb);
}

/* Folds c into c->site's check (pairs and identical summed, alpha and
 * false_positive averaged weighted by pairs), adding it when the site has none. */
static int merge_check(wasp_profile *p, const wasp_replica_check *c)
{
    bool added;
    wasp_replica_check *d = check_for(p, c, &added);
    if (!d)
        return -1;
    if (added)
        return 0;
    d->alpha = weighted(d->alpha, d->pairs, c->alpha, c->pairs);
    d->false_positive = weighted(d->false_positive, d->pairs, c->false_positive, c->pairs);
    d->pairs += c->pairs;
    d->identical += c->identical;
    return 0;
}

/* ---- θ, ω, γ ---- */

double wasp_replica_theta(const wasp_profile *p, uint32_t site, double *comparisons)
{
    uint32_t n;
    const wasp_replica *x = wasp_profile_replicas(p, &n);
    double same = 0, all = 0;
    for (uint32_t i = 0; i < n; i++)
        if (x[i].site == site) {
            same += x[i].same;
            all += x[i].same + x[i].different;
        }
    if (comparisons)
        *comparisons = all;
    return all > 0 ? same / all : 0;
}

void wasp_replica_theta_interval(double same, double comparisons, double *lo, double *hi)
{
    wasp_wilson_interval(same, comparisons, lo, hi);
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

/* The ranking's tiers, first to last: sites shown to replicate (θ_low >=
 * WASP_REPLICA_MIN_THETA_LOW) before the others, so a site with θ near 0, or
 * with too few comparisons to tell, never ranks above one that replicates
 * however many bytes it allocates (θ_low × bytes alone would put θ 2% over
 * 1,000 comparisons, θ_low 1.3%, with 100x the bytes above θ 90%); within
 * each, allocation sites (allocated bytes known) before sites without
 * allocated bytes (class sites, heap/class_site.h: untracked objects, whose
 * bytes allocated are unknown), whose weights are not bytes. */
enum { TIERS = 4 };

static int tier(double theta_low, double bytes)
{
    return (theta_low >= WASP_REPLICA_MIN_THETA_LOW ? 0 : 2) + (bytes > 0 ? 0 : 1);
}

uint32_t *wasp_profile_sorted_replica_sites(const wasp_profile *p, uint32_t *n)
{
    *n = 0;
    uint32_t nx, k = p->nsites;
    const wasp_replica *x = wasp_profile_replicas(p, &nx);
    double *same = calloc(k ? k : 1, sizeof *same), *all = calloc(k ? k : 1, sizeof *all);
    uint32_t *out = malloc((k ? k : 1) * sizeof *out), m = 0;
    if (!same || !all || !out)
        goto fail;
    for (uint32_t i = 0; i < nx; i++)
        if (x[i].site < k) {
            same[x[i].site] += x[i].same;
            all[x[i].site] += x[i].same + x[i].different;
        }
    /* Each tier ranked on its own (weights: θ_low × amount, θ × amount,
     * comparisons; amount = allocated bytes, or for a site without them
     * its access samples, or its comparisons without those), then
     * appended. */
    for (int t = 0; t < TIERS; t++) {
        wasp_ranked *r = malloc((k ? k : 1) * sizeof *r);
        uint32_t c = 0;
        if (!r)
            goto fail;
        for (uint32_t i = 0; i < k; i++) {
            double lo, hi, bytes = p->sites[i].bytes;
            if (!(all[i] >= 1))
                continue;
            wasp_replica_theta_interval(same[i], all[i], &lo, &hi);
            if (tier(lo, bytes) != t)
                continue;
            double amount = bytes > 0 ? bytes : wasp_profile_site_samples(p, i, NULL);
            if (!(amount > 0))
                amount = all[i];
            double theta = same[i] / all[i];
            r[c++] = (wasp_ranked){{lo * amount, theta * amount, all[i]},
                                   {p->sites[i].ctx, p->sites[i].class_name},
                                   i};
        }
        uint32_t *o = wasp_ranked_order(r, c); /* frees r */
        if (!o)
            goto fail;
        memcpy(out + m, o, c * sizeof *o);
        m += c;
        free(o);
    }
    *n = m;
    free(same);
    free(all);
    return out;
fail:
    free(same);
    free(all);
    free(out);
    return NULL;
}

/* A record with no comparison is a place where the site's objects were
 * accessed (profile.h). */
static bool is_comparison(const wasp_replica *x)
{
    return x->same + x->different > 0;
}

uint32_t *wasp_profile_sorted_site_replicas(const wasp_profile *p, uint32_t site, uint32_t *n)
{
    uint32_t nx, k = 0;
    const wasp_replica *x = wasp_profile_replicas(p, &nx);
    *n = 0;
    for (uint32_t i = 0; i < nx; i++)
        k += x[i].site == site && is_comparison(&x[i]);
    wasp_ranked *r = malloc((k ? k : 1) * sizeof *r);
    if (!r)
        return NULL;
    k = 0;
    for (uint32_t i = 0; i < nx; i++)
        if (x[i].site == site && is_comparison(&x[i]))
            r[k++] = (wasp_ranked){{wasp_profile_context_walked(p, x[i].access_ctx), /* unwalked last */
                                    x[i].same + x[i].different},
                                   {x[i].access_ctx},
                                   i};
    uint32_t *out = wasp_ranked_order(r, k);
    if (out)
        *n = k;
    return out;
}

/* ---- does the report show replicas? ---- */

bool wasp_profile_has_replicas(const wasp_profile *p)
{
    uint32_t records, checks;
    wasp_profile_replicas(p, &records);
    wasp_profile_replica_checks(p, &checks);
    return records || checks ||
           wasp_events_name(wasp_profile_get_meta(p, "events"), "replicas");
}

/* ---- the profile part ---- */

static int check(const wasp_profile *p, char *err, size_t errlen)
{
    const replicas_data *r = p->parts[WASP_ID_replicas];
    if (!r)
        return 0;
    if (wasp_site_records_check(p, &r->records, "replica record", err, errlen) != 0 ||
        wasp_site_records_check(p, &r->zeros, "replica zero record", err, errlen) != 0)
        return -1;
    for (uint32_t i = 0; i < r->nchecks; i++)
        if (r->checks[i].site >= p->nsites) {
            snprintf(err, errlen, "replica check %u refers to a missing site", i);
            return -1;
        }
    return 0;
}

static void put_check(wasp_wbuf *b, const void *ctx, uint32_t i)
{
    const wasp_replica_check *c = &((const replicas_data *)ctx)->checks[i];
    wasp_put_u32(b, c->site);
    wasp_put_f64(b, c->pairs);
    wasp_put_f64(b, c->identical);
    wasp_put_f64(b, c->alpha);
    wasp_put_f64(b, c->false_positive);
}

/* Records and checks, each section only when there are some. */
static void encode(const wasp_profile *p, wasp_wbuf *b)
{
    const replicas_data *r = p->parts[WASP_ID_replicas];
    if (!r)
        return;
    wasp_site_records_encode(&r->records, SEC_RECORDS, b);
    wasp_site_records_encode(&r->zeros, SEC_ZEROS, b);
    if (r->nchecks)
        wasp_put_table(b, SEC_CHECKS, r->nchecks, put_check, r);
}

/* Checks of sites that collapsed into one (duplicates) are merged. */
static int decode_checks(wasp_profile *p, wasp_decoder *d)
{
    wasp_section *s = wasp_decoder_section(d, SEC_CHECKS);
    uint32_t n;
    if (wasp_section_count(s, CHECK_FILE_BYTES, &n) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        wasp_replica_check c;
        uint32_t site = wasp_section_u32(s);
        c.pairs = wasp_section_f64(s);
        c.identical = wasp_section_f64(s);
        c.alpha = wasp_section_f64(s);
        c.false_positive = wasp_section_f64(s);
        if (wasp_section_site(s, "replica check", i, site, &c.site) != 0)
            return -1;
        if (merge_check(p, &c) != 0)
            return wasp_section_out_of_memory(s);
    }
    return wasp_section_done(s);
}

static int decode(wasp_profile *p, wasp_decoder *d)
{
    if (wasp_site_records_decode(p, d, SEC_RECORDS, "replica record",
                                 wasp_profile_add_replica_checked) != 0 ||
        wasp_site_records_decode(p, d, SEC_ZEROS, "replica zero record",
                                 wasp_profile_add_replica_zeros_checked) != 0)
        return -1;
    return decode_checks(p, d);
}

/* Records sum; the checks of a site sum their pairs and identical pairs and
 * average α and the false-positive share weighted by pairs. */
static int merge(wasp_profile *dst, const wasp_profile *src, const wasp_id_map *m)
{
    const replicas_data *r = src->parts[WASP_ID_replicas];
    if (!r)
        return 0;
    if (wasp_site_records_merge(dst, &r->records, m, ROLE_COMPARISON,
                                wasp_profile_add_replica_checked) != 0 ||
        wasp_site_records_merge(dst, &r->zeros, m, ROLE_COMPARISON,
                                wasp_profile_add_replica_zeros_checked) != 0)
        return -1;
    for (uint32_t i = 0; i < r->nchecks; i++) {
        wasp_replica_check c = r->checks[i];
        c.site = wasp_map_site(m, c.site);
        if (merge_check(dst, &c) != 0)
            return -1;
    }
    return 0;
}

static int weigh(const wasp_profile *p, wasp_context_weights *w)
{
    const replicas_data *r = p->parts[WASP_ID_replicas];
    return r ? wasp_site_records_weigh(&r->records, w, ROLE_COMPARISON, true) : 0;
}

const wasp_profile_part wasp_profile_part_replicas = {
    .sections = {SEC_RECORDS, SEC_CHECKS, SEC_ZEROS},
    .context_roles = 1,
    .free = free_data,
    .check = check,
    .encode = encode,
    .decode = decode,
    .merge = merge,
    .weigh = weigh,
};
