/*
 * The in-memory profile model: interning of strings, frames and contexts
 * (metadata and counters: meta.c; sites: sites.c; each analysis's own data:
 * its profile part, part.h). Interning goes through
 * hash indices (hindex.c) so that merging large profiles stays linear.
 */
#include "profile/cpu_lines.h"
#include "profile/internal.h"
#include "profile/hindex.h"

#include <stdlib.h>
#include <string.h>

int wasp_grow(void *arr, uint32_t *cap, uint32_t need, size_t el)
{
    /* arr points at some T*; memcpy moves the pointer without aliasing it as void*. */
    if (need <= *cap)
        return 0;
    uint64_t ncap = *cap ? (uint64_t)*cap * 2 : 16;
    while (ncap < need)
        ncap *= 2;
    if (ncap > UINT32_MAX)
        ncap = UINT32_MAX;
    if (ncap > SIZE_MAX / el)
        return -1;
    void *old;
    memcpy(&old, arr, sizeof old);
    void *n = realloc(old, (size_t)ncap * el);
    if (!n)
        return -1;
    memcpy(arr, &n, sizeof n);
    *cap = (uint32_t)ncap;
    return 0;
}

wasp_profile *wasp_profile_new(void)
{
    wasp_profile *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->merged = 1;
    p->string_index = wasp_hindex_new();
    p->frame_index = wasp_hindex_new();
    p->context_index = wasp_hindex_new();
    p->site_index = wasp_hindex_new();
    if (!p->string_index || !p->frame_index || !p->context_index || !p->site_index || wasp_profile_intern_string(p, "") != 0) {
        wasp_profile_free(p);
        return NULL;
    }
    return p;
}

void wasp_profile_free(wasp_profile *p)
{
    if (!p)
        return;
    for (uint32_t i = 0; i < p->nstrings; i++)
        free(p->strings[i]);
    free(p->strings);
    free(p->frames);
    free(p->frame_refs);
    free(p->contexts);
    free(p->sites);
    wasp_cpu_lines_free(p);
    for (int id = 0; id < WASP_ANALYSES; id++)
        if (p->parts[id])
            wasp_profile_part_of(id)->free(p->parts[id]);
    for (uint32_t i = 0; i < p->nmeta; i++) {
        free(p->meta[i].key);
        free(p->meta[i].value);
    }
    free(p->meta);
    for (uint32_t i = 0; i < p->ncounters; i++)
        free(p->counters[i].name);
    free(p->counters);
    wasp_hindex_free(p->string_index);
    wasp_hindex_free(p->frame_index);
    wasp_hindex_free(p->context_index);
    wasp_hindex_free(p->site_index);
    free(p);
}

/* ---- strings ---- */

struct string_key {
    const wasp_profile *p;
    const char *s;
};

static bool string_eq(const void *ctx, uint32_t id)
{
    const struct string_key *k = ctx;
    return strcmp(k->p->strings[id], k->s) == 0;
}

uint32_t wasp_profile_intern_string(wasp_profile *p, const char *s)
{
    if (!s)
        s = "";
    size_t len = strlen(s);
    uint32_t h = wasp_fnv1a(WASP_FNV_INIT, s, len);
    struct string_key k = {p, s};
    uint32_t id = wasp_hindex_find(p->string_index, h, string_eq, &k);
    if (id != WASP_HINDEX_NONE)
        return id;
    if (p->nstrings == WASP_NOID - 1 ||
        wasp_grow(&p->strings, &p->cap_strings, p->nstrings + 1, sizeof *p->strings) != 0)
        return WASP_NOID;
    char *copy = malloc(len + 1);
    if (!copy)
        return WASP_NOID;
    memcpy(copy, s, len + 1);
    id = p->nstrings;
    if (wasp_hindex_add(p->string_index, h, id) != 0) {
        free(copy);
        return WASP_NOID;
    }
    p->strings[p->nstrings++] = copy;
    return id;
}

const char *wasp_profile_string(const wasp_profile *p, uint32_t id)
{
    return id < p->nstrings ? p->strings[id] : NULL;
}

/* ---- frames ---- */

static uint32_t frame_hash(const wasp_frame *f)
{
    uint32_t h = wasp_fnv1a_u32(WASP_FNV_INIT, f->kind);
    h = wasp_fnv1a_u32(h, f->name);
    h = wasp_fnv1a_u32(h, f->file);
    return wasp_fnv1a_u32(h, (uint32_t)f->line);
}

struct frame_key {
    const wasp_profile *p;
    const wasp_frame *f;
};

static bool frame_eq(const void *ctx, uint32_t id)
{
    const struct frame_key *k = ctx;
    const wasp_frame *a = &k->p->frames[id], *b = k->f;
    return a->kind == b->kind && a->name == b->name && a->file == b->file && a->line == b->line;
}

uint32_t wasp_profile_intern_frame(wasp_profile *p, const wasp_frame *f)
{
    if (f->name >= p->nstrings || f->file >= p->nstrings)
        return WASP_NOID;
    uint32_t h = frame_hash(f);
    struct frame_key k = {p, f};
    uint32_t id = wasp_hindex_find(p->frame_index, h, frame_eq, &k);
    if (id != WASP_HINDEX_NONE)
        return id;
    if (p->nframes == WASP_NOID - 1 ||
        wasp_grow(&p->frames, &p->cap_frames, p->nframes + 1, sizeof *p->frames) != 0)
        return WASP_NOID;
    id = p->nframes;
    if (wasp_hindex_add(p->frame_index, h, id) != 0)
        return WASP_NOID;
    p->frames[p->nframes++] = *f;
    return id;
}

/* ---- contexts ---- */

struct context_key {
    const wasp_profile *p;
    const uint32_t *frames;
    uint32_t nframes, insn;
};

static bool context_eq(const void *ctx, uint32_t id)
{
    const struct context_key *k = ctx;
    const wasp_context *c = &k->p->contexts[id];
    return c->nframes == k->nframes && c->insn == k->insn &&
           (k->nframes == 0 ||
            memcmp(&k->p->frame_refs[c->first], k->frames, k->nframes * sizeof(uint32_t)) == 0);
}

uint32_t wasp_profile_intern_context(wasp_profile *p, const uint32_t *frame_ids, uint32_t nframes,
                                     uint32_t insn)
{
    if (insn >= p->nstrings)
        return WASP_NOID;
    uint32_t h = wasp_fnv1a_u32(WASP_FNV_INIT, insn);
    h = wasp_fnv1a_u32(h, nframes);
    for (uint32_t i = 0; i < nframes; i++) {
        if (frame_ids[i] >= p->nframes)
            return WASP_NOID;
        h = wasp_fnv1a_u32(h, frame_ids[i]);
    }
    struct context_key k = {p, frame_ids, nframes, insn};
    uint32_t id = wasp_hindex_find(p->context_index, h, context_eq, &k);
    if (id != WASP_HINDEX_NONE)
        return id;
    if (nframes > UINT32_MAX - p->nframe_refs || p->ncontexts == WASP_NOID - 1 ||
        wasp_grow(&p->frame_refs, &p->cap_frame_refs, p->nframe_refs + nframes,
                  sizeof *p->frame_refs) != 0 ||
        wasp_grow(&p->contexts, &p->cap_contexts, p->ncontexts + 1, sizeof *p->contexts) != 0)
        return WASP_NOID;
    id = p->ncontexts;
    if (wasp_hindex_add(p->context_index, h, id) != 0)
        return WASP_NOID;
    if (nframes)
        memcpy(&p->frame_refs[p->nframe_refs], frame_ids, nframes * sizeof *frame_ids);
    p->contexts[id] = (wasp_context){.first = p->nframe_refs, .nframes = nframes, .insn = insn};
    p->nframe_refs += nframes;
    p->ncontexts++;
    return id;
}

bool wasp_profile_context_walked(const wasp_profile *p, uint32_t ctx)
{
    if (ctx >= p->ncontexts)
        return false;
    const wasp_context *c = &p->contexts[ctx];
    if (c->nframes == 0)
        return true; /* no frames at all: nothing says a walk failed */
    const wasp_frame *root = &p->frames[p->frame_refs[c->first]];
    const char *name = wasp_profile_string(p, root->name);
    return root->kind != WASP_FRAME_UNKNOWN || !name ||
           strncmp(name, WASP_UNWALKED_PREFIX, sizeof WASP_UNWALKED_PREFIX - 1) != 0;
}
