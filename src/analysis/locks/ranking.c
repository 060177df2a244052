/*
 * Ranking the locks analysis's entries (see ranking.h).
 */
#include "analysis/locks/ranking.h"

#include "analysis/locks/estimate.h"

#include <stdlib.h>
#include <string.h>

#include "profile/part.h"

double wasp_lock_samples(const wasp_lock_sum *s)
{
    return s->acquire + s->slow;
}

double wasp_lock_acquisitions(const wasp_lock_ranking *r, const wasp_lock_sum *s)
{
    return s->acquire * r->per_sample;
}

void wasp_lock_ranking_free(wasp_lock_ranking *r)
{
    free(r->classes);
    free(r->contexts);
    free(r->functions);
    memset(r, 0, sizeof *r);
}

static void add(wasp_lock_sum *s, const wasp_lock_entry *e)
{
    s->acquire += e->acquire;
    s->release += e->release;
    s->slow += e->slow;
}

/* Indices of n items in order: the ones last() says go last after the
 * others (last NULL: none), each group by weight descending, then keys
 * ascending. NULL when out of memory. */
static uint32_t *order(uint32_t n, double (*weight)(const void *, uint32_t),
                       void (*keys)(const void *, uint32_t, uint32_t *), const void *items,
                       bool (*last)(const void *, uint32_t))
{
    wasp_ranked *k = calloc(n ? n : 1, sizeof *k);
    if (!k)
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        k[i].weight[0] = last && last(items, i) ? 0 : 1;
        k[i].weight[1] = weight ? weight(items, i) : 0;
        keys(items, i, k[i].key);
        k[i].index = i;
    }
    return wasp_ranked_order(k, n);
}

static void entry_keys(const void *items, uint32_t i, uint32_t *key)
{
    const wasp_lock_entry *e = items;
    key[0] = e[i].cls;
    key[1] = e[i].ctx;
}

static double sum_weight(const void *items, uint32_t i)
{
    return wasp_lock_samples(&((const wasp_lock_sum *)items)[i]);
}

static bool sum_unwalked(const void *items, uint32_t i)
{
    return ((const wasp_lock_sum *)items)[i].unwalked;
}

static void sum_keys(const void *items, uint32_t i, uint32_t *key)
{
    const wasp_lock_sum *s = items;
    key[0] = s[i].cls;
    key[1] = s[i].ctx;
}

static double class_weight(const void *items, uint32_t i)
{
    return wasp_lock_samples(&((const wasp_lock_class *)items)[i].sum);
}

static void class_keys(const void *items, uint32_t i, uint32_t *key)
{
    key[0] = ((const wasp_lock_class *)items)[i].sum.cls;
}

static double function_weight(const void *items, uint32_t i)
{
    return ((const wasp_lock_function *)items)[i].slow;
}

static void function_keys(const void *items, uint32_t i, uint32_t *key)
{
    key[0] = ((const wasp_lock_function *)items)[i].where;
}

/* Reorders n items of size el by idx (freed here). */
static int permute(void *items, uint32_t n, size_t el, uint32_t *idx)
{
    char *copy = malloc((n ? n : 1) * el);
    if (!copy || !idx) {
        free(copy);
        free(idx);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        memcpy(copy + (size_t)i * el, (char *)items + (size_t)idx[i] * el, el);
    memcpy(items, copy, (size_t)n * el);
    free(copy);
    free(idx);
    return 0;
}

int wasp_lock_rank(const wasp_profile *p, wasp_lock_ranking *r)
{
    memset(r, 0, sizeof *r);
    uint32_t n;
    const wasp_lock_entry *e = wasp_profile_locks(p, &n);
    uint32_t *by_key = order(n, NULL, entry_keys, e, NULL);
    r->contexts = calloc(n ? n : 1, sizeof *r->contexts);
    r->classes = calloc(n ? n : 1, sizeof *r->classes);
    r->functions = calloc(n ? n : 1, sizeof *r->functions);
    if (!by_key || !r->contexts || !r->classes || !r->functions) {
        free(by_key);
        wasp_lock_ranking_free(r);
        return -1;
    }
    r->per_sample = wasp_lock_acquisitions_per_sample(p);
    const uint32_t empty = 0; /* strings[0] is "" */
    for (uint32_t i = 0; i < n; i++) {
        const wasp_lock_entry *x = &e[by_key[i]];
        r->acquire += x->acquire;
        r->release += x->release;
        r->slow += x->slow;
        wasp_lock_sum *last = r->ncontexts ? &r->contexts[r->ncontexts - 1] : NULL;
        if (!last || last->cls != x->cls || last->ctx != x->ctx) {
            last = &r->contexts[r->ncontexts++];
            last->cls = x->cls;
            last->ctx = x->ctx;
            last->unwalked = !wasp_profile_context_walked(p, x->ctx);
        }
        add(last, x);
        if (x->where != empty) {
            uint32_t f = 0;
            while (f < r->nfunctions && r->functions[f].where != x->where)
                f++;
            if (f == r->nfunctions)
                r->functions[r->nfunctions++].where = x->where;
            r->functions[f].slow += x->slow;
        }
    }
    free(by_key);
    /* Classes over runs of one class; then each run ranked, then classes. */
    for (uint32_t i = 0; i < r->ncontexts;) {
        uint32_t j = i;
        wasp_lock_class *c = &r->classes[r->nclasses++];
        c->sum.cls = r->contexts[i].cls;
        for (; j < r->ncontexts && r->contexts[j].cls == c->sum.cls; j++) {
            c->sum.acquire += r->contexts[j].acquire;
            c->sum.release += r->contexts[j].release;
            c->sum.slow += r->contexts[j].slow;
        }
        c->contexts = &r->contexts[i];
        c->ncontexts = j - i;
        if (permute(c->contexts, c->ncontexts, sizeof *c->contexts,
                    order(c->ncontexts, sum_weight, sum_keys, c->contexts, sum_unwalked)) != 0) {
            wasp_lock_ranking_free(r);
            return -1;
        }
        i = j;
    }
    if (permute(r->classes, r->nclasses, sizeof *r->classes,
                order(r->nclasses, class_weight, class_keys, r->classes, NULL)) != 0 ||
        permute(r->functions, r->nfunctions, sizeof *r->functions,
                order(r->nfunctions, function_weight, function_keys, r->functions, NULL)) != 0) {
        wasp_lock_ranking_free(r);
        return -1;
    }
    return 0;
}
