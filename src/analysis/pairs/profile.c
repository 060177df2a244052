/*
 * The pair analyses' part in the profile: two tables of keyed records
 * (profile/keyed_records.h), the pairs (section PAIR) and each analysis's
 * totals (TOTL), both keyed by analysis. The three analyses share one file
 * section each, so the part is registered under the first of them
 * (deadstore) and keeps every pair analysis's entries; the other two have
 * empty parts. An entry's analysis is also the role of its contexts, so
 * grouping by line keeps a dead store's contexts apart from a silent load's
 * on the same line. Entries of an analysis a newer wasp knows are skipped.
 */
#include "analysis/pairs/profile.h"
#include "profile/keyed_records.h"

#include <stddef.h>
#include <stdlib.h>

enum { SEC_PAIRS = WASP_TAG('P', 'A', 'I', 'R'), SEC_TOTALS = WASP_TAG('T', 'O', 'T', 'L') };

/* A totals entry as the table keeps it. */
typedef struct totals_record {
    uint32_t analysis;
    uint32_t unused; /* the doubles' alignment */
    wasp_totals t;
} totals_record;

WASP_KEYED_LAYOUT(wasp_pair, 4, bytes, 2);
WASP_KEYED_LAYOUT(totals_record, 1, t, 4);

typedef struct pairs_data {
    wasp_keyed_table pairs;
    wasp_keyed_table totals;
} pairs_data;

static const wasp_keyed_layout pair_layout = {
    .id = WASP_ID_deadstore,
    .tag = SEC_PAIRS,
    .what = "pair",
    .nkeys = 4,
    .nsums = 2,
    .key = {WASP_KEY_ROLE, WASP_KEY_NUMBER, WASP_KEY_CONTEXT, WASP_KEY_CONTEXT},
    .limit = {WASP_AN_COUNT},
    .size = sizeof(wasp_pair),
    .sums_offset = offsetof(wasp_pair, bytes),
    .weight_sums = 1, /* bytes */
    .data_size = sizeof(pairs_data),
    .table_offset = offsetof(pairs_data, pairs),
};

static const wasp_keyed_layout totals_layout = {
    .id = WASP_ID_deadstore,
    .tag = SEC_TOTALS,
    .what = "totals entry",
    .nkeys = 1,
    .nsums = 4,
    .key = {WASP_KEY_ROLE},
    .limit = {WASP_AN_COUNT},
    .size = sizeof(totals_record),
    .sums_offset = offsetof(totals_record, t),
    .data_size = sizeof(pairs_data),
    .table_offset = offsetof(pairs_data, totals),
};

int wasp_profile_add_pair_checked(wasp_profile *p, wasp_analysis a, uint32_t flags,
                                  uint32_t watch_ctx, uint32_t trap_ctx, double bytes,
                                  double count)
{
    wasp_pair rec = {(uint32_t)a, flags, watch_ctx, trap_ctx, bytes, count};
    return wasp_keyed_add(p, &pair_layout, &rec);
}

void wasp_profile_add_pair(wasp_profile *p, wasp_analysis a, uint32_t flags, uint32_t watch_ctx,
                           uint32_t trap_ctx, double bytes, double count)
{
    /* Bad ids are a caller bug; out of memory leaves the profile as it was. */
    (void)wasp_profile_add_pair_checked(p, a, flags, watch_ctx, trap_ctx, bytes, count);
}

void wasp_profile_add_totals(wasp_profile *p, wasp_analysis a, const wasp_totals *t)
{
    totals_record rec = {.analysis = (uint32_t)a, .t = *t};
    (void)wasp_keyed_add(p, &totals_layout, &rec);
}

const wasp_pair *wasp_profile_pairs(const wasp_profile *p, uint32_t *n)
{
    return wasp_keyed_all(p, &pair_layout, n);
}

const wasp_pair *wasp_profile_pair(const wasp_profile *p, uint32_t i)
{
    uint32_t n;
    const wasp_pair *q = wasp_profile_pairs(p, &n);
    return i < n ? &q[i] : NULL;
}

wasp_totals wasp_profile_totals(const wasp_profile *p, wasp_analysis a)
{
    uint32_t n;
    const totals_record *r = wasp_keyed_all(p, &totals_layout, &n);
    for (uint32_t i = 0; i < n; i++)
        if (r[i].analysis == (uint32_t)a)
            return r[i].t;
    return (wasp_totals){0};
}

/* ---- the profile part ---- */

static void free_data(void *data)
{
    pairs_data *d = data;
    wasp_keyed_table_free(&d->pairs);
    wasp_keyed_table_free(&d->totals);
    free(d);
}

static int check(const wasp_profile *p, char *err, size_t errlen)
{
    return wasp_keyed_check(p, &pair_layout, err, errlen) != 0 ||
                   wasp_keyed_check(p, &totals_layout, err, errlen) != 0
               ? -1
               : 0;
}

static void encode(const wasp_profile *p, wasp_wbuf *b)
{
    wasp_keyed_encode(p, &pair_layout, b);
    wasp_keyed_encode(p, &totals_layout, b);
}

static int decode(wasp_profile *p, wasp_decoder *d)
{
    return wasp_keyed_decode(p, &pair_layout, d) != 0 ||
                   wasp_keyed_decode(p, &totals_layout, d) != 0
               ? -1
               : 0;
}

static int merge(wasp_profile *dst, const wasp_profile *src, const wasp_id_map *m)
{
    return wasp_keyed_merge(dst, src, &pair_layout, m) != 0 ||
                   wasp_keyed_merge(dst, src, &totals_layout, m) != 0
               ? -1
               : 0;
}

static int weigh(const wasp_profile *p, wasp_context_weights *w)
{
    return wasp_keyed_weigh(p, &pair_layout, w); /* totals have no contexts */
}

const wasp_profile_part wasp_profile_part_deadstore = {
    .sections = {SEC_PAIRS, SEC_TOTALS},
    .context_roles = WASP_AN_COUNT,
    .free = free_data,
    .check = check,
    .encode = encode,
    .decode = decode,
    .merge = merge,
    .weigh = weigh,
};
/* Their entries are deadstore's part's (above). */
const wasp_profile_part wasp_profile_part_silentstore = {0};
const wasp_profile_part wasp_profile_part_silentload = {0};
