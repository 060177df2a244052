/*
 * Records keyed by ids, with sums (see keyed_records.h). Records are bytes
 * of the part's type, read and written with memcpy; keys are compared and
 * hashed as their nkeys * 4 bytes (uint32_t members have no padding).
 */
#include "profile/keyed_records.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/hindex.h"

void wasp_keyed_table_free(wasp_keyed_table *t)
{
    free(t->items);
    wasp_hindex_free(t->index);
}

void wasp_keyed_free(void *data)
{
    if (!data)
        return;
    wasp_keyed_table_free(data);
    free(data);
}

/* l's table in p; NULL when the part has no data. */
static const wasp_keyed_table *table_of(const wasp_profile *p, const wasp_keyed_layout *l)
{
    const unsigned char *data = p->parts[l->id];
    return data ? (const wasp_keyed_table *)(data + l->table_offset) : NULL;
}

/* l's table in p, the part's data created when it is not there yet. */
static wasp_keyed_table *table_for_adding(wasp_profile *p, const wasp_keyed_layout *l)
{
    unsigned char *data =
        wasp_profile_part_data(p, l->id, l->data_size ? l->data_size : sizeof(wasp_keyed_table));
    return data ? (wasp_keyed_table *)(data + l->table_offset) : NULL;
}

const void *wasp_keyed_all(const wasp_profile *p, const wasp_keyed_layout *l, uint32_t *n)
{
    const wasp_keyed_table *r = table_of(p, l);
    *n = r ? r->n : 0;
    return r && r->n ? r->items : NULL;
}

/* Keys sit at the start of every record type: the layout is not needed to
 * find them, only to know how many there are. */
static uint32_t key_at(const void *rec, uint32_t k)
{
    uint32_t v;
    memcpy(&v, (const unsigned char *)rec + k * sizeof v, sizeof v);
    return v;
}

static void set_key(void *rec, uint32_t k, uint32_t v)
{
    memcpy((unsigned char *)rec + k * sizeof v, &v, sizeof v);
}

static double sum_at(const wasp_keyed_layout *l, const void *rec, uint32_t k)
{
    double v;
    memcpy(&v, (const unsigned char *)rec + l->sums_offset + k * sizeof v, sizeof v);
    return v;
}

static void set_sum(const wasp_keyed_layout *l, void *rec, uint32_t k, double v)
{
    memcpy((unsigned char *)rec + l->sums_offset + k * sizeof v, &v, sizeof v);
}

/* Are rec's string and context keys ids of p, and its kind one of l's? */
static bool in_range(const wasp_profile *p, const wasp_keyed_layout *l, const void *rec)
{
    for (uint32_t k = 0; k < l->nkeys; k++) {
        uint32_t v = key_at(rec, k);
        if ((l->key[k] == WASP_KEY_STRING && v >= p->nstrings) ||
            (l->key[k] == WASP_KEY_CONTEXT && v >= p->ncontexts) ||
            (l->key[k] == WASP_KEY_ROLE && v >= l->limit[k]))
            return false;
    }
    return true;
}

/* The role of rec's context keys: its ROLE key, else 0. */
static uint32_t role_of(const wasp_keyed_layout *l, const void *rec)
{
    for (uint32_t k = 0; k < l->nkeys; k++)
        if (l->key[k] == WASP_KEY_ROLE)
            return key_at(rec, k);
    return 0;
}

/* Whether a context key of rec was mapped to none (group.c: a context no
 * weighing record used). */
static bool has_unmapped_context(const wasp_keyed_layout *l, const void *rec)
{
    for (uint32_t k = 0; k < l->nkeys; k++)
        if (l->key[k] == WASP_KEY_CONTEXT && key_at(rec, k) == WASP_NOID)
            return true;
    return false;
}

typedef struct lookup {
    const wasp_keyed_table *r;
    const wasp_keyed_layout *l;
    const void *rec;
} lookup;

static bool same_keys(const void *ctx, uint32_t id)
{
    const lookup *k = ctx;
    return memcmp(k->r->items + (size_t)id * k->l->size, k->rec, k->l->nkeys * sizeof(uint32_t)) == 0;
}

int wasp_keyed_add(wasp_profile *p, const wasp_keyed_layout *l, const void *rec)
{
    if (!in_range(p, l, rec))
        return -1;
    wasp_keyed_table *r = table_for_adding(p, l);
    if (!r || (!r->index && !(r->index = wasp_hindex_new())))
        return -1;
    uint32_t h = wasp_fnv1a(WASP_FNV_INIT, rec, l->nkeys * sizeof(uint32_t));
    uint32_t id = wasp_hindex_find(r->index, h, same_keys, &(lookup){r, l, rec});
    if (id == WASP_HINDEX_NONE) {
        if (r->n == WASP_NOID - 1 ||
            wasp_grow(&r->items, &r->cap, r->n + 1, l->size) != 0 ||
            wasp_hindex_add(r->index, h, r->n) != 0)
            return -1;
        id = r->n++;
        unsigned char *d = r->items + (size_t)id * l->size;
        memset(d, 0, l->size);
        memcpy(d, rec, l->nkeys * sizeof(uint32_t));
    }
    unsigned char *d = r->items + (size_t)id * l->size;
    for (uint32_t k = 0; k < l->nsums; k++)
        set_sum(l, d, k, sum_at(l, d, k) + sum_at(l, rec, k));
    return 0;
}

int wasp_keyed_check(const wasp_profile *p, const wasp_keyed_layout *l, char *err, size_t errlen)
{
    uint32_t n;
    const unsigned char *e = wasp_keyed_all(p, l, &n);
    for (uint32_t i = 0; i < n; i++)
        if (!in_range(p, l, e + (size_t)i * l->size)) {
            snprintf(err, errlen, "%s %u refers to a missing string or context, or is of an "
                                  "unknown kind", l->what, i);
            return -1;
        }
    return 0;
}

typedef struct encoding {
    const wasp_keyed_table *r;
    const wasp_keyed_layout *l;
} encoding;

static void put_record(wasp_wbuf *b, const void *ctx, uint32_t i)
{
    const encoding *e = ctx;
    const unsigned char *rec = e->r->items + (size_t)i * e->l->size;
    for (uint32_t k = 0; k < e->l->nkeys; k++)
        wasp_put_u32(b, key_at(rec, k));
    for (uint32_t k = 0; k < e->l->nsums; k++)
        wasp_put_f64(b, sum_at(e->l, rec, k));
}

void wasp_keyed_encode(const wasp_profile *p, const wasp_keyed_layout *l, wasp_wbuf *b)
{
    const wasp_keyed_table *r = table_of(p, l);
    if (r && r->n)
        wasp_put_table(b, l->tag, r->n, put_record, &(encoding){r, l});
}

int wasp_keyed_decode(wasp_profile *p, const wasp_keyed_layout *l, wasp_decoder *d)
{
    wasp_section *s = wasp_decoder_section(d, l->tag);
    uint32_t n;
    if (wasp_section_count(s, l->nkeys * sizeof(uint32_t) + l->nsums * sizeof(double), &n) != 0)
        return -1;
    unsigned char rec[256];
    if (l->size > sizeof rec)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        memset(rec, 0, l->size);
        bool known = true;
        uint32_t raw[WASP_KEYED_MAX_KEYS];
        for (uint32_t k = 0; k < l->nkeys; k++)
            raw[k] = wasp_section_u32(s);
        for (uint32_t k = 0; k < l->nsums; k++) /* the reader refuses negatives and NaN */
            set_sum(l, rec, k, wasp_section_f64(s));
        for (uint32_t k = 0; k < l->nkeys; k++) {
            uint32_t v = raw[k];
            if ((l->key[k] == WASP_KEY_STRING && wasp_section_string(s, l->what, i, raw[k], &v) != 0) ||
                (l->key[k] == WASP_KEY_CONTEXT && wasp_section_context(s, l->what, i, raw[k], &v) != 0))
                return -1;
            if (l->key[k] == WASP_KEY_NUMBER && l->limit[k] && v >= l->limit[k])
                v = 0;
            known &= l->key[k] != WASP_KEY_ROLE || v < l->limit[k];
            set_key(rec, k, v);
        }
        if (known && wasp_keyed_add(p, l, rec) != 0)
            return wasp_section_out_of_memory(s);
    }
    return wasp_section_done(s);
}

int wasp_keyed_merge(wasp_profile *dst, const wasp_profile *src, const wasp_keyed_layout *l,
                     const wasp_id_map *m)
{
    uint32_t n;
    const unsigned char *e = wasp_keyed_all(src, l, &n);
    unsigned char rec[256];
    if (l->size > sizeof rec)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        memcpy(rec, e + (size_t)i * l->size, l->size);
        uint32_t role = role_of(l, rec);
        for (uint32_t k = 0; k < l->nkeys; k++) {
            uint32_t v = key_at(rec, k);
            if (l->key[k] == WASP_KEY_STRING)
                set_key(rec, k, wasp_map_string(m, v));
            else if (l->key[k] == WASP_KEY_CONTEXT)
                set_key(rec, k, wasp_map_context(m, role, v));
        }
        if (has_unmapped_context(l, rec))
            continue;
        if (wasp_keyed_add(dst, l, rec) != 0)
            return -1;
    }
    return 0;
}

int wasp_keyed_weigh(const wasp_profile *p, const wasp_keyed_layout *l, wasp_context_weights *w)
{
    uint32_t n;
    const unsigned char *e = wasp_keyed_all(p, l, &n);
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *rec = e + (size_t)i * l->size;
        double weight = 0;
        for (uint32_t k = 0; k < (l->weight_sums ? l->weight_sums : l->nsums); k++)
            weight += sum_at(l, rec, k);
        uint32_t role = role_of(l, rec);
        for (uint32_t k = 0; k < l->nkeys; k++) {
            if (l->key[k] != WASP_KEY_CONTEXT)
                continue;
            /* a context a record names twice (a pair's watch and trap) is used once */
            bool again = false;
            for (uint32_t e2 = 0; e2 < k; e2++)
                again |= l->key[e2] == WASP_KEY_CONTEXT && key_at(rec, e2) == key_at(rec, k);
            if (!again && wasp_weigh_context(w, role, key_at(rec, k), weight) != 0)
                return -1;
        }
    }
    return 0;
}

/* ---- a part of several tables ---- */

void wasp_keyed_tables_free(const wasp_keyed_tables *t, void *data)
{
    if (!data)
        return;
    for (uint32_t i = 0; i < t->n; i++) {
        size_t at = t->layouts[i]->table_offset;
        wasp_keyed_table_free((wasp_keyed_table *)((unsigned char *)data + at));
    }
    free(data);
}

int wasp_keyed_tables_check(const wasp_keyed_tables *t, const wasp_profile *p, char *err,
                            size_t errlen)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (wasp_keyed_check(p, t->layouts[i], err, errlen) != 0)
            return -1;
    return 0;
}

void wasp_keyed_tables_encode(const wasp_keyed_tables *t, const wasp_profile *p, wasp_wbuf *b)
{
    for (uint32_t i = 0; i < t->n; i++)
        wasp_keyed_encode(p, t->layouts[i], b);
}

int wasp_keyed_tables_decode(const wasp_keyed_tables *t, wasp_profile *p, wasp_decoder *d)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (wasp_keyed_decode(p, t->layouts[i], d) != 0)
            return -1;
    return 0;
}

int wasp_keyed_tables_merge(const wasp_keyed_tables *t, wasp_profile *dst, const wasp_profile *src,
                            const wasp_id_map *m)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (wasp_keyed_merge(dst, src, t->layouts[i], m) != 0)
            return -1;
    return 0;
}

int wasp_keyed_tables_weigh(const wasp_keyed_tables *t, const wasp_profile *p,
                            wasp_context_weights *w)
{
    for (uint32_t i = 0; i < t->nweigh && i < t->n; i++)
        if (wasp_keyed_weigh(p, t->layouts[i], w) != 0)
            return -1;
    return 0;
}
