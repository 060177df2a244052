/*
 * The one ordering of the profile's rankings (pairs, sites, accesses,
 * replica sites and records; part.h's wasp_ranked), and the reading of the
 * "events" metadata.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile/part.h"

static int cmp_u32(uint32_t a, uint32_t b)
{
    return (a > b) - (a < b);
}

/* Descending, NaN last so the order stays total. */
static int cmp_desc(double a, double b)
{
    if (isnan(a) != isnan(b))
        return isnan(a) ? 1 : -1;
    if (a != b && !isnan(a))
        return a > b ? -1 : 1;
    return 0;
}

static int ranked_cmp(const void *x, const void *y)
{
    const wasp_ranked *a = x, *b = y;
    int c = 0;
    for (int i = 0; i < 3 && !c; i++)
        c = cmp_desc(a->weight[i], b->weight[i]);
    for (int i = 0; i < 3 && !c; i++)
        c = cmp_u32(a->key[i], b->key[i]);
    return c ? c : cmp_u32(a->index, b->index);
}

uint32_t *wasp_ranked_order(wasp_ranked *r, uint32_t n)
{
    uint32_t *out = r ? malloc((n ? n : 1) * sizeof *out) : NULL;
    if (out) {
        qsort(r, n, sizeof *r, ranked_cmp);
        for (uint32_t i = 0; i < n; i++)
            out[i] = r[i].index;
    }
    free(r);
    return out;
}

bool wasp_events_name(const char *events, const char *name)
{
    size_t len = strlen(name);
    while (events && *events) {
        size_t n = strcspn(events, "+,: ");
        if (n == len && strncmp(events, name, len) == 0)
            return true;
        events += n;
        events += strspn(events, "+,: ");
    }
    return false;
}
