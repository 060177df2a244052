/* ZGC's heap range arithmetic; see zgc_range.h. */
#include "heap/zgc_range.h"

#include <stdio.h>
#include <string.h>

int wasp_zgc_range_of(uint64_t offset_mask, uint64_t metadata_mask, uint64_t finalizable,
                      uint64_t *lo, uint64_t *hi)
{
    /* The offset bits are the low ones, at least a GiB of them, and leave
     * room for the colours below the 47-bit user address space. */
    if (!offset_mask || (offset_mask & (offset_mask + 1)) || offset_mask < (1ull << 30) - 1 ||
        offset_mask >= (1ull << 45) - 1)
        return -1;
    uint64_t size = offset_mask + 1;
    if (!metadata_mask) { /* generational: base + offset */
        if (finalizable)
            return -1;
        *lo = size;
        *hi = 2 * size;
        return 0;
    }
    /* Single generation: three views (marked0, marked1, remapped), each a
     * single bit above the offset bits. */
    uint64_t views = metadata_mask & ~finalizable;
    if ((views & offset_mask) || __builtin_popcountll(views) != 3 ||
        (finalizable & (finalizable - 1)) || (finalizable & offset_mask))
        return -1;
    uint64_t low = views & -views;
    uint64_t high = 1ull << (63 - __builtin_clzll(views));
    if (high >= (1ull << 47) - size)
        return -1;
    *lo = low;
    *hi = high + size;
    return 0;
}

int wasp_zgc_maps_line(const char *line, uint64_t *start, uint64_t *end)
{
    unsigned long long a, b;
    const char *name = strrchr(line, '/');
    if (!name || strncmp(name, "/memfd:java_heap", 16) != 0 ||
        sscanf(line, "%llx-%llx", &a, &b) != 2 || b <= a)
        return 0;
    *start = a;
    *end = b;
    return 1;
}
