/*
 * The locks analysis's part in the profile (see profile.h): keyed records
 * (profile/keyed_records.h) by (class string, where string, context),
 * section LOCK.
 */
#include "analysis/locks/profile.h"

#include "analysis/ids.h"
#include "analysis/names.h"
#include "profile/keyed_records.h"

WASP_KEYED_LAYOUT(wasp_lock_entry, 3, acquire, 3);

static const wasp_keyed_layout layout = {
    .id = WASP_ID_locks,
    .tag = WASP_TAG('L', 'O', 'C', 'K'),
    .what = "lock entry",
    .nkeys = 3,
    .nsums = 3,
    .key = {WASP_KEY_STRING, WASP_KEY_STRING, WASP_KEY_CONTEXT},
    .size = sizeof(wasp_lock_entry),
    .sums_offset = offsetof(wasp_lock_entry, acquire),
};

const wasp_lock_entry *wasp_profile_locks(const wasp_profile *p, uint32_t *n)
{
    return wasp_keyed_all(p, &layout, n);
}

int wasp_profile_add_lock(wasp_profile *p, const wasp_lock_entry *e)
{
    return wasp_keyed_add(p, &layout, e);
}

bool wasp_profile_has_locks(const wasp_profile *p)
{
    uint32_t n;
    wasp_profile_locks(p, &n);
    return n || wasp_events_name(wasp_profile_get_meta(p, "events"), "locks");
}

WASP_KEYED_PROFILE_PART(wasp_profile_part_locks, layout, WASP_TAG('L', 'O', 'C', 'K'));
