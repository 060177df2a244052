/*
 * Grouping by source line (group.h). Every context the profile uses gets a
 * class: its frame list within one slot, a slot being a kind of context —
 * one for allocation sites, and each analysis part's roles (part.h: the
 * pairs of each pair analysis, so a dead-store entry shows a store
 * instruction even when a silent-load entry on the same line shows a load;
 * the object accesses, the replica comparisons...). Contexts are numbered per slot
 * here: v = context * nslots + slot. p's frames are interned, so equal frame
 * lists are equal id sequences and the class index can compare ids. Each
 * class becomes one context of the new profile, and the sites and each
 * part's data are re-added through it (a merge whose id map sends a
 * context to its class), which sums the ones that now share a key.
 *
 * Grouping by method (WASP_GROUP_METHOD) keys a context by its frames'
 * methods: each frame is first sent to a representative frame of its
 * (kind, name, file), canon[] below, and the class's frames show no line.
 * A filter (wasp_context_filter, --include/--exclude) sends the classes it
 * hides to one stand-in context, as pruning does.
 *
 * Pruning (wasp_profile_prune) runs the same machinery with a class per
 * context (exact), then sends each slot's lightest classes to one
 * placeholder context: the entries that used them are summed under it, so
 * every total stays what it was and only the detail of the long tail goes.
 */
#include "profile/group.h"
#include "profile/hindex.h"
#include "profile/internal.h"
#include "profile/thread_frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct group {
    const wasp_profile *p;
    wasp_profile *q;
    wasp_hindex *index;     /* frame list -> class */
    uint32_t *cls;          /* v -> class; WASP_NOID while nothing uses it */
    double *weight;         /* v -> what uses it weighs (the bytes of the sites,
                               what each part says: part.h) */
    uint32_t *member;       /* class -> a v of it (the index's key) */
    uint32_t *shown;        /* class -> the v whose instruction it shows */
    uint32_t *ninsn;        /* class -> distinct known instructions */
    uint32_t *out;          /* class -> q context */
    uint32_t *str, *frame;  /* p id -> q id; WASP_NOID until interned */
    uint32_t *refs;         /* room for the deepest context's frames */
    uint32_t *site;         /* p site -> q site */
    uint32_t *canon;        /* p frame -> the p frame a class key uses for it */
    const wasp_context_filter *filter; /* NULL: none */
    uint32_t nclasses;
    uint32_t nslots;        /* wasp_profile_slots() */
    wasp_group_key key;     /* EXACT: a class per context and slot (pruning), else per
                               frame list (LINE) or method list (METHOD) */
    uint32_t keep;          /* pruning: classes kept per slot; 0 keeps all */
    uint32_t pruned;        /* classes sent to the placeholder */
    /* pruning: the threads' own placeholders (pruned_stand_in) */
    uint32_t thread_frame[WASP_GROUP_THREADS], thread_stand[WASP_GROUP_THREADS];
    uint32_t nthreads;
};

/* What a part's weigh sees (part.h): the grouping, and its role 0's slot. */
struct wasp_context_weights {
    struct group *g;
    uint32_t slot;
};

/* The ids the code below follows must be in range (wasp_profile_check). */
static bool consistent(const wasp_profile *p, uint32_t *maxdepth)
{
    char why[128];
    *maxdepth = 1;
    for (uint32_t i = 0; i < p->ncontexts; i++)
        if (p->contexts[i].nframes > *maxdepth)
            *maxdepth = p->contexts[i].nframes;
    return wasp_profile_check(p, why, sizeof why) == 0;
}

struct class_key {
    const struct group *g;
    const uint32_t *frames;
    uint32_t n;
    uint32_t slot;
};

static const wasp_context *vcontext(const struct group *g, uint32_t v)
{
    return &g->p->contexts[v / g->nslots];
}

static bool class_eq(const void *ctx, uint32_t cls)
{
    const struct class_key *k = ctx;
    const wasp_profile *p = k->g->p;
    const wasp_context *c = vcontext(k->g, k->g->member[cls]);
    if (c->nframes != k->n || k->g->member[cls] % k->g->nslots != k->slot)
        return false;
    for (uint32_t i = 0; i < k->n; i++)
        if (k->g->canon[p->frame_refs[c->first + i]] != k->g->canon[k->frames[i]])
            return false;
    return true;
}

/* The class of p context ctx in slot a, created on first use; WASP_NOID
 * when out of memory. */
static uint32_t class_of(struct group *g, uint32_t ctx, uint32_t a)
{
    uint32_t v = ctx * g->nslots + a;
    if (g->cls[v] != WASP_NOID)
        return g->cls[v];
    const wasp_context *c = &g->p->contexts[ctx];
    uint32_t id = WASP_HINDEX_NONE, h = 0;
    struct class_key k = {g, &g->p->frame_refs[c->first], c->nframes, a};
    if (g->key != WASP_GROUP_EXACT) { /* exact: every context is a class of its own */
        h = wasp_fnv1a_u32(wasp_fnv1a_u32(WASP_FNV_INIT, a), k.n);
        for (uint32_t i = 0; i < k.n; i++)
            h = wasp_fnv1a_u32(h, g->canon[k.frames[i]]);
        id = wasp_hindex_find(g->index, h, class_eq, &k);
    }
    if (id == WASP_HINDEX_NONE) {
        id = g->nclasses;
        if (g->key != WASP_GROUP_EXACT && wasp_hindex_add(g->index, h, id) != 0)
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
        if (g->key == WASP_GROUP_METHOD)
            f.line = -1;
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
        if ((g->refs[k] = qframe(g, g->canon[g->p->frame_refs[c->first + k]])) == WASP_NOID)
            return -1;
    uint32_t insn = class_insn(g, cls);
    if (insn == WASP_NOID)
        return -1;
    g->out[cls] = wasp_profile_intern_context(g->q, g->refs, c->nframes, insn);
    return g->out[cls] == WASP_NOID ? -1 : 0;
}

/* The context that stands for the pruned (or hidden) ones: one frame that
 * says what it is, no instruction, under root (a q frame: a thread's) when
 * there is one (root_given). Each pruning interns the same one, so a later
 * pruning sums into it. */
static uint32_t placeholder(struct group *g, bool root_given, uint32_t root, const char *name)
{
    wasp_frame f = {.kind = WASP_FRAME_UNKNOWN, .line = -1};
    f.name = wasp_profile_intern_string(g->q, name);
    if (f.name == WASP_NOID || (root_given && root == WASP_NOID))
        return WASP_NOID;
    uint32_t frames[2] = {root, wasp_profile_intern_frame(g->q, &f)};
    if (frames[1] == WASP_NOID)
        return WASP_NOID;
    return wasp_profile_intern_context(g->q, frames + !root_given, 1 + root_given, 0);
}

/* A pruned class's placeholder: its thread's own when its context has one
 * (thread_frame.h), so that --thread still counts the thread's pruned
 * evidence; the shared one without, or past WASP_GROUP_THREADS threads. */
static uint32_t pruned_stand_in(struct group *g, uint32_t cls, uint32_t shared)
{
    const wasp_context *x = vcontext(g, g->member[cls]);
    size_t len;
    if (!wasp_context_thread(g->p, x, &len))
        return shared;
    uint32_t root = g->p->frame_refs[x->first];
    for (uint32_t i = 0; i < g->nthreads; i++)
        if (g->thread_frame[i] == root)
            return g->thread_stand[i];
    if (g->nthreads == WASP_GROUP_THREADS)
        return shared;
    uint32_t c = placeholder(g, true, qframe(g, root), WASP_PRUNED_FRAME);
    if (c != WASP_NOID) {
        g->thread_frame[g->nthreads] = root;
        g->thread_stand[g->nthreads++] = c;
    }
    return c;
}

/* How many classes each slot keeps of g->keep in all: shared evenly, a
 * slot that needs less than its share leaving the rest to the others
 * (a run of one analysis keeps as many as a run of all of them). */
static void share_out(const struct group *g, const uint32_t *used, uint32_t *keep)
{
    uint32_t left = g->keep, open = 0;
    for (uint32_t s = 0; s < g->nslots; s++) {
        keep[s] = WASP_NOID;
        open += used[s] > 0;
    }
    while (open) {
        uint32_t share = left / open, smallest = WASP_NOID;
        for (uint32_t s = 0; s < g->nslots; s++)
            if (keep[s] == WASP_NOID && used[s] &&
                (smallest == WASP_NOID || used[s] < used[smallest]))
                smallest = s;
        if (used[smallest] > share) { /* every open slot needs more than its share */
            for (uint32_t s = 0; s < g->nslots; s++)
                if (keep[s] == WASP_NOID && used[s])
                    keep[s] = share > 0 ? share : 1;
            return;
        }
        keep[smallest] = used[smallest];
        left -= used[smallest];
        open--;
    }
}

/* The slot's classes past its keep heaviest go to the placeholder. */
static int prune_slot(struct group *g, uint32_t slot, const double *weight, uint32_t keep,
                      uint32_t *stand_in)
{
    uint32_t n = 0;
    for (uint32_t c = 0; c < g->nclasses; c++)
        n += g->member[c] % g->nslots == slot;
    if (n <= keep)
        return 0;
    if (*stand_in == WASP_NOID &&
        (*stand_in = placeholder(g, false, 0, WASP_PRUNED_FRAME)) == WASP_NOID)
        return -1;
    wasp_ranked *r = malloc((size_t)n * sizeof *r);
    if (!r)
        return -1;
    n = 0;
    for (uint32_t c = 0; c < g->nclasses; c++)
        if (g->member[c] % g->nslots == slot)
            r[n++] = (wasp_ranked){.weight = {weight[c]}, .key = {c}, .index = c};
    uint32_t *order = wasp_ranked_order(r, n); /* frees r */
    if (!order)
        return -1;
    for (uint32_t k = keep; k < n; k++)
        if ((g->out[order[k]] = pruned_stand_in(g, order[k], *stand_in)) == WASP_NOID) {
            free(order);
            return -1;
        }
    g->pruned += n - keep;
    free(order);
    return 0;
}

/* Each slot keeps its share of g->keep classes, the heaviest. */
static int prune_lightest(struct group *g)
{
    double *weight = calloc((size_t)g->nclasses + 1, sizeof *weight);
    uint32_t *used = calloc(g->nslots, sizeof *used), *keep = calloc(g->nslots, sizeof *keep);
    uint32_t stand_in = WASP_NOID; /* made when first needed */
    int rc = weight && used && keep ? 0 : -1;
    for (uint32_t v = 0; rc == 0 && v < g->p->ncontexts * g->nslots; v++)
        if (g->cls[v] != WASP_NOID)
            weight[g->cls[v]] += g->weight[v];
    for (uint32_t c = 0; rc == 0 && c < g->nclasses; c++)
        used[g->member[c] % g->nslots]++;
    if (rc == 0)
        share_out(g, used, keep);
    for (uint32_t s = 0; rc == 0 && s < g->nslots; s++)
        if (used[s])
            rc = prune_slot(g, s, weight, keep[s], &stand_in);
    free(weight);
    free(used);
    free(keep);
    return rc;
}

/* The classes the filter hides go to its stand-in. */
static int hide_filtered(struct group *g)
{
    uint32_t stand_in = WASP_NOID;
    for (uint32_t c = 0; c < g->nclasses; c++) {
        const wasp_context *x = vcontext(g, g->member[c]);
        if (!g->filter->hide(g->p, x, g->filter->arg))
            continue;
        if (stand_in == WASP_NOID &&
            (stand_in = placeholder(g, false, 0, g->filter->frame)) == WASP_NOID)
            return -1;
        g->out[c] = stand_in;
    }
    return 0;
}

/* Context ctx is used in slot with that weight. */
static int weigh(struct group *g, uint32_t slot, uint32_t ctx, double weight)
{
    if (class_of(g, ctx, slot) == WASP_NOID)
        return -1;
    g->weight[ctx * g->nslots + slot] += weight;
    return 0;
}

int wasp_weigh_context(wasp_context_weights *w, uint32_t role, uint32_t ctx, double weight)
{
    return weigh(w->g, w->slot + role, ctx, weight);
}

/* Every context in use, with its weight: the sites' bytes, and what each
 * part says. */
static int weigh_all(struct group *g)
{
    const wasp_profile *p = g->p;
    for (uint32_t i = 0; i < p->nsites; i++)
        if (weigh(g, WASP_SLOT_ALLOC, p->sites[i].ctx, p->sites[i].bytes) != 0)
            return -1;
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_profile_part *part = wasp_profile_part_of(id);
        wasp_context_weights w = {g, wasp_profile_part_slot(id)};
        if (p->parts[id] && part->weigh && part->weigh(p, &w) != 0)
            return -1;
    }
    return 0;
}

/* The id map of the re-adding: a context goes to its class's context. */
static uint32_t grouped_context(const wasp_id_map *m, uint32_t slot, uint32_t ctx)
{
    const struct group *g = m->state;
    uint32_t cls = g->cls[ctx * g->nslots + slot];
    /* A context no weighing record used (a malformed file's bytes record
     * whose creation is missing): none, and the record is left out. */
    return cls == WASP_NOID ? WASP_NOID : g->out[cls];
}

static uint32_t grouped_string(const wasp_id_map *m, uint32_t id)
{
    return qstr(m->state, id);
}

static int build(struct group *g)
{
    const wasp_profile *p = g->p;
    wasp_profile *q = g->q;
    for (uint32_t i = 0; i < p->nmeta; i++)
        if (wasp_profile_copy_meta_checked(q, &p->meta[i]) != 0)
            return -1;
    for (uint32_t i = 0; i < p->ncounters; i++)
        if (wasp_profile_add_counter_checked(q, p->counters[i].name, p->counters[i].value) != 0)
            return -1;
    q->merged = p->merged;

    if (weigh_all(g) != 0)
        return -1;
    /* ascending ids: ties keep the lower */
    for (uint32_t v = 0; v < p->ncontexts * g->nslots; v++)
        if (g->cls[v] != WASP_NOID && better(g, v, g->shown[g->cls[v]]))
            g->shown[g->cls[v]] = v;
    if (g->filter && hide_filtered(g) != 0)
        return -1;
    if (g->keep && prune_lightest(g) != 0)
        return -1;
    for (uint32_t c = 0; c < g->nclasses; c++)
        if (g->out[c] == WASP_NOID && class_context(g, c) != 0)
            return -1;
    wasp_id_map m = {.str = grouped_string, .ctx = grouped_context, .state = g, .site = g->site,
                     .by_method = g->key == WASP_GROUP_METHOD};
    return wasp_profile_merge_sites_and_parts(q, p, &m);
}

static uint32_t *ids(uint32_t n)
{
    uint32_t *a = malloc(((size_t)n + 1) * sizeof *a);
    if (a)
        memset(a, 0xff, ((size_t)n + 1) * sizeof *a); /* every entry WASP_NOID */
    return a;
}

static bool same_method(const void *ctx, uint32_t id)
{
    const wasp_frame *const *k = ctx;
    const wasp_frame *a = k[0], *b = &k[1][id];
    return a->kind == b->kind && a->name == b->name && a->file == b->file;
}

/* canon[f]: f itself, or under METHOD the first frame of f's (kind, name,
 * file). false when out of memory. */
static bool canonical_frames(const wasp_profile *p, wasp_group_key key, uint32_t *canon)
{
    wasp_hindex *index = key == WASP_GROUP_METHOD ? wasp_hindex_new() : NULL;
    bool ok = key != WASP_GROUP_METHOD || index;
    for (uint32_t i = 0; ok && i < p->nframes; i++) {
        canon[i] = i;
        if (!index)
            continue;
        const wasp_frame *f = &p->frames[i];
        const wasp_frame *k[2] = {f, p->frames};
        uint32_t h = wasp_fnv1a_u32(wasp_fnv1a_u32(wasp_fnv1a_u32(WASP_FNV_INIT, f->kind),
                                                   f->name), f->file);
        uint32_t found = wasp_hindex_find(index, h, same_method, k);
        if (found != WASP_HINDEX_NONE)
            canon[i] = found;
        else
            ok = wasp_hindex_add(index, h, i) == 0;
    }
    wasp_hindex_free(index);
    return ok;
}

static wasp_profile *regroup(const wasp_profile *p, wasp_group_key key,
                             const wasp_context_filter *filter, uint32_t keep, uint32_t *pruned)
{
    uint32_t maxdepth;
    uint32_t nslots = wasp_profile_slots();
    if (!consistent(p, &maxdepth) || p->ncontexts > (UINT32_MAX - 1) / nslots)
        return NULL;
    uint32_t n = p->ncontexts * nslots;
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
        .canon = ids(p->nframes),
        .filter = filter,
        .nslots = nslots,
        .key = key,
        .keep = keep,
    };
    bool ok = g.q && g.index && g.cls && g.weight && g.member && g.shown && g.ninsn && g.out &&
              g.str && g.frame && g.refs && g.site && g.canon &&
              canonical_frames(p, key, g.canon) && build(&g) == 0;
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
    free(g.canon);
    if (!ok) {
        wasp_profile_free(g.q);
        return NULL;
    }
    if (pruned)
        *pruned = g.pruned;
    return g.q;
}

wasp_profile *wasp_profile_group_by_line(const wasp_profile *p)
{
    return regroup(p, WASP_GROUP_LINE, NULL, 0, NULL);
}

wasp_profile *wasp_profile_group(const wasp_profile *p, wasp_group_key key,
                                 const wasp_context_filter *filter)
{
    return regroup(p, key, filter, 0, NULL);
}

wasp_profile *wasp_profile_prune(const wasp_profile *p, uint32_t keep, uint32_t *pruned)
{
    return regroup(p, WASP_GROUP_EXACT, NULL, keep ? keep : 1, pruned);
}
