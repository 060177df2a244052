/*
 * The registry of profile parts, from catalog/list.h, and where each part's
 * kinds of context go when grouping by line.
 */
#include "profile/part.h"
#include "catalog/registry.h"

#include <stdlib.h>

WASP_REGISTRY(wasp_profile_part, wasp_profile_part_, wasp_profile_part_of)

void *wasp_profile_part_data(wasp_profile *p, int id, size_t size)
{
    if (!p->parts[id])
        p->parts[id] = calloc(1, size);
    return p->parts[id];
}

uint32_t wasp_profile_part_slot(int id)
{
    uint32_t slot = WASP_CORE_SLOTS;
    for (int i = 0; i < id && i < WASP_ANALYSES; i++)
        slot += registry_[i]->context_roles;
    return slot;
}

uint32_t wasp_profile_slots(void)
{
    return wasp_profile_part_slot(WASP_ANALYSES);
}
