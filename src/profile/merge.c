/*
 * dst += src. Every id of src is translated through remap tables built by
 * re-interning src's strings, then frames, then contexts in dst, so equal
 * names collapse. Sites are re-interned by
 * (allocation context, class), so their numbers sum the same way; each
 * analysis's part merges its own data through the same id map (part.h).
 */
#include "profile/cpu_lines.h"
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

/* src passed wasp_profile_check: its ids are followed without checks. */
static int merge_names(wasp_profile *dst, const wasp_profile *src, struct remap *m)
{
    for (uint32_t i = 0; i < src->nstrings; i++)
        if ((m->str[i] = wasp_profile_intern_string(dst, src->strings[i])) == WASP_NOID)
            return -1;
    for (uint32_t i = 0; i < src->nframes; i++) {
        wasp_frame f = src->frames[i];
        f.name = m->str[f.name];
        f.file = m->str[f.file];
        if ((m->frame[i] = wasp_profile_intern_frame(dst, &f)) == WASP_NOID)
            return -1;
    }
    for (uint32_t i = 0; i < src->ncontexts; i++) {
        const wasp_context *c = &src->contexts[i];
        for (uint32_t j = 0; j < c->nframes; j++)
            m->refs[j] = m->frame[src->frame_refs[c->first + j]];
        m->ctx[i] = wasp_profile_intern_context(dst, m->refs, c->nframes, m->str[c->insn]);
        if (m->ctx[i] == WASP_NOID)
            return -1;
    }
    return 0;
}

static uint32_t merged_string(const wasp_id_map *m, uint32_t id)
{
    return ((const struct remap *)m->state)->str[id];
}

/* A merge keeps every context as it is, whatever its kind. */
static uint32_t merged_context(const wasp_id_map *m, uint32_t slot, uint32_t ctx)
{
    (void)slot;
    return ((const struct remap *)m->state)->ctx[ctx];
}

int wasp_profile_merge_sites_and_parts(wasp_profile *dst, const wasp_profile *src, wasp_id_map *m)
{
    for (uint32_t i = 0; i < src->nsites; i++) {
        const wasp_site *s = &src->sites[i];
        uint32_t ctx = m->ctx(m, WASP_SLOT_ALLOC, s->ctx), cls = m->str(m, s->class_name);
        if (ctx == WASP_NOID || cls == WASP_NOID ||
            (m->site[i] = wasp_profile_intern_site(dst, ctx, cls)) == WASP_NOID ||
            wasp_profile_add_site_allocs_checked(dst, m->site[i], s->allocations, s->bytes) != 0)
            return -1;
    }
    if (wasp_cpu_lines_merge(dst, src, m) != 0)
        return -1;
    for (int id = 0; id < WASP_ANALYSES; id++) {
        const wasp_profile_part *part = wasp_profile_part_of(id);
        m->slot = wasp_profile_part_slot(id);
        if (src->parts[id] && part->merge && part->merge(dst, src, m) != 0)
            return -1;
    }
    return 0;
}

static int merge_values(wasp_profile *dst, const wasp_profile *src, struct remap *r)
{
    wasp_id_map m = {.str = merged_string, .ctx = merged_context, .state = r, .site = r->site};
    if (wasp_profile_merge_sites_and_parts(dst, src, &m) != 0)
        return -1;
    for (uint32_t i = 0; i < src->ncounters; i++)
        if (wasp_profile_add_counter_checked(dst, src->counters[i].name, src->counters[i].value) !=
            0)
            return -1;
    for (uint32_t i = 0; i < src->nmeta; i++)
        if (!wasp_profile_get_meta(dst, src->meta[i].key) &&
            wasp_profile_copy_meta_checked(dst, &src->meta[i]) != 0)
            return -1;
    dst->merged += src->merged;
    return 0;
}

/* On failure dst may hold part of src (its names, some entries); callers drop it. */
int wasp_profile_merge(wasp_profile *dst, const wasp_profile *src)
{
    char why[128];
    if (dst == src || wasp_profile_check(src, why, sizeof why) != 0)
        return -1; /* dst == src would read src while growing it */
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

/* ---- the id map, as parts see it (part.h) ---- */

uint32_t wasp_map_string(const wasp_id_map *m, uint32_t id)
{
    return m->str(m, id);
}

uint32_t wasp_map_site(const wasp_id_map *m, uint32_t id)
{
    return m->site[id];
}

uint32_t wasp_map_context(const wasp_id_map *m, uint32_t role, uint32_t ctx)
{
    return m->ctx(m, m->slot + role, ctx);
}
