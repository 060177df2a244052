/*
 * The alloc analysis's part in the profile (see profile.h): entries summed by
 * (class, context), found through an open-addressing index; section ALOC,
 * n x { u32 class string, u32 context, f64 samples }.
 */
#include "analysis/alloc/profile.h"

#include <stdio.h>
#include <stdlib.h>

#include "analysis/ids.h"
#include "analysis/names.h"
#include "profile/part.h"

enum { SEC_ALLOCS = WASP_TAG('A', 'L', 'O', 'C'), ROLE_ALLOCATION = 0, ENTRY_FILE_BYTES = 16 };

typedef struct alloc_data {
    wasp_alloc_entry *e;
    uint32_t n, cap;
    uint32_t *slot; /* entry + 1 by hash of (cls, ctx), 0 empty; nslots a power of two */
    uint32_t nslots;
} alloc_data;

static void free_data(void *data)
{
    alloc_data *a = data;
    free(a->e);
    free(a->slot);
    free(a);
}

const wasp_alloc_entry *wasp_profile_allocs(const wasp_profile *p, uint32_t *n)
{
    const alloc_data *a = p->parts[WASP_ID_alloc];
    *n = a ? a->n : 0;
    return a ? a->e : NULL;
}

static uint32_t slot_of(uint32_t cls, uint32_t ctx, uint32_t nslots)
{
    uint64_t h = ((uint64_t)cls << 32 | ctx) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32) & (nslots - 1);
}

/* Where (cls, ctx) is, or the empty slot where it would go. */
static uint32_t *lookup(const alloc_data *a, uint32_t cls, uint32_t ctx)
{
    uint32_t i = slot_of(cls, ctx, a->nslots);
    while (a->slot[i] && (a->e[a->slot[i] - 1].cls != cls || a->e[a->slot[i] - 1].ctx != ctx))
        i = (i + 1) & (a->nslots - 1);
    return &a->slot[i];
}

static int grow_index(alloc_data *a)
{
    alloc_data bigger = *a;
    bigger.nslots = a->nslots ? a->nslots * 2 : 256;
    bigger.slot = calloc(bigger.nslots, sizeof *bigger.slot);
    if (!bigger.slot)
        return -1;
    for (uint32_t k = 0; k < a->n; k++)
        *lookup(&bigger, a->e[k].cls, a->e[k].ctx) = k + 1;
    free(a->slot);
    *a = bigger;
    return 0;
}

int wasp_profile_add_alloc(wasp_profile *p, const wasp_alloc_entry *e)
{
    if (e->cls >= p->nstrings || e->ctx >= p->ncontexts || !(e->samples >= 0))
        return -1;
    alloc_data *a = wasp_profile_part_data(p, WASP_ID_alloc, sizeof *a);
    if (!a || (((uint64_t)a->n + 1) * 2 > a->nslots && grow_index(a) != 0))
        return -1;
    uint32_t *s = lookup(a, e->cls, e->ctx);
    if (*s) {
        a->e[*s - 1].samples += e->samples;
        return 0;
    }
    if (a->n == WASP_NOID - 1 || wasp_grow(&a->e, &a->cap, a->n + 1, sizeof *a->e) != 0)
        return -1;
    a->e[a->n] = *e;
    *s = ++a->n;
    return 0;
}

bool wasp_profile_has_allocs(const wasp_profile *p)
{
    uint32_t n;
    wasp_profile_allocs(p, &n);
    return n || wasp_events_name(wasp_profile_get_meta(p, "events"), "alloc");
}

/* ---- the profile part ---- */

static int check(const wasp_profile *p, char *err, size_t errlen)
{
    uint32_t n;
    const wasp_alloc_entry *e = wasp_profile_allocs(p, &n);
    for (uint32_t i = 0; i < n; i++)
        if (e[i].cls >= p->nstrings || e[i].ctx >= p->ncontexts) {
            snprintf(err, errlen, "alloc entry %u refers to a missing string or context", i);
            return -1;
        }
    return 0;
}

static void put_entry(wasp_wbuf *b, const void *data, uint32_t i)
{
    const wasp_alloc_entry *e = &((const alloc_data *)data)->e[i];
    wasp_put_u32(b, e->cls);
    wasp_put_u32(b, e->ctx);
    wasp_put_f64(b, e->samples);
}

static void encode(const wasp_profile *p, wasp_wbuf *b)
{
    const alloc_data *a = p->parts[WASP_ID_alloc];
    if (a && a->n)
        wasp_put_table(b, SEC_ALLOCS, a->n, put_entry, a);
}

static int decode(wasp_profile *p, wasp_decoder *d)
{
    wasp_section *s = wasp_decoder_section(d, SEC_ALLOCS);
    uint32_t n;
    if (wasp_section_count(s, ENTRY_FILE_BYTES, &n) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        wasp_alloc_entry e;
        uint32_t cls = wasp_section_u32(s), ctx = wasp_section_u32(s);
        e.samples = wasp_section_f64(s);
        if (wasp_section_string(s, "alloc entry", i, cls, &e.cls) != 0 ||
            wasp_section_context(s, "alloc entry", i, ctx, &e.ctx) != 0)
            return -1;
        if (!(e.samples >= 0))
            e.samples = 0;
        if (wasp_profile_add_alloc(p, &e) != 0)
            return wasp_section_out_of_memory(s);
    }
    return wasp_section_done(s);
}

static int merge(wasp_profile *dst, const wasp_profile *src, const wasp_id_map *m)
{
    uint32_t n;
    const wasp_alloc_entry *e = wasp_profile_allocs(src, &n);
    for (uint32_t i = 0; i < n; i++) {
        wasp_alloc_entry x = {wasp_map_string(m, e[i].cls),
                              wasp_map_context(m, ROLE_ALLOCATION, e[i].ctx), e[i].samples};
        if (wasp_profile_add_alloc(dst, &x) != 0)
            return -1;
    }
    return 0;
}

static int weigh(const wasp_profile *p, wasp_context_weights *w)
{
    uint32_t n;
    const wasp_alloc_entry *e = wasp_profile_allocs(p, &n);
    for (uint32_t i = 0; i < n; i++)
        if (wasp_weigh_context(w, ROLE_ALLOCATION, e[i].ctx, e[i].samples) != 0)
            return -1;
    return 0;
}

const wasp_profile_part wasp_profile_part_alloc = {
    .sections = {SEC_ALLOCS},
    .context_roles = 1,
    .free = free_data,
    .check = check,
    .encode = encode,
    .decode = decode,
    .merge = merge,
    .weigh = weigh,
};
