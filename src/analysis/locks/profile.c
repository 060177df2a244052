/*
 * The locks analysis's part in the profile (see profile.h): entries summed
 * by key through the profile's hash index (profile/hindex.h), section LOCK.
 */
#include "analysis/locks/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ids.h"
#include "analysis/names.h"
#include "profile/hindex.h"
#include "profile/part.h"

enum { SEC_LOCKS = WASP_TAG('L', 'O', 'C', 'K'), ROLE_ACQUIRE = 0, ENTRY_FILE_BYTES = 36 };

typedef struct locks_data {
    wasp_lock_entry *e;
    uint32_t n, cap;
    wasp_hindex *index;
} locks_data;

static void free_data(void *data)
{
    locks_data *l = data;
    free(l->e);
    wasp_hindex_free(l->index);
    free(l);
}

const wasp_lock_entry *wasp_profile_locks(const wasp_profile *p, uint32_t *n)
{
    const locks_data *l = p->parts[WASP_ID_locks];
    *n = l ? l->n : 0;
    return l ? l->e : NULL;
}

typedef struct lookup {
    const locks_data *l;
    const wasp_lock_entry *key;
} lookup;

static bool same_key(const void *ctx, uint32_t id)
{
    const lookup *k = ctx;
    const wasp_lock_entry *a = &k->l->e[id], *b = k->key;
    return a->cls == b->cls && a->where == b->where && a->ctx == b->ctx;
}

static bool valid(const wasp_profile *p, const wasp_lock_entry *e)
{
    return e->cls < p->nstrings && e->where < p->nstrings && e->ctx < p->ncontexts;
}

int wasp_profile_add_lock(wasp_profile *p, const wasp_lock_entry *e)
{
    if (!valid(p, e))
        return -1;
    locks_data *l = wasp_profile_part_data(p, WASP_ID_locks, sizeof *l);
    if (!l || (!l->index && !(l->index = wasp_hindex_new())))
        return -1;
    uint32_t h = wasp_fnv1a_u32(wasp_fnv1a_u32(wasp_fnv1a_u32(WASP_FNV_INIT, e->cls), e->where),
                                e->ctx);
    uint32_t id = wasp_hindex_find(l->index, h, same_key, &(lookup){l, e});
    if (id == WASP_HINDEX_NONE) {
        if (l->n == WASP_NOID - 1 || wasp_grow(&l->e, &l->cap, l->n + 1, sizeof *l->e) != 0 ||
            wasp_hindex_add(l->index, h, l->n) != 0)
            return -1;
        id = l->n++;
        l->e[id] = (wasp_lock_entry){e->cls, e->where, e->ctx, 0, 0, 0};
    }
    l->e[id].acquire += e->acquire;
    l->e[id].release += e->release;
    l->e[id].slow += e->slow;
    return 0;
}

bool wasp_profile_has_locks(const wasp_profile *p)
{
    uint32_t n;
    wasp_profile_locks(p, &n);
    return n || wasp_events_name(wasp_profile_get_meta(p, "events"), "locks");
}

/* ---- the profile part ---- */

static int check(const wasp_profile *p, char *err, size_t errlen)
{
    uint32_t n;
    const wasp_lock_entry *e = wasp_profile_locks(p, &n);
    for (uint32_t i = 0; i < n; i++)
        if (!valid(p, &e[i])) {
            snprintf(err, errlen, "lock entry %u refers to a missing string or context", i);
            return -1;
        }
    return 0;
}

static void put_entry(wasp_wbuf *b, const void *ctx, uint32_t i)
{
    const wasp_lock_entry *e = &((const locks_data *)ctx)->e[i];
    wasp_put_u32(b, e->cls);
    wasp_put_u32(b, e->where);
    wasp_put_u32(b, e->ctx);
    wasp_put_f64(b, e->acquire);
    wasp_put_f64(b, e->release);
    wasp_put_f64(b, e->slow);
}

static void encode(const wasp_profile *p, wasp_wbuf *b)
{
    const locks_data *l = p->parts[WASP_ID_locks];
    if (l && l->n)
        wasp_put_table(b, SEC_LOCKS, l->n, put_entry, l);
}

static double non_negative(double x)
{
    return x >= 0 ? x : 0; /* NaN too */
}

static int decode(wasp_profile *p, wasp_decoder *d)
{
    wasp_section *s = wasp_decoder_section(d, SEC_LOCKS);
    uint32_t n;
    if (wasp_section_count(s, ENTRY_FILE_BYTES, &n) != 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        wasp_lock_entry e;
        uint32_t cls = wasp_section_u32(s), where = wasp_section_u32(s), ctx = wasp_section_u32(s);
        e.acquire = non_negative(wasp_section_f64(s));
        e.release = non_negative(wasp_section_f64(s));
        e.slow = non_negative(wasp_section_f64(s));
        if (wasp_section_string(s, "lock entry", i, cls, &e.cls) != 0 ||
            wasp_section_string(s, "lock entry", i, where, &e.where) != 0 ||
            wasp_section_context(s, "lock entry", i, ctx, &e.ctx) != 0)
            return -1;
        if (wasp_profile_add_lock(p, &e) != 0)
            return wasp_section_out_of_memory(s);
    }
    return wasp_section_done(s);
}

static int merge(wasp_profile *dst, const wasp_profile *src, const wasp_id_map *m)
{
    uint32_t n;
    const wasp_lock_entry *e = wasp_profile_locks(src, &n);
    for (uint32_t i = 0; i < n; i++) {
        wasp_lock_entry x = e[i];
        x.cls = wasp_map_string(m, x.cls);
        x.where = wasp_map_string(m, x.where);
        x.ctx = wasp_map_context(m, ROLE_ACQUIRE, x.ctx);
        if (wasp_profile_add_lock(dst, &x) != 0)
            return -1;
    }
    return 0;
}

static int weigh(const wasp_profile *p, wasp_context_weights *w)
{
    uint32_t n;
    const wasp_lock_entry *e = wasp_profile_locks(p, &n);
    for (uint32_t i = 0; i < n; i++)
        if (wasp_weigh_context(w, ROLE_ACQUIRE, e[i].ctx, e[i].acquire + e[i].slow + e[i].release) != 0)
            return -1;
    return 0;
}

const wasp_profile_part wasp_profile_part_locks = {
    .sections = {SEC_LOCKS},
    .context_roles = 1,
    .free = free_data,
    .check = check,
    .encode = encode,
    .decode = decode,
    .merge = merge,
    .weigh = weigh,
};
