/*
 * Ranking the locks analysis's blocked time (see waits.h).
 */
#include "analysis/locks/waits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void wasp_lock_waits_free(wasp_lock_waits *w)
{
    free(w->classes);
    free(w->contexts);
    memset(w, 0, sizeof *w);
}

void wasp_lock_waits_interval(double n, double seconds, double *lo, double *hi)
{
    double rel = n > 0 ? 1.96 / sqrt(n) : 1;
    *lo = seconds * (rel < 1 ? 1 - rel : 0);
    *hi = seconds * (1 + rel);
}

static int cmp_u32(uint32_t a, uint32_t b)
{
    return a < b ? -1 : a > b;
}

/* Seconds descending, then the keys: the same order every time. */
static int cmp_seconds(double a, double b)
{
    return a > b ? -1 : a < b;
}

static int by_key(const void *x, const void *y)
{
    const wasp_lock_blocked *a = x, *b = y;
    int c = cmp_u32(a->cls, b->cls);
    return c ? c : (c = cmp_u32(a->where, b->where)) ? c : cmp_u32(a->ctx, b->ctx);
}

static int context_rank(const void *x, const void *y)
{
    const wasp_lock_blocked *a = x, *b = y;
    int c = cmp_seconds(a->seconds, b->seconds);
    return c ? c : cmp_u32(a->ctx, b->ctx);
}

static int class_rank(const void *x, const void *y)
{
    const wasp_lock_waits_class *a = x, *b = y;
    int c = cmp_seconds(a->seconds, b->seconds);
    return c ? c : (c = cmp_u32(a->cls, b->cls)) ? c : cmp_u32(a->where, b->where);
}

int wasp_lock_waits_rank(const wasp_profile *p, wasp_lock_waits *w)
{
    memset(w, 0, sizeof *w);
    uint32_t n;
    const wasp_lock_blocked *e = wasp_profile_locks_blocked(p, &n);
    w->contexts = malloc((n ? n : 1) * sizeof *w->contexts);
    w->classes = calloc(n ? n : 1, sizeof *w->classes);
    if (!w->contexts || !w->classes) {
        wasp_lock_waits_free(w);
        return -1;
    }
    if (n)
        memcpy(w->contexts, e, n * sizeof *e);
    w->ncontexts = n;
    qsort(w->contexts, n, sizeof *w->contexts, by_key);
    for (uint32_t i = 0; i < n;) {
        wasp_lock_waits_class *c = &w->classes[w->nclasses++];
        c->cls = w->contexts[i].cls;
        c->where = w->contexts[i].where;
        uint32_t j = i;
        for (; j < n && w->contexts[j].cls == c->cls && w->contexts[j].where == c->where; j++) {
            c->samples += w->contexts[j].samples;
            c->seconds += w->contexts[j].seconds;
        }
        qsort(&w->contexts[i], j - i, sizeof *w->contexts, context_rank);
        c->contexts = &w->contexts[i];
        c->ncontexts = j - i;
        w->samples += c->samples;
        w->seconds += c->seconds;
        i = j;
    }
    qsort(w->classes, w->nclasses, sizeof *w->classes, class_rank);
    return 0;
}
