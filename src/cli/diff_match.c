/*
 * Matching the entries of two profiles (diff.h). Every pair and site of each
 * side gets a key spelled from its strings, never its ids: both sides' keys
 * are sorted together, and equal neighbours are the same entry.
 */
#include "analysis/objects/profile.h"
#include "analysis/replicas/profile.h"
#include "cli/diff.h"
#include "cli/render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing string; ok turns false for good when memory runs out. */
struct key {
    char *s;
    size_t len, cap;
    bool ok;
};

static void put(struct key *k, const char *s, size_t n)
{
    if (!k->ok)
        return;
    if (k->len + n + 1 > k->cap) {
        size_t cap = (k->cap ? k->cap * 2 : 128) + n;
        char *g = realloc(k->s, cap);
        if (!g) {
            k->ok = false;
            return;
        }
        k->s = g;
        k->cap = cap;
    }
    memcpy(k->s + k->len, s, n);
    k->len += n;
    k->s[k->len] = '\0';
}

static void puts_(struct key *k, const char *s)
{
    put(k, s ? s : "", strlen(s ? s : ""));
}

/* Control characters separate the parts: no Java name or file holds them. */
static void put_context(struct key *k, const wasp_profile *p, uint32_t ctx, bool with_insn)
{
    const wasp_context *c = &p->contexts[ctx];
    char num[32];
    for (uint32_t i = 0; i < c->nframes; i++) {
        const wasp_frame *f = &p->frames[p->frame_refs[c->first + i]];
        snprintf(num, sizeof num, "%u\x1f", (unsigned)f->kind);
        puts_(k, num);
        puts_(k, wasp_profile_string(p, f->name));
        put(k, "\x1f", 1);
        puts_(k, wasp_profile_string(p, f->file));
        snprintf(num, sizeof num, "\x1f%d\x1e", (int)f->line);
        puts_(k, num);
    }
    if (with_insn) {
        put(k, "\x1d", 1);
        puts_(k, wasp_profile_string(p, c->insn));
    }
}

struct builder {
    wasp_diff *d;
    uint32_t cap;
    bool with_insn;
};

static int add(struct builder *b, int side, int analysis, struct key *k, uint32_t index,
               uint32_t rank, double value)
{
    wasp_diff *d = b->d;
    if (!k->ok)
        return -1;
    if (d->n == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 64;
        wasp_diff_entry *g = realloc(d->entries, cap * sizeof *g);
        if (!g)
            return -1;
        d->entries = g;
        b->cap = cap;
    }
    wasp_diff_entry *e = &d->entries[d->n++];
    memset(e, 0, sizeof *e);
    e->analysis = analysis;
    e->key = k->s;
    *k = (struct key){.ok = true};
    e->index[0] = e->index[1] = UINT32_MAX;
    e->index[side] = index;
    e->rank[side] = rank;
    e->value[side] = value;
    double total = d->an[analysis].total[side];
    e->share[side] = total > 0 ? value / total : 0;
    return 0;
}

static int collect_pairs(struct builder *b, int side, wasp_analysis a)
{
    const wasp_profile *p = b->d->side[side];
    b->d->an[a].total[side] = p->totals[a].bytes;
    b->d->an[a].fraction[side] = wasp_fraction_prog(p, a);
    uint32_t n;
    uint32_t *order = wasp_profile_sorted_pairs(p, a, &n);
    if (!order)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        const wasp_pair *r = &p->pairs[order[i]];
        struct key k = {.ok = true};
        char head[32];
        snprintf(head, sizeof head, "P%u\x1c%u\x1c", (unsigned)a, (unsigned)r->flags);
        puts_(&k, head);
        put_context(&k, p, r->watch_ctx, b->with_insn);
        put(&k, "\x1c", 1);
        put_context(&k, p, r->trap_ctx, b->with_insn);
        rc = add(b, side, a, &k, order[i], i + 1, r->bytes);
        free(k.s);
    }
    free(order);
    return rc;
}

/* A site's key: its analysis, class and allocation frames. */
static void site_key(struct key *k, const wasp_profile *p, int analysis, uint32_t site)
{
    char head[16];
    snprintf(head, sizeof head, "S%d\x1c", analysis);
    puts_(k, head);
    puts_(k, wasp_profile_string(p, p->sites[site].class_name));
    put(k, "\x1c", 1);
    put_context(k, p, p->sites[site].ctx, false); /* allocations have no instruction */
}

static int collect_objects(struct builder *b, int side, int id)
{
    const wasp_profile *p = b->d->side[side];
    uint32_t n, nacc;
    const wasp_site_access *acc = wasp_profile_site_accesses(p, &nacc);
    double total = 0;
    for (uint32_t i = 0; i < nacc; i++)
        total += acc[i].samples;
    b->d->an[id].total[side] = total;
    uint32_t *order = wasp_profile_sorted_sites(p, &n);
    if (!order)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        double samples = wasp_profile_site_samples(p, order[i], NULL);
        if (samples <= 0)
            continue; /* no accesses: nothing to compare */
        struct key k = {.ok = true};
        site_key(&k, p, id, order[i]);
        rc = add(b, side, id, &k, order[i], i + 1, samples);
        free(k.s);
    }
    free(order);
    return rc;
}

static int collect_replicas(struct builder *b, int side, int id)
{
    const wasp_profile *p = b->d->side[side];
    uint32_t n, nrec;
    const wasp_replica *rec = wasp_profile_replicas(p, &nrec);
    double total = 0, same = 0;
    for (uint32_t i = 0; i < nrec; i++) {
        total += rec[i].same + rec[i].different;
        same += rec[i].same;
    }
    b->d->an[id].total[side] = total;
    b->d->an[id].fraction[side] = total > 0 ? same / total : 0;
    uint32_t *order = wasp_profile_sorted_replica_sites(p, &n);
    if (!order)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        double comparisons;
        double theta = wasp_replica_theta(p, order[i], &comparisons);
        if (theta * comparisons <= 0)
            continue; /* no equal values: no replicas found there */
        struct key k = {.ok = true};
        site_key(&k, p, id, order[i]);
        rc = add(b, side, id, &k, order[i], i + 1, theta * comparisons);
        free(k.s);
    }
    free(order);
    return rc;
}

static int collect(struct builder *b, int side)
{
    const wasp_profile *p = b->d->side[side];
    uint32_t shown = wasp_report_shown_analyses(p);
    for (int id = 0; id < WASP_ANALYSES; id++) {
        /* The analyses a diff compares (docs/diff.md); others are left out. */
        bool compared = id < WASP_AN_COUNT || id == WASP_ID_objects || id == WASP_ID_replicas;
        if (!(shown & (1u << id)) || !compared)
            continue;
        b->d->an[id].shown[side] = true;
        int rc = 0;
        if (id < WASP_AN_COUNT)
            rc = collect_pairs(b, side, (wasp_analysis)id);
        else if (id == WASP_ID_objects)
            rc = collect_objects(b, side, id);
        else if (id == WASP_ID_replicas)
            rc = collect_replicas(b, side, id);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Key order, before's entry ahead of after's. */
static int by_key(const void *x, const void *y)
{
    const wasp_diff_entry *a = x, *b = y;
    int c = strcmp(a->key, b->key);
    if (c)
        return c;
    return (a->index[0] == UINT32_MAX) - (b->index[0] == UINT32_MAX);
}

static double share_change(const wasp_diff_entry *e)
{
    return fabs(e->share[1] - e->share[0]);
}

/* By analysis, then the largest change of share first; ties by key. */
static int by_change(const void *x, const void *y)
{
    const wasp_diff_entry *a = x, *b = y;
    if (a->analysis != b->analysis)
        return a->analysis < b->analysis ? -1 : 1;
    double ca = share_change(a), cb = share_change(b);
    if (ca != cb)
        return ca > cb ? -1 : 1;
    return strcmp(a->key, b->key);
}

/* Folds each run of equal keys into its first entry. */
static void fold(wasp_diff *d)
{
    uint32_t out = 0;
    for (uint32_t i = 0; i < d->n; i++) {
        wasp_diff_entry *e = &d->entries[i];
        if (out > 0 && strcmp(d->entries[out - 1].key, e->key) == 0) {
            wasp_diff_entry *m = &d->entries[out - 1];
            for (int s = 0; s < 2; s++) {
                if (e->index[s] == UINT32_MAX)
                    continue;
                if (m->index[s] == UINT32_MAX) {
                    m->index[s] = e->index[s];
                    m->rank[s] = e->rank[s];
                }
                m->value[s] += e->value[s];
                m->share[s] += e->share[s];
            }
            free(e->key);
            continue;
        }
        d->entries[out++] = *e;
    }
    d->n = out;
}

int wasp_diff_build(const wasp_profile *before, const wasp_profile *after, bool with_insn,
                    wasp_diff *d)
{
    memset(d, 0, sizeof *d);
    d->side[0] = before;
    d->side[1] = after;
    char err[128];
    if (wasp_profile_check(before, err, sizeof err) != 0 ||
        wasp_profile_check(after, err, sizeof err) != 0)
        return -1;
    struct builder b = {.d = d, .with_insn = with_insn};
    if (collect(&b, 0) != 0 || collect(&b, 1) != 0) {
        wasp_diff_free(d);
        return -1;
    }
    if (d->n) {
        qsort(d->entries, d->n, sizeof *d->entries, by_key);
        fold(d);
        qsort(d->entries, d->n, sizeof *d->entries, by_change);
    }
    return 0;
}

void wasp_diff_free(wasp_diff *d)
{
    for (uint32_t i = 0; i < d->n; i++)
        free(d->entries[i].key);
    free(d->entries);
    d->entries = NULL;
    d->n = 0;
}

wasp_diff_change wasp_diff_change_of(const wasp_diff_entry *e)
{
    bool was = e->value[0] > 0, is = e->value[1] > 0;
    if (was && !is)
        return WASP_DIFF_VANISHED;
    if (!was && is)
        return WASP_DIFF_APPEARED;
    if (e->share[1] < e->share[0])
        return WASP_DIFF_SHRANK;
    if (e->share[1] > e->share[0])
        return WASP_DIFF_GREW;
    return WASP_DIFF_UNCHANGED;
}

const char *wasp_diff_change_name(wasp_diff_change c)
{
    static const char *const names[] = {"vanished", "appeared", "shrank", "grew", "unchanged"};
    return (unsigned)c < sizeof names / sizeof *names ? names[c] : "unchanged";
}
