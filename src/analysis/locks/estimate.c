/*
 * Lock acquisitions estimated from acquiring samples (see estimate.h).
 */
#include "analysis/locks/estimate.h"

#include "profile/profile.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

double wasp_lock_acquisitions_per_sample(const wasp_profile *p)
{
    double n, period_us, cas_ns;
    if (wasp_profile_get_meta_num(p, "locks_events_per_sample", &n) && n > 0)
        return n;
    if (wasp_profile_get_meta_num(p, "period_us", &period_us) && period_us > 0 &&
        wasp_profile_get_meta_num(p, "locks_cas_ns", &cas_ns) && cas_ns > 0)
        return period_us * 1000.0 / cas_ns;
    return NAN;
}

bool wasp_lock_event_counts_cas(const char *name)
{
    static const char *const counted[] = {
        "MEM_INST_RETIRED:ANY",         "MEM_INST_RETIRED:ALL_LOADS",
        "MEM_INST_RETIRED:ALL_STORES",  "MEM_INST_RETIRED:LOCK_LOADS",
        "MEM_UOPS_RETIRED:ALL_LOADS",   "MEM_UOPS_RETIRED:ALL_STORES",
        "MEM_UOPS_RETIRED:LOCK_LOADS",  "INST_RETIRED:ANY",
        "INST_RETIRED:ANY_P",           "INST_RETIRED:PREC_DIST",
    };
    for (size_t i = 0; name && i < sizeof counted / sizeof counted[0]; i++)
        if (strcasecmp(name, counted[i]) == 0)
            return true;
    return false;
}

bool wasp_lock_pmu_detail_counts_cas(const char *detail)
{
    const char *end;
    char name[128];
    if (!detail || strncmp(detail, "pmu: ", 5) != 0 || !(end = strstr(detail + 5, " every ")) ||
        end - (detail + 5) >= (long)sizeof name)
        return false;
    snprintf(name, sizeof name, "%.*s", (int)(end - (detail + 5)), detail + 5);
    return wasp_lock_event_counts_cas(name);
}
