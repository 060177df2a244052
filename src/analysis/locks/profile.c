/*
 * The locks analysis's part in the profile (see profile.h): two tables of
 * keyed records (profile/keyed_records.h) by (class string, where string,
 * context): lock samples, section LOCK, and the samples of blocked threads,
 * section LKBL. Blocked time is a section of its own, not more sums of LOCK,
 * so that files written before it read as they were.
 */
#include "analysis/locks/profile.h"

#include "catalog/ids.h"
#include "catalog/names.h"
#include "profile/keyed_records.h"

enum { SEC_SAMPLES = WASP_TAG('L', 'O', 'C', 'K'), SEC_BLOCKED = WASP_TAG('L', 'K', 'B', 'L') };

typedef struct locks_data {
    wasp_keyed_table samples; /* wasp_lock_entry */
    wasp_keyed_table blocked; /* wasp_lock_blocked */
} locks_data;

WASP_KEYED_LAYOUT(wasp_lock_entry, 3, acquire, 3);
WASP_KEYED_LAYOUT(wasp_lock_blocked, 3, samples, 2);

static const wasp_keyed_layout layout = {
    .id = WASP_ID_locks,
    .tag = SEC_SAMPLES,
    .what = "lock entry",
    .nkeys = 3,
    .nsums = 3,
    .key = {WASP_KEY_STRING, WASP_KEY_STRING, WASP_KEY_CONTEXT},
    .size = sizeof(wasp_lock_entry),
    .sums_offset = offsetof(wasp_lock_entry, acquire),
    .data_size = sizeof(locks_data),
    .table_offset = offsetof(locks_data, samples),
};

static const wasp_keyed_layout blocked_layout = {
    .id = WASP_ID_locks,
    .tag = SEC_BLOCKED,
    .what = "blocked-lock entry",
    .nkeys = 3,
    .nsums = 2,
    .key = {WASP_KEY_STRING, WASP_KEY_STRING, WASP_KEY_CONTEXT},
    .size = sizeof(wasp_lock_blocked),
    .sums_offset = offsetof(wasp_lock_blocked, samples),
    .weight_sums = 1,
    .data_size = sizeof(locks_data),
    .table_offset = offsetof(locks_data, blocked),
};

const wasp_lock_entry *wasp_profile_locks(const wasp_profile *p, uint32_t *n)
{
    return wasp_keyed_all(p, &layout, n);
}

int wasp_profile_add_lock(wasp_profile *p, const wasp_lock_entry *e)
{
    return wasp_keyed_add(p, &layout, e);
}

const wasp_lock_blocked *wasp_profile_locks_blocked(const wasp_profile *p, uint32_t *n)
{
    return wasp_keyed_all(p, &blocked_layout, n);
}

int wasp_profile_add_lock_blocked(wasp_profile *p, const wasp_lock_blocked *b)
{
    return wasp_keyed_add(p, &blocked_layout, b);
}

bool wasp_profile_has_locks(const wasp_profile *p)
{
    uint32_t n, nb;
    wasp_profile_locks(p, &n);
    wasp_profile_locks_blocked(p, &nb);
    return n || nb || wasp_events_name(wasp_profile_get_meta(p, "events"), "locks");
}

static const wasp_keyed_layout *const layouts[] = {&layout, &blocked_layout};
static const wasp_keyed_tables tables = {layouts, 2, 2};

WASP_KEYED_TABLES_PART(wasp_profile_part_locks, tables, SEC_SAMPLES, SEC_BLOCKED);
