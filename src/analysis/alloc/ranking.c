/*
 * Ranking the alloc analysis's entries (see ranking.h).
 */
#include "analysis/alloc/ranking.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/part.h"
#include "profile/profile.h"

/* The command line's choice: by bytes unless told otherwise. */
static bool rank_by_count;

void wasp_alloc_rank_by_count(bool on)
{
    rank_by_count = on;
}

double wasp_alloc_effective_catches(double bytes, double catches, double bytes_sq)
{
    return bytes_sq > 0 && bytes > 0 ? bytes * bytes / bytes_sq : catches;
}

void wasp_alloc_bytes_interval(double bytes, double catches, double *lo, double *hi)
{
    const double z = 1.959964;
    double n = catches;
    if (!(n > 0) || !(bytes > 0)) {
        *lo = *hi = bytes > 0 ? bytes : 0;
        return;
    }
    /* Wilson-Hilferty: the cube root of a Poisson count is near normal. */
    double a = 1 - 1 / (9 * n) - z / (3 * sqrt(n));
    double b = 1 - 1 / (9 * (n + 1)) + z / (3 * sqrt(n + 1));
    double per = bytes / n;
    *lo = a > 0 ? per * n * a * a * a : 0;
    *hi = per * (n + 1) * b * b * b;
}

void wasp_alloc_ranking_free(wasp_alloc_ranking *r)
{
    free(r->classes);
    free(r->sites);
    free(r->site_bytes);
    free(r->site_catches);
    free(r->site_bytes_sq);
    free(r->site_outside);
    memset(r, 0, sizeof *r);
}

static int by_keys(const void *a, const void *b)
{
    const wasp_alloc_entry *x = *(const wasp_alloc_entry *const *)a;
    const wasp_alloc_entry *y = *(const wasp_alloc_entry *const *)b;
    return x->cls != y->cls ? (x->cls < y->cls ? -1 : 1)
           : x->ctx != y->ctx ? (x->ctx < y->ctx ? -1 : 1)
                              : 0;
}

/* Add records b[0..nb) to the entries of the same keys (sorted: the
 * entries by key), into out too when given: a join. Returns their bytes. */
static double join(const wasp_alloc_bytes *b, uint32_t nb, const wasp_alloc_entry *e, uint32_t n,
                   const wasp_alloc_entry **sorted, wasp_alloc_ranking *r, double *out)
{
    double sum = 0;
    for (uint32_t i = 0; i < nb; i++) {
        wasp_alloc_entry key = {b[i].cls, b[i].ctx, 0}, *k = &key;
        const wasp_alloc_entry **at = bsearch(&k, sorted, n, sizeof *sorted, by_keys);
        if (!at)
            continue; /* bytes of no creation entry: nothing to show them with */
        uint32_t j = (uint32_t)(*at - e);
        r->site_bytes[j] += b[i].bytes;
        r->site_catches[j] += b[i].catches;
        r->site_bytes_sq[j] += b[i].bytes_sq;
        if (out)
            out[j] += b[i].bytes;
        sum += b[i].bytes;
        r->catches += b[i].catches;
        r->bytes_sq += b[i].bytes_sq;
    }
    return sum;
}

/* Each entry's bytes and catches from the bytes records of the same keys,
 * the TLAB ones (ALBY) then those outside TLABs (ALOT). 0, or -1 out of
 * memory. */
static int join_bytes(const wasp_profile *p, const wasp_alloc_entry *e, uint32_t n,
                      wasp_alloc_ranking *r)
{
    uint32_t nb, no;
    const wasp_alloc_bytes *b = wasp_profile_alloc_bytes(p, &nb);
    const wasp_alloc_bytes *o = wasp_profile_alloc_outside(p, &no);
    if (nb == 0)
        return 0; /* outside bytes alone are not the program's */
    const wasp_alloc_entry **sorted = malloc((n ? n : 1) * sizeof *sorted);
    r->site_bytes = calloc(n ? n : 1, sizeof *r->site_bytes);
    r->site_catches = calloc(n ? n : 1, sizeof *r->site_catches);
    r->site_bytes_sq = calloc(n ? n : 1, sizeof *r->site_bytes_sq);
    r->site_outside = calloc(n ? n : 1, sizeof *r->site_outside);
    if (!sorted || !r->site_bytes || !r->site_catches || !r->site_bytes_sq || !r->site_outside) {
        free(sorted);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        sorted[i] = &e[i];
    qsort(sorted, n, sizeof *sorted, by_keys);
    r->bytes = join(b, nb, e, n, sorted, r, NULL);
    /* The catches' sum runs low where a window's coverage factor hit its cap
     * (coverage.h): the same for every class of the window, so the shares
     * hold, not the total. The TLAB bytes the windows measured are the
     * total then (docs/alloc.md, "Bytes"); the bytes outside TLABs are
     * not in it, and are added unscaled. */
    double window = (double)wasp_profile_get_counter(p, "alloc.window_bytes");
    if (r->bytes > 0 && window > 0) {
        double scale = window / r->bytes;
        for (uint32_t i = 0; i < n; i++) {
            r->site_bytes[i] *= scale;
            r->site_bytes_sq[i] *= scale * scale;
        }
        r->bytes = window;
        r->bytes_sq *= scale * scale;
        r->measured = true;
    }
    r->outside = join(o, no, e, n, sorted, r, r->site_outside);
    r->bytes += r->outside;
    free(sorted);
    /* Every creation has its bytes, or the bytes are not known: a profile
     * merged with one written before them (no ALBY) would rank its classes
     * by the newer part's bytes alone. */
    uint32_t missing = 0;
    for (uint32_t i = 0; i < n; i++)
        missing += e[i].samples > 0 && !(r->site_catches[i] > 0);
    r->has_bytes = r->bytes > 0 && missing == 0;
    return 0;
}

static int rank(const wasp_profile *p, wasp_alloc_ranking *r, bool by_count)
{
    memset(r, 0, sizeof *r);
    uint32_t n, ns = p->nstrings;
    const wasp_alloc_entry *e = wasp_profile_allocs(p, &n);
    wasp_ranked *sites = malloc((n ? n : 1) * sizeof *sites);
    wasp_alloc_class *by_string = calloc(ns ? ns : 1, sizeof *by_string);
    if (!sites || !by_string || join_bytes(p, e, n, r) != 0)
        goto fail;
    r->by_bytes = r->has_bytes && !by_count;
    for (uint32_t i = 0; i < n; i++) {
        double bytes = r->has_bytes ? r->site_bytes[i] : 0;
        double catches = r->has_bytes ? r->site_catches[i] : 0;
        double bytes_sq = r->has_bytes ? r->site_bytes_sq[i] : 0;
        double outside = r->has_bytes ? r->site_outside[i] : 0;
        /* sites whose creation stack was not walked last (profile.h) */
        sites[i] = (wasp_ranked){{wasp_profile_context_walked(p, e[i].ctx),
                                  r->by_bytes ? bytes : e[i].samples, e[i].samples},
                                 {e[i].cls, e[i].ctx}, i};
        r->samples += e[i].samples;
        if (e[i].cls < ns) {
            by_string[e[i].cls].samples += e[i].samples;
            by_string[e[i].cls].bytes += bytes;
            by_string[e[i].cls].catches += catches;
            by_string[e[i].cls].bytes_sq += bytes_sq;
            by_string[e[i].cls].outside += outside;
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
        if (by_string[s].nsites) {
            const wasp_alloc_class *c = &by_string[s];
            classes[k++] = (wasp_ranked){{r->by_bytes ? c->bytes : c->samples, c->samples}, {s}, s};
        }
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

int wasp_alloc_rank(const wasp_profile *p, wasp_alloc_ranking *r)
{
    return rank(p, r, rank_by_count);
}
