/*
 * The fields analysis's part in the profile (see profile.h): entries summed
 * by key (an index by hash keeps adding linear), section FLDS.
 */
#include "analysis/fields/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ids.h"
#include "analysis/names.h"
#include "heap/heap_area.h"
#include "profile/part.h"

enum { SEC_FIELDS = WASP_TAG('F', 'L', 'D', 'S'), ROLE_ACCESS = 0, ENTRY_FILE_BYTES = 36 };

typedef struct fields_data {
    wasp_field_entry *e;
    uint32_t n, cap;
    uint32_t *index; /* open addressing: entry + 1, 0 empty; size index_cap (power of two) */
    uint32_t index_cap;
} fields_data;

static void free_data(void *data)
{
    fields_data *f = data;
    free(f->e);
    free(f->index);
    free(f);
}

const wasp_field_entry *wasp_profile_fields(const wasp_profile *p, uint32_t *n)
{
    const fields_data *f = p->parts[WASP_ID_fields];
    *n = f ? f->n : 0;
    return f ? f->e : NULL;
}

static uint32_t hash(const wasp_field_entry *e)
{
    uint64_t h = ((uint64_t)e->cls << 32 | e->member) * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)e->offset << 32 | e->ctx) * 0xbf58476d1ce4e5b9ull;
    h ^= e->area;
    return (uint32_t)(h ^ h >> 29);
}

static bool same_key(const wasp_field_entry *a, const wasp_field_entry *b)
{
    return a->cls == b->cls && a->member == b->member && a->offset == b->offset &&
           a->area == b->area && a->ctx == b->ctx;
}

static int reindex(fields_data *f, uint32_t cap)
{
    uint32_t *idx = calloc(cap, sizeof *idx);
    if (!idx)
        return -1;
    for (uint32_t i = 0; i < f->n; i++) {
        uint32_t h = hash(&f->e[i]) & (cap - 1);
        while (idx[h])
            h = (h + 1) & (cap - 1);
        idx[h] = i + 1;
    }
    free(f->index);
    f->index = idx;
    f->index_cap = cap;
    return 0;
}

int wasp_profile_add_field(wasp_profile *p, const wasp_field_entry *e)
{
    if (e->cls >= p->nstrings || e->member >= p->nstrings || e->ctx >= p->ncontexts ||
        e->area >= WASP_AREA_COUNT)
        return -1;
    fields_data *f = wasp_profile_part_data(p, WASP_ID_fields, sizeof *f);
    if (!f)
        return -1;
    if ((uint64_t)(f->n + 1) * 2 > f->index_cap &&
        reindex(f, f->index_cap ? f->index_cap * 2 : 256) != 0)
        return -1;
    uint32_t h = hash(e) & (f->index_cap - 1);
    for (; f->index[h]; h = (h + 1) & (f->index_cap - 1)) {
        wasp_field_entry *d = &f->e[f->index[h] - 1];
        if (same_key(d, e)) {
            d->loads += e->loads;
            d->stores += e->stores;
            return 0;
        }
    }
    if (f->n == WASP_NOID - 1 || wasp_grow(&f->e, &f->cap, f->n + 1, sizeof *f->e) != 0)
        return -1;
    f->e[f->n] = *e;
    f->index[h] = ++f->n;
    return 0;
}

bool wasp_profile_has_fields(const wasp_profile *p)
{
    uint32_t n;
    wasp_profile_fields(p, &n);
    return n || wasp_events_name(wasp_profile_get_meta(p, "events"), "fields");
}

/* ---- the profile part ---- */

static int check(const wasp_profile *p, char *err, size_t errlen)
{
    uint32_t n;
    const wasp_field_entry *e = wasp_profile_fields(p, &n);
    for (uint32_t i = 0; i < n; i++)
        if (e[i].cls >= p->nstrings || e[i].member >= p->nstrings || e[i].ctx >= p->ncontexts ||
            e[i].area >= WASP_AREA_COUNT) {
            snprintf(err, errlen, "field entry %u refers to a missing string or context", i);
            return -1;
        }
    return 0;
}

static void put_entry(wasp_wbuf *b, const void *ctx, uint32_t i)
{
    const wasp_field_entry *e = &((const fields_data *)ctx)->e[i];
    wasp_put_u32(b, e->cls);
    wasp_put_u32(b, e->member);
    wasp_put_u32(b, e->offset);
    wasp_put_u32(b, e->area);
    wasp_put_u32(b, e->ctx);
    wasp_put_f64(b, e->loads);
    wasp_put_f64(b, e->stores);
}

static void encode(const wasp_profile *p, wasp_wbuf *b)
{
    const fields_data *f = p->parts[WASP_ID_fields];
    if (f && f->n)
        wasp_put_table(b, SEC_FIELDS, f->n, put_entry, f);
}

static int decode(wasp_profile *p, wasp_decoder *d)
{
    wasp_section *s = wasp_decoder_section(d, SEC_FIELDS);
    uint32_t n;
    if (wasp_section_count(s, ENTRY_FILE_BYTES, &n) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        wasp_field_entry e;
        uint32_t cls = wasp_section_u32(s), member = wasp_section_u32(s);
        e.offset = wasp_section_u32(s);
        e.area = wasp_section_u32(s);
        uint32_t ctx = wasp_section_u32(s);
        e.loads = wasp_section_f64(s);
        e.stores = wasp_section_f64(s);
        if (wasp_section_string(s, "field entry", i, cls, &e.cls) != 0 ||
            wasp_section_string(s, "field entry", i, member, &e.member) != 0 ||
            wasp_section_context(s, "field entry", i, ctx, &e.ctx) != 0)
            return -1;
        if (e.area >= WASP_AREA_COUNT)
            e.area = WASP_AREA_UNKNOWN; /* an area a newer wasp knows */
        if (!(e.loads >= 0) || !(e.stores >= 0)) {
            e.loads = e.loads >= 0 ? e.loads : 0;
            e.stores = e.stores >= 0 ? e.stores : 0;
        }
        if (wasp_profile_add_field(p, &e) != 0)
            return wasp_section_out_of_memory(s);
    }
    return wasp_section_done(s);
}

static int merge(wasp_profile *dst, const wasp_profile *src, const wasp_id_map *m)
{
    uint32_t n;
    const wasp_field_entry *e = wasp_profile_fields(src, &n);
    for (uint32_t i = 0; i < n; i++) {
        wasp_field_entry x = e[i];
        x.cls = wasp_map_string(m, x.cls);
        x.member = wasp_map_string(m, x.member);
        x.ctx = wasp_map_context(m, ROLE_ACCESS, x.ctx);
        if (wasp_profile_add_field(dst, &x) != 0)
            return -1;
    }
    return 0;
}

static int weigh(const wasp_profile *p, wasp_context_weights *w)
{
    uint32_t n;
    const wasp_field_entry *e = wasp_profile_fields(p, &n);
    for (uint32_t i = 0; i < n; i++)
        if (wasp_weigh_context(w, ROLE_ACCESS, e[i].ctx, e[i].loads + e[i].stores) != 0)
            return -1;
    return 0;
}

const wasp_profile_part wasp_profile_part_fields = {
    .sections = {SEC_FIELDS},
    .context_roles = 1,
    .free = free_data,
    .check = check,
    .encode = encode,
    .decode = decode,
    .merge = merge,
    .weigh = weigh,
};
