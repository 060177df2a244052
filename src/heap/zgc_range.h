/*
 * The arithmetic of ZGC's heap range (agent/zgc_heap.h reads the values from
 * VMStructs and /proc/self/maps). Pure functions, unit-tested.
 */
#ifndef WASP_HEAP_ZGC_RANGE_H
#define WASP_HEAP_ZGC_RANGE_H

#include <stdint.h>

/* [lo, hi) from ZAddressOffsetMask and, for single-generation ZGC, the
 * colour bits (ZAddressMetadataMask, and its finalizable bit, which no access
 * uses); both 0 for generational ZGC, whose heap base is the bit above the
 * offset bits. 0, or -1 when the values are not of that shape. */
int wasp_zgc_range_of(uint64_t offset_mask, uint64_t metadata_mask, uint64_t finalizable,
                      uint64_t *lo, uint64_t *hi);

/* One line of /proc/self/maps: 1 when it maps ZGC's heap memfd ("java_heap",
 * also "java_heap.hugetlb"), with its [start, end); 0 otherwise. */
int wasp_zgc_maps_line(const char *line, uint64_t *start, uint64_t *end);

#endif
