/*
 * The fields analysis's part in the profile (see profile.h): keyed records
 * (profile/keyed_records.h) in section FLDS.
 */
#include "analysis/fields/profile.h"

#include "catalog/ids.h"
#include "catalog/names.h"
#include "heap/heap_area.h"
#include "profile/keyed_records.h"

WASP_KEYED_LAYOUT(wasp_field_entry, 5, loads, 2);

static const wasp_keyed_layout layout = {
    .id = WASP_ID_fields,
    .tag = WASP_TAG('F', 'L', 'D', 'S'),
    .what = "field entry",
    .nkeys = 5,
    .nsums = 2,
    .key = {WASP_KEY_STRING, WASP_KEY_STRING, WASP_KEY_NUMBER, WASP_KEY_NUMBER, WASP_KEY_CONTEXT},
    .limit = {[3] = WASP_AREA_COUNT}, /* an area a newer wasp knows reads as unknown */
    .size = sizeof(wasp_field_entry),
    .sums_offset = offsetof(wasp_field_entry, loads),
};

const wasp_field_entry *wasp_profile_fields(const wasp_profile *p, uint32_t *n)
{
    return wasp_keyed_all(p, &layout, n);
}

int wasp_profile_add_field(wasp_profile *p, const wasp_field_entry *e)
{
    return e->area < WASP_AREA_COUNT ? wasp_keyed_add(p, &layout, e) : -1;
}

bool wasp_profile_has_fields(const wasp_profile *p)
{
    uint32_t n;
    wasp_profile_fields(p, &n);
    return n || wasp_events_name(wasp_profile_get_meta(p, "events"), "fields");
}

WASP_KEYED_PROFILE_PART(wasp_profile_part_fields, layout, WASP_TAG('F', 'L', 'D', 'S'));
