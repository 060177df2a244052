/*
 * Grouping by source line (group.h). Every context a pair uses gets a class:
 * its frame list within one slot, a slot being an analysis (so a dead-store
 * entry shows a store instruction even when a silent-load entry on the same
 * line shows a load), the object accesses, the allocation sites, or the
 * contexts of replica comparisons.
 * Contexts are numbered per slot here: v = context * NSLOTS + slot. p's
 * frames are interned, so equal frame lists are equal id sequences and the
 * class index can compare ids. Each class becomes one context of the new
 * profile, and the pairs, sites and accesses are re-added through it, which
 * sums the ones that now share a key.
 */
#include "profile/group.h"
#include "profile/hindex.h"
#include "profile/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Slots 0 .. WASP_AN_COUNT-1 are the analyses' pair contexts. */
enum {
    SLOT_ACCESS = WASP_AN_COUNT,
    SLOT_ALLOC = WASP_AN_COUNT + 1,
    SLOT_REPLICA = WASP_AN_COUNT + 2, /* where replica comparisons were made */
    NSLOTS = WASP_AN_COUNT + 3
};

struct group {
    const wasp_profile *p;
    wasp_profile *q;
    wasp_hindex *index;     /* frame list -> class */
    uint32_t *cls;          /* v -> class; WASP_NOID while nothing uses it */
    double *weight;         /* v -> bytes of the pairs (samples of the accesses,
                               bytes of the sites) using it */
    uint32_t *member;       /* class -> a v of it (the index's key) */
    uint32_t *shown;        /* class -> the v whose instruction it shows */
    uint32_t *ninsn;        /* class -> distinct known instructions */
    uint32_t *out;          /* class -> q context */
    uint32_t *str, *frame;  /* p id -> q id; WASP_NOID until interned */
    uint32_t *refs;         /* room for the deepest context's frames */
    uint32_t *site;         /* p site -> q site */
    uint32_t nclasses;
};

/* The ids the code below follows must be in range (as wasp_profile_merge checks). */
static bool consistent(const wasp_profile *p, uint32_t *maxdepth)
{
    *maxdepth = 1;
    for (uint32_t i = 0; i < p->nframes; i++)
        if (p->frames[i].name >= p->nstrings || p->frames[i].file >= p->nstrings)
            return false;
    for (uint32_t i = 0; i < p->ncontexts; i++) {
        const wasp_context *c = &p->contexts[i];
        if (c->insn >= p->nstrings || c->first > p->nframe_refs ||
            c->nframes > p->nframe_refs - c->first)
            return false;
        for (uint32_t k = 0; k < c->nframes; k++)
            if (p->frame_refs[c->first + k] >= p->nframes)
                return false;
        if (c->nframes > *maxdepth)
            *maxdepth = c->nframes;
    }
    for (uint32_t i = 0; i < p->npairs; i++)
        if (p->pairs[i].watch_ctx >= p->ncontexts || p->pairs[i].trap_ctx >= p->ncontexts ||
            p->pairs[i].analysis >= WASP_AN_COUNT)
            return false;
    for (uint32_t i = 0; i < p->nsites; i++)
        if (p->sites[i].ctx >= p->ncontexts || p->sites[i].class_name >= p->nstrings)
            return false;
    for (uint32_t i = 0; i < p->naccesses; i++)
        if (p->accesses[i].site >= p->nsites || p->accesses[i].access_ctx >= p->ncontexts)
            return false;
    for (uint32_t i = 0; i < p->nreplicas; i++)
        if (p->replicas[i].site >= p->nsites || p->replicas[i].access_ctx >= p->ncontexts)
            return false;
    for (uint32_t i = 0; i < p->nreplica_checks; i++)
        if (p->replica_checks[i].site >= p->nsites)
            return false;
    return true;
}

struct class_key {
    const struct group *g;
    const uint32_t *frames;
    uint32_t n;
    uint32_t slot;
};

static const wasp_context *vcontext(const struct group *g, uint32_t v)
{
    return &g->p->contexts[v / NSLOTS];
}

static bool class_eq(const void *ctx, uint32_t cls)
{
    const struct class_key *k = ctx;
    const wasp_profile *p = k->g->p;
    const wasp_context *c = vcontext(k->g, k->g->member[cls]);
    return c->nframes == k->n && k->g->member[cls] % NSLOTS == k->slot &&
           (k->n == 0 ||
            memcmp(&p->frame_refs[c->first], k->frames, k->n * sizeof *k->frames) == 0);
}

/* The class of p context ctx in slot a, created on first use; WASP_NOID
 * when out of memory. */
static uint32_t class_of(struct group *g, uint32_t ctx, uint32_t a)
{
    uint32_t v = ctx * NSLOTS + a;
    if (g->cls[v] != WASP_NOID)
        return g->cls[v];
    const wasp_context *c = &g->p->contexts[ctx];
    struct class_key k = {g, &g->p->frame_refs[c->first], c->nframes, a};
    uint32_t h = wasp_fnv1a_u32(wasp_fnv1a_u32(WASP_FNV_INIT, a), k.n);
    for (uint32_t i = 0; i < k.n; i++)
        h = wasp_fnv1a_u32(h, k.frames[i]);
    uint32_t id = wasp_hindex_find(g->index, h, class_eq, &k);
    if (id == WASP_HINDEX_NONE) {
        id = g->nclasses;
        if (wasp_hindex_add(g->index, h, id) != 0)
            return WASP_NOID;
        g->member[id] = v;
        g->shown[id] = WASP_NOID;
        g->ninsn[id] = 0;
        g->nclasses++;
    }
    /* p's contexts are interned: the members of a class differ in instruction. */
    g->ninsn[id] += c->insn != 0;
    return g->cls[v] = id;
}

/* Does p context a make a better face for its class than b? */
static bool better(const struct group *g, uint32_t a, uint32_t b)
{
    if (b == WASP_NOID)
        return true;
    bool ka = vcontext(g, a)->insn != 0, kb = vcontext(g, b)->insn != 0;
    if (ka != kb)
        return ka;
    return g->weight[a] > g->weight[b]; /* ties: b, the lower id, stays */
}

static uint32_t qstr(struct group *g, uint32_t id)
{
    if (g->str[id] == WASP_NOID)
        g->str[id] = wasp_profile_intern_string(g->q, g->p->strings[id]);
    return g->str[id];
}

static uint32_t qframe(struct group *g, uint32_t id)
{
    if (g->frame[id] == WASP_NOID) {
        wasp_frame f = g->p->frames[id];
        f.name = qstr(g, f.name);
        f.file = qstr(g, f.file);
        if (f.name != WASP_NOID && f.file != WASP_NOID)
            g->frame[id] = wasp_profile_intern_frame(g->q, &f);
    }
    return g->frame[id];
}

/* The instruction string a class shows: the chosen one, plus how many others it stands for. */
static uint32_t class_insn(struct group *g, uint32_t cls)
{
    uint32_t insn = vcontext(g, g->shown[cls])->insn;
    uint32_t more = g->ninsn[cls] > 1 ? g->ninsn[cls] - 1 : 0;
    if (insn == 0 || more == 0)
        return qstr(g, insn);
    const char *s = g->p->strings[insn];
    size_t n = strlen(s) + 48;
    char *buf = malloc(n);
    if (!buf)
        return WASP_NOID;
    snprintf(buf, n, "%s (+%u more instruction%s)", s, (unsigned)more, more == 1 ? "" : "s");
    uint32_t id = wasp_profile_intern_string(g->q, buf);
    free(buf);
    return id;
}

static int class_context(struct group *g, uint32_t cls)
{
    const wasp_context *c = vcontext(g, g->member[cls]);
    for (uint32_t k = 0; k < c->nframes; k++)
        if ((g->refs[k] = qframe(g, g->p->frame_refs[c->first + k])) == WASP_NOID)
            return -1;
    uint32_t insn = class_insn(g, cls);
    if (insn == WASP_NOID)
        return -1;
    g->out[cls] = wasp_profile_intern_context(g->q, g->refs, c->nframes, insn);
    return g->out[cls] == WASP_NOID ? -1 : 0;
}

static int build(struct group *g)
{
    const wasp_profile *p = g->p;
    wasp_profile *q = g->q;
    for (uint32_t i = 0; i < p->nmeta; i++)
        if (wasp_profile_set_meta_checked(q, p->meta[i].key, p->meta[i].value) != 0)
            return -1;
    for (uint32_t i = 0; i < p->ncounters; i++)
        if (wasp_profile_add_counter_checked(q, p->counters[i].name, p->counters[i].value) != 0)
            return -1;
    memcpy(q->totals, p->totals, sizeof q->totals);
    q->merged = p->merged;

    for (uint32_t i = 0; i < p->npairs; i++) {
        const wasp_pair *r = &p->pairs[i];
        if (class_of(g, r->watch_ctx, r->analysis) == WASP_NOID ||
            class_of(g, r->trap_ctx, r->analysis) == WASP_NOID)
            return -1;
        g->weight[r->watch_ctx * NSLOTS + r->analysis] += r->bytes;
        if (r->trap_ctx != r->watch_ctx)
            g->weight[r->trap_ctx * NSLOTS + r->analysis] += r->bytes;
    }
    for (uint32_t i = 0; i < p->nsites; i++) {
        if (class_of(g, p->sites[i].ctx, SLOT_ALLOC) == WASP_NOID)
            return -1;
        g->weight[p->sites[i].ctx * NSLOTS + SLOT_ALLOC] += p->sites[i].bytes;
    }
    for (uint32_t i = 0; i < p->naccesses; i++) {
        if (class_of(g, p->accesses[i].access_ctx, SLOT_ACCESS) == WASP_NOID)
            return -1;
        g->weight[p->accesses[i].access_ctx * NSLOTS + SLOT_ACCESS] += p->accesses[i].samples;
    }
    for (uint32_t i = 0; i < p->nreplicas; i++) {
        const wasp_replica *r = &p->replicas[i];
        if (class_of(g, r->access_ctx, SLOT_REPLICA) == WASP_NOID)
            return -1;
        g->weight[r->access_ctx * NSLOTS + SLOT_REPLICA] += r->same + r->different;
    }
    /* ascending ids: ties keep the lower */
    for (uint32_t v = 0; v < p->ncontexts * NSLOTS; v++)
        if (g->cls[v] != WASP_NOID && better(g, v, g->shown[g->cls[v]]))
            g->shown[g->cls[v]] = v;
    for (uint32_t c = 0; c < g->nclasses; c++)
        if (class_context(g, c) != 0)
            return -1;
    for (uint32_t i = 0; i < p->npairs; i++) {
        const wasp_pair *r = &p->pairs[i];
        if (wasp_profile_add_pair_checked(q, (wasp_analysis)r->analysis, r->flags,
                                          g->out[g->cls[r->watch_ctx * NSLOTS + r->analysis]],
                                          g->out[g->cls[r->trap_ctx * NSLOTS + r->analysis]],
                                          r->bytes, r->count) != 0)
            return -1;
    }
    for (uint32_t i = 0; i < p->nsites; i++) {
        const wasp_site *s = &p->sites[i];
        uint32_t cls = qstr(g, s->class_name);
        if (cls == WASP_NOID ||
            (g->site[i] = wasp_profile_intern_site(q, g->out[g->cls[s->ctx * NSLOTS + SLOT_ALLOC]],
                                                   cls)) == WASP_NOID ||
            wasp_profile_add_site_allocs_checked(q, g->site[i], s->allocations, s->bytes) != 0)
            return -1;
    }
    for (uint32_t i = 0; i < p->naccesses; i++) {
        const wasp_site_access *a = &p->accesses[i];
        if (wasp_profile_add_site_access_checked(
                q, g->site[a->site], g->out[g->cls[a->access_ctx * NSLOTS + SLOT_ACCESS]],
                a->samples, a->remote) != 0)
            return -1;
    }
    for (uint32_t i = 0; i < p->nreplicas; i++) {
        const wasp_replica *r = &p->replicas[i];
        if (wasp_profile_add_replica_checked(
                q, g->site[r->site], g->out[g->cls[r->access_ctx * NSLOTS + SLOT_REPLICA]],
                r->same, r->different) != 0)
            return -1;
    }
    for (uint32_t i = 0; i < p->nreplica_checks; i++) {
        wasp_replica_check c = p->replica_checks[i];
        c.site = g->site[c.site];
        if (wasp_profile_merge_replica_check_checked(q, &c) != 0)
            return -1;
    }
    return 0;
}

static uint32_t *ids(uint32_t n)
{
    uint32_t *a = malloc(((size_t)n + 1) * sizeof *a);
    if (a)
        memset(a, 0xff, ((size_t)n + 1) * sizeof *a); /* every entry WASP_NOID */
    return a;
}

wasp_profile *wasp_profile_group_by_line(const wasp_profile *p)
{
    uint32_t maxdepth;
    if (!consistent(p, &maxdepth) || p->ncontexts > (UINT32_MAX - 1) / NSLOTS)
        return NULL;
    uint32_t n = p->ncontexts * NSLOTS;
    struct group g = {
        .p = p,
        .q = wasp_profile_new(),
        .index = wasp_hindex_new(),
        .cls = ids(n),
        .weight = calloc((size_t)n + 1, sizeof(double)),
        .member = ids(n),
        .shown = ids(n),
        .ninsn = ids(n),
        .out = ids(n),
        .str = ids(p->nstrings),
        .frame = ids(p->nframes),
        .refs = ids(maxdepth),
        .site = ids(p->nsites),
    };
    bool ok = g.q && g.index && g.cls && g.weight && g.member && g.shown && g.ninsn && g.out &&
              g.str && g.frame && g.refs && g.site && build(&g) == 0;
    wasp_hindex_free(g.index);
    free(g.cls);
    free(g.weight);
    free(g.member);
    free(g.shown);
    free(g.ninsn);
    free(g.out);
    free(g.str);
    free(g.frame);
    free(g.refs);
    free(g.site);
    if (!ok) {
        wasp_profile_free(g.q);
        return NULL;
    }
    return g.q;
}
