/* Records keyed by (site, context) with two sums; see site_records.h. */
#include "profile/site_records.h"
#include "profile/hindex.h"
#include "profile/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RECORD_BYTES = sizeof(wasp_site_record), RECORD_FILE_BYTES = 24 };

const void *wasp_site_records_all(const wasp_site_records *t, uint32_t *n)
{
    *n = t ? t->n : 0;
    return *n ? t->items : NULL;
}

wasp_site_record wasp_site_records_get(const wasp_site_records *t, uint32_t i)
{
    wasp_site_record r;
    memcpy(&r, (const unsigned char *)t->items + (size_t)i * RECORD_BYTES, sizeof r);
    return r;
}

static void put(wasp_site_records *t, uint32_t i, const wasp_site_record *r)
{
    memcpy((unsigned char *)t->items + (size_t)i * RECORD_BYTES, r, sizeof *r);
}

struct record_key {
    const wasp_site_records *t;
    uint32_t site, ctx;
};

static bool record_eq(const void *ctx, uint32_t id)
{
    const struct record_key *k = ctx;
    wasp_site_record r = wasp_site_records_get(k->t, id);
    return r.site == k->site && r.ctx == k->ctx;
}

uint32_t wasp_site_records_add(wasp_site_records *t, uint32_t site, uint32_t ctx, double first,
                               double second)
{
    if (!t->index && !(t->index = wasp_hindex_new()))
        return WASP_NOID;
    uint32_t h = wasp_fnv1a_u32(wasp_fnv1a_u32(WASP_FNV_INIT, site), ctx);
    struct record_key k = {t, site, ctx};
    uint32_t id = wasp_hindex_find(t->index, h, record_eq, &k);
    wasp_site_record r = {.site = site, .ctx = ctx};
    if (id == WASP_HINDEX_NONE) {
        if (t->n == WASP_NOID - 1 || wasp_grow(&t->items, &t->cap, t->n + 1, RECORD_BYTES) != 0)
            return WASP_NOID;
        id = t->n;
        if (wasp_hindex_add(t->index, h, id) != 0)
            return WASP_NOID;
        t->n++;
    } else {
        r = wasp_site_records_get(t, id);
    }
    r.sum[0] += first;
    r.sum[1] += second;
    put(t, id, &r);
    return id;
}

void wasp_site_records_free(wasp_site_records *t)
{
    free(t->items);
    wasp_hindex_free(t->index);
    *t = (wasp_site_records){0};
}

int wasp_site_records_check(const wasp_profile *p, const wasp_site_records *t, const char *what,
                            char *err, size_t errlen)
{
    for (uint32_t i = 0; i < t->n; i++) {
        wasp_site_record r = wasp_site_records_get(t, i);
        if (r.site >= p->nsites || r.ctx >= p->ncontexts) {
            snprintf(err, errlen, "%s %u refers to a missing site or context", what, i);
            return -1;
        }
    }
    return 0;
}

static void put_record(wasp_wbuf *b, const void *ctx, uint32_t i)
{
    wasp_site_record r = wasp_site_records_get(ctx, i);
    wasp_put_u32(b, r.site);
    wasp_put_u32(b, r.ctx);
    wasp_put_f64(b, r.sum[0]);
    wasp_put_f64(b, r.sum[1]);
}

void wasp_site_records_encode(const wasp_site_records *t, uint32_t tag, wasp_wbuf *b)
{
    if (t->n)
        wasp_put_table(b, tag, t->n, put_record, t);
}

int wasp_site_records_decode(wasp_profile *p, wasp_decoder *d, uint32_t tag, const char *what,
                             wasp_site_record_add add)
{
    wasp_section *s = wasp_decoder_section(d, tag);
    uint32_t n;
    if (wasp_section_count(s, RECORD_FILE_BYTES, &n) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t site = wasp_section_u32(s), ctx = wasp_section_u32(s);
        double first = wasp_section_f64(s), second = wasp_section_f64(s);
        if (wasp_section_site(s, what, i, site, &site) != 0 ||
            wasp_section_context(s, what, i, ctx, &ctx) != 0)
            return -1;
        if (add(p, site, ctx, first, second) != 0)
            return wasp_section_out_of_memory(s);
    }
    return wasp_section_done(s);
}

int wasp_site_records_merge(wasp_profile *dst, const wasp_site_records *t, const wasp_id_map *m,
                            uint32_t role, wasp_site_record_add add)
{
    for (uint32_t i = 0; i < t->n; i++) {
        wasp_site_record r = wasp_site_records_get(t, i);
        if (add(dst, wasp_map_site(m, r.site), wasp_map_context(m, role, r.ctx), r.sum[0],
                r.sum[1]) != 0)
            return -1;
    }
    return 0;
}

int wasp_site_records_weigh(const wasp_site_records *t, wasp_context_weights *w, uint32_t role,
                            bool with_second)
{
    for (uint32_t i = 0; i < t->n; i++) {
        wasp_site_record r = wasp_site_records_get(t, i);
        double weight = with_second ? r.sum[0] + r.sum[1] : r.sum[0];
        if (wasp_weigh_context(w, role, r.ctx, weight) != 0)
            return -1;
    }
    return 0;
}
