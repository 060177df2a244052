/*
 * Tracked objects in the profile: every allocation site with its sampled
 * allocations, and how the tracking ran (its counters and settings), for the
 * analyses that need tracked objects: what came since the last snapshot.
 * Not for signal handlers; runs when a profile is written.
 */
#include "agent/alloc_dump.h"
#include "watch/records.h"
#include "watch/mechanisms.h"
#include "heap/tracked.h"

static void add_site_allocs(uint32_t id, const wasp_alloc_site *s, void *arg)
{
    (void)id;
    wasp_dump *d = arg; /* the tracker's lock is held: no wasp_dump_site here */
    uint32_t site = wasp_dump_alloc_site(d, s);
    if (site != UINT32_MAX)
        wasp_profile_add_site_allocs(wasp_dump_profile(d), site, s->allocations, s->bytes);
}

void wasp_alloc_dump(wasp_dump *d)
{
    wasp_profile *p = wasp_dump_profile(d);
    const wasp_dump_info *info = wasp_dump_settings(d);
    uint64_t events;
    wasp_alloc_take_sites(add_site_allocs, d, &events);
    /* Zero included: "0 unattributed" says something a missing counter does not. */
    static const wasp_counter_id lookups[] = {WASP_C_OBJ_SAMPLES, WASP_C_OBJ_UNATTRIBUTED,
                                              WASP_C_OBJ_STALE};
    for (size_t i = 0; i < sizeof lookups / sizeof lookups[0]; i++)
        wasp_profile_add_counter(p, wasp_counter_name(lookups[i]), 0);
    wasp_profile_add_counter(p, "objects.alloc_events", events);
    const wasp_source *src = wasp_chosen()->source;
    wasp_profile_set_meta(p, "objects.metric",
                          src && !src->time_based
                              ? src->detail
                              : "software address samples weighted by thread CPU time");
    wasp_profile_set_meta_rounded(p, "objects.min_size", info->min_size, "%.0f");
    wasp_profile_set_meta_rounded(p, "objects.sampling_interval", info->alloc_interval, "%.0f");
    if (wasp_alloc_max_interval() > info->alloc_interval)
        wasp_profile_set_meta_rounded(p, "objects.sampling_interval_max", (double)wasp_alloc_max_interval(),
                           "%.0f");
    wasp_profile_set_meta_rounded(p, "numa_nodes", wasp_objects.numa_nodes > 0 ? wasp_objects.numa_nodes : 1, "%.0f");
}
