/*
 * Ranking the locks analysis's blocked time (see waits.h).
 */
#include "analysis/locks/waits.h"

#include "profile/part.h"
#include "profile/profile.h"

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

static int class_rank(const void *x, const void *y)
{
    const wasp_lock_waits_class *a = x, *b = y;
    int c = cmp_seconds(a->seconds, b->seconds);
    return c ? c : (c = cmp_u32(a->cls, b->cls)) ? c : cmp_u32(a->where, b->where);
}

/* The string id of WASP_LOCK_MONITOR among the looks' entries, or
 * UINT32_MAX when none waited on a monitor. */
static uint32_t monitor_where(const wasp_profile *p, const wasp_lock_blocked *e, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(wasp_profile_string(p, e[i].where), WASP_LOCK_MONITOR) == 0)
            return e[i].where;
    return UINT32_MAX;
}

/* Spinning before a monitor blocks is waiting too, but on the CPU: the
 * looks see the thread running, the CPU sampler sees it in the slow path
 * (with the class and the monitorenter's context). Each such sample adds
 * its period to the monitor's blocked time, as JFR's JavaMonitorEnter
 * duration counts the spin. Time-based samplers only (period_us); appended
 * at out, returns how many. */
static uint32_t add_spins(const wasp_profile *p, uint32_t monitor, wasp_lock_blocked *out)
{
    const char *us = wasp_profile_get_meta(p, "period_us");
    double period = us ? strtod(us, NULL) * 1e-6 : 0;
    uint32_t n, k = 0;
    const wasp_lock_entry *l = wasp_profile_locks(p, &n);
    if (monitor == UINT32_MAX || !(period > 0))
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (l[i].slow > 0)
            out[k++] = (wasp_lock_blocked){l[i].cls, monitor, l[i].ctx, 0, l[i].slow,
                                           l[i].slow * period};
    return k;
}

/* Sorted by key: equal keys (a context that both spun and blocked) summed
 * into one. Returns the count left. */
static uint32_t merge_equal(wasp_lock_blocked *e, uint32_t n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (k && by_key(&e[k - 1], &e[i]) == 0) {
            e[k - 1].samples += e[i].samples;
            e[k - 1].seconds += e[i].seconds;
        } else {
            e[k++] = e[i];
        }
    }
    return k;
}

/* A class's n contexts ranked as every ranking is (wasp_ranked_order):
 * those whose stack walk failed after the others (docs/design.md, "Failed
 * walks rank last": a stack-unavailable context collects the failures of
 * every place and would outrank them), then by seconds, then context. tmp
 * holds n. 0, or -1 when out of memory. */
static int rank_contexts(const wasp_profile *p, wasp_lock_blocked *e, uint32_t n,
                         wasp_lock_blocked *tmp)
{
    wasp_ranked *r = calloc(n ? n : 1, sizeof *r);
    if (!r)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        r[i] = (wasp_ranked){.weight = {wasp_profile_context_walked(p, e[i].ctx), e[i].seconds},
                             .key = {e[i].ctx}, .index = i};
    uint32_t *order = wasp_ranked_order(r, n);
    if (!order)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        tmp[i] = e[order[i]];
    memcpy(e, tmp, n * sizeof *e);
    free(order);
    return 0;
}

int wasp_lock_waits_rank(const wasp_profile *p, wasp_lock_waits *w)
{
    memset(w, 0, sizeof *w);
    uint32_t n, nlocks;
    const wasp_lock_blocked *e = wasp_profile_locks_blocked(p, &n);
    wasp_profile_locks(p, &nlocks);
    uint32_t cap = n + (n ? nlocks : 0);
    w->contexts = malloc((cap ? cap : 1) * sizeof *w->contexts);
    w->classes = calloc(cap ? cap : 1, sizeof *w->classes);
    if (!w->contexts || !w->classes) {
        wasp_lock_waits_free(w);
        return -1;
    }
    if (n)
        memcpy(w->contexts, e, n * sizeof *e);
    if (n)
        n += add_spins(p, monitor_where(p, e, n), w->contexts + n);
    qsort(w->contexts, n, sizeof *w->contexts, by_key);
    n = merge_equal(w->contexts, n);
    wasp_lock_blocked *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp) {
        wasp_lock_waits_free(w);
        return -1;
    }
    w->ncontexts = n;
    for (uint32_t i = 0; i < n;) {
        wasp_lock_waits_class *c = &w->classes[w->nclasses++];
        c->cls = w->contexts[i].cls;
        c->where = w->contexts[i].where;
        uint32_t j = i;
        for (; j < n && w->contexts[j].cls == c->cls && w->contexts[j].where == c->where; j++) {
            c->samples += w->contexts[j].samples;
            c->seconds += w->contexts[j].seconds;
        }
        if (rank_contexts(p, &w->contexts[i], j - i, tmp) != 0) {
            free(tmp);
            wasp_lock_waits_free(w);
            return -1;
        }
        c->contexts = &w->contexts[i];
        c->ncontexts = j - i;
        w->samples += c->samples;
        w->seconds += c->seconds;
        i = j;
    }
    free(tmp);
    qsort(w->classes, w->nclasses, sizeof *w->classes, class_rank);
    return 0;
}
