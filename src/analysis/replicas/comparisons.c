/*
 * Field comparisons per allocation site (see comparisons.h).
 *
 * ASYNC-SIGNAL-SAFE: wasp_replica_comparisons_count runs in the handler.
 */
#include "analysis/replicas/comparisons.h"

#include <stdlib.h>

static uint32_t *counts;

int wasp_replica_comparisons_init(void)
{
    if (!counts)
        counts = calloc(WASP_MAX_SITES_COUNTED, sizeof *counts);
    return counts ? 0 : -1;
}

void wasp_replica_comparisons_count(uint32_t site)
{
    if (counts && site < WASP_MAX_SITES_COUNTED)
        __atomic_add_fetch(&counts[site], 1, __ATOMIC_RELAXED);
}

const uint32_t *wasp_replica_comparisons(void)
{
    return counts;
}
