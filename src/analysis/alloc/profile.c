/*
 * The alloc analysis's part in the profile (see profile.h): two tables of
 * keyed records (profile/keyed_records.h) by (class string, context):
 * sampled creations, section ALOC, and their estimated bytes, section ALBY;
 * the bytes of objects allocated outside TLABs (JVMTI's samples), section
 * ALOT, apart from ALBY because the TLAB bytes are scaled to the measured
 * total and these are not (ranking.c).
 * Bytes are a section of their own, not a second sum of ALOC, so that files
 * written before them read as they were: with bytes not recorded.
 */
#include "analysis/alloc/profile.h"

#include "catalog/ids.h"
#include "catalog/names.h"
#include "profile/keyed_records.h"

enum {
    SEC_CREATIONS = WASP_TAG('A', 'L', 'O', 'C'),
    SEC_BYTES = WASP_TAG('A', 'L', 'B', 'Y'),
    SEC_OUTSIDE = WASP_TAG('A', 'L', 'O', 'T')
};

typedef struct alloc_data {
    wasp_keyed_table creations; /* wasp_alloc_entry */
    wasp_keyed_table bytes;     /* wasp_alloc_bytes */
    wasp_keyed_table outside;   /* wasp_alloc_bytes, outside TLABs */
} alloc_data;

WASP_KEYED_LAYOUT(wasp_alloc_entry, 2, samples, 1);
WASP_KEYED_LAYOUT(wasp_alloc_bytes, 2, bytes, 3);

static const wasp_keyed_layout layout = {
    .id = WASP_ID_alloc,
    .tag = SEC_CREATIONS,
    .what = "alloc entry",
    .nkeys = 2,
    .nsums = 1,
    .key = {WASP_KEY_STRING, WASP_KEY_CONTEXT},
    .size = sizeof(wasp_alloc_entry),
    .sums_offset = offsetof(wasp_alloc_entry, samples),
    .data_size = sizeof(alloc_data),
    .table_offset = offsetof(alloc_data, creations),
};

/* The bytes tables, TLAB and outside: the same records in other sections. */
#define BYTES_LAYOUT(TAG, WHAT, TABLE)                                                              \
    {                                                                                              \
        .id = WASP_ID_alloc, .tag = (TAG), .what = (WHAT), .nkeys = 2, .nsums = 3,                 \
        .key = {WASP_KEY_STRING, WASP_KEY_CONTEXT}, .size = sizeof(wasp_alloc_bytes),              \
        .sums_offset = offsetof(wasp_alloc_bytes, bytes), .data_size = sizeof(alloc_data),         \
        .table_offset = offsetof(alloc_data, TABLE),                                               \
    }

static const wasp_keyed_layout bytes_layout = BYTES_LAYOUT(SEC_BYTES, "alloc bytes entry", bytes);
static const wasp_keyed_layout outside_layout =
    BYTES_LAYOUT(SEC_OUTSIDE, "alloc outside-TLAB bytes entry", outside);

const wasp_alloc_entry *wasp_profile_allocs(const wasp_profile *p, uint32_t *n)
{
    return wasp_keyed_all(p, &layout, n);
}

int wasp_profile_add_alloc(wasp_profile *p, const wasp_alloc_entry *e)
{
    return wasp_keyed_add(p, &layout, e);
}

const wasp_alloc_bytes *wasp_profile_alloc_bytes(const wasp_profile *p, uint32_t *n)
{
    return wasp_keyed_all(p, &bytes_layout, n);
}

int wasp_profile_add_alloc_bytes(wasp_profile *p, const wasp_alloc_bytes *b)
{
    return wasp_keyed_add(p, &bytes_layout, b);
}

const wasp_alloc_bytes *wasp_profile_alloc_outside(const wasp_profile *p, uint32_t *n)
{
    return wasp_keyed_all(p, &outside_layout, n);
}

int wasp_profile_add_alloc_outside(wasp_profile *p, const wasp_alloc_bytes *b)
{
    return wasp_keyed_add(p, &outside_layout, b);
}

bool wasp_profile_has_allocs(const wasp_profile *p)
{
    uint32_t n;
    wasp_profile_allocs(p, &n);
    return n || wasp_events_name(wasp_profile_get_meta(p, "events"), "alloc");
}

static const wasp_keyed_layout *const layouts[] = {&layout, &bytes_layout, &outside_layout};
/* The bytes' contexts are the creations': only those weigh. */
static const wasp_keyed_tables tables = {layouts, 3, 1};

WASP_KEYED_TABLES_PART(wasp_profile_part_alloc, tables, SEC_CREATIONS, SEC_BYTES, SEC_OUTSIDE);
