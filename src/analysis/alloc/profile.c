/*
 * The alloc analysis's part in the profile (see profile.h): keyed records
 * (profile/keyed_records.h) by (class string, context), section ALOC.
 */
#include "analysis/alloc/profile.h"

#include "analysis/ids.h"
#include "analysis/names.h"
#include "profile/keyed_records.h"

WASP_KEYED_LAYOUT(wasp_alloc_entry, 2, samples, 1);

static const wasp_keyed_layout layout = {
    .id = WASP_ID_alloc,
    .tag = WASP_TAG('A', 'L', 'O', 'C'),
    .what = "alloc entry",
    .nkeys = 2,
    .nsums = 1,
    .key = {WASP_KEY_STRING, WASP_KEY_CONTEXT},
    .size = sizeof(wasp_alloc_entry),
    .sums_offset = offsetof(wasp_alloc_entry, samples),
};

const wasp_alloc_entry *wasp_profile_allocs(const wasp_profile *p, uint32_t *n)
{
    return wasp_keyed_all(p, &layout, n);
}

int wasp_profile_add_alloc(wasp_profile *p, const wasp_alloc_entry *e)
{
    return wasp_keyed_add(p, &layout, e);
}

bool wasp_profile_has_allocs(const wasp_profile *p)
{
    uint32_t n;
    wasp_profile_allocs(p, &n);
    return n || wasp_events_name(wasp_profile_get_meta(p, "events"), "alloc");
}

WASP_KEYED_PROFILE_PART(wasp_profile_part_alloc, layout, WASP_TAG('A', 'L', 'O', 'C'));
