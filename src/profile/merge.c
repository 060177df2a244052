/*
 * dst += src. Every id of src is translated through remap tables built by
 * re-interning src's strings, then frames, then contexts in dst, so equal
 * names collapse and pairs with equal keys sum. Sites are re-interned by
 * (allocation context, class) and their accesses by (site, access context),
 * so their numbers sum the same way. Replica records are re-added by (site,
 * access context) and sum; the checks of a site sum their pairs and
 * identical pairs and average α and the false-positive share weighted by pairs.
 */
#include "profile/internal.h"

#include <stdlib.h>

struct remap {
    uint32_t *str, *frame, *ctx, *refs, *site;
};

static void remap_free(struct remap *m)
{
    free(m->str);
    free(m->frame);
    free(m->ctx);
    free(m->refs);
    free(m->site);
}

static int merge_names(wasp_profile *dst, const wasp_profile *src, struct remap *m)
{
    for (uint32_t i = 0; i < src->nstrings; i++)
        if ((m->str[i] = wasp_profile_intern_string(dst, src->strings[i])) == WASP_NOID)
            return -1;
    for (uint32_t i = 0; i < src->nframes; i++) {
        wasp_frame f = src->frames[i];
        if (f.name >= src->nstrings || f.file >= src->nstrings)
            return -1;
        f.name = m->str[f.name];
        f.file = m->str[f.file];
        if ((m->frame[i] = wasp_profile_intern_frame(dst, &f)) == WASP_NOID)
            return -1;
    }
    for (uint32_t i = 0; i < src->ncontexts; i++) {
        const wasp_context *c = &src->contexts[i];
        if (c->insn >= src->nstrings || c->first > src->nframe_refs ||
            c->nframes > src->nframe_refs - c->first)
            return -1;
        for (uint32_t j = 0; j < c->nframes; j++) {
            uint32_t f = src->frame_refs[c->first + j];
            if (f >= src->nframes)
                return -1;
            m->refs[j] = m->frame[f];
        }
        m->ctx[i] = wasp_profile_intern_context(dst, m->refs, c->nframes, m->str[c->insn]);
        if (m->ctx[i] == WASP_NOID)
            return -1;
    }
    return 0;
}

static int merge_values(wasp_profile *dst, const wasp_profile *src, const struct remap *m)
{
    for (uint32_t i = 0; i < src->npairs; i++) {
        const wasp_pair *q = &src->pairs[i];
        if (q->watch_ctx >= src->ncontexts || q->trap_ctx >= src->ncontexts ||
            wasp_profile_add_pair_checked(dst, (wasp_analysis)q->analysis, q->flags,
                                          m->ctx[q->watch_ctx], m->ctx[q->trap_ctx], q->bytes,
                                          q->count) != 0)
            return -1;
    }
    for (uint32_t i = 0; i < src->nsites; i++) {
        const wasp_site *s = &src->sites[i];
        if (s->ctx >= src->ncontexts || s->class_name >= src->nstrings ||
            (m->site[i] = wasp_profile_intern_site(dst, m->ctx[s->ctx], m->str[s->class_name])) ==
                WASP_NOID ||
            wasp_profile_add_site_allocs_checked(dst, m->site[i], s->allocations, s->bytes) != 0)
            return -1;
    }
    for (uint32_t i = 0; i < src->naccesses; i++) {
        const wasp_site_access *a = &src->accesses[i];
        if (a->site >= src->nsites || a->access_ctx >= src->ncontexts ||
            wasp_profile_add_site_access_checked(dst, m->site[a->site], m->ctx[a->access_ctx],
                                                 a->samples, a->remote) != 0)
            return -1;
    }
    for (uint32_t i = 0; i < src->nreplicas; i++) {
        const wasp_replica *r = &src->replicas[i];
        if (r->site >= src->nsites || r->access_ctx >= src->ncontexts ||
            wasp_profile_add_replica_checked(dst, m->site[r->site], m->ctx[r->access_ctx], r->same,
                                             r->different) != 0)
            return -1;
    }
    for (uint32_t i = 0; i < src->nreplica_checks; i++) {
        wasp_replica_check c = src->replica_checks[i];
        if (c.site >= src->nsites)
            return -1;
        c.site = m->site[c.site];
        if (wasp_profile_merge_replica_check_checked(dst, &c) != 0)
            return -1;
    }
    for (int a = 0; a < WASP_AN_COUNT; a++)
        wasp_profile_add_totals(dst, (wasp_analysis)a, &src->totals[a]);
    for (uint32_t i = 0; i < src->ncounters; i++)
        if (wasp_profile_add_counter_checked(dst, src->counters[i].name, src->counters[i].value) !=
            0)
            return -1;
    for (uint32_t i = 0; i < src->nmeta; i++)
        if (!wasp_profile_get_meta(dst, src->meta[i].key) &&
            wasp_profile_set_meta_checked(dst, src->meta[i].key, src->meta[i].value) != 0)
            return -1;
    dst->merged += src->merged;
    return 0;
}

/* On failure dst may hold part of src (its names, some pairs); callers drop it. */
int wasp_profile_merge(wasp_profile *dst, const wasp_profile *src)
{
    if (dst == src)
        return -1; /* would read src while growing it */
    uint32_t maxdepth = 1;
    for (uint32_t i = 0; i < src->ncontexts; i++)
        if (src->contexts[i].nframes > maxdepth)
            maxdepth = src->contexts[i].nframes;
    struct remap m = {
        .str = malloc(((size_t)src->nstrings + 1) * sizeof(uint32_t)),
        .frame = malloc(((size_t)src->nframes + 1) * sizeof(uint32_t)),
        .ctx = malloc(((size_t)src->ncontexts + 1) * sizeof(uint32_t)),
        .refs = malloc((size_t)maxdepth * sizeof(uint32_t)),
        .site = malloc(((size_t)src->nsites + 1) * sizeof(uint32_t)),
    };
    int rc = -1;
    if (m.str && m.frame && m.ctx && m.refs && m.site && merge_names(dst, src, &m) == 0 &&
        merge_values(dst, src, &m) == 0)
        rc = 0;
    remap_free(&m);
    return rc;
}
