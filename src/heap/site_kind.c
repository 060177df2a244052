/*
 * Allocation-site kinds (see site_kind.h). A kind is a byte: the element size
 * of a primitive array (1, 2, 4 or 8) with WASP_KIND_FLOAT set for float[] and
 * double[]; 0 when nothing is known (objects of classes).
 *
 * ASYNC-SIGNAL-SAFE: wasp_site_kind_fits reads a static table, wasp_kind_fits
 * is arithmetic; the agent
 * writes an entry once, before the handler can meet the site.
 */
#include "heap/site_kind.h"

#include <string.h>

static uint8_t kinds[WASP_SITE_KINDS_MAX];
/* Bytes before the first element, by log2 of the element size. */
static uint8_t headers[4] = {16, 16, 16, 16};

void wasp_site_kind_set_headers(const uint32_t header[4])
{
    for (int i = 0; i < 4; i++)
        if (header[i] >= 8 && header[i] <= 32)
            __atomic_store_n(&headers[i], (uint8_t)header[i], __ATOMIC_RELEASE);
}

uint32_t wasp_site_kind_header(uint8_t kind)
{
    uint32_t elem = kind & WASP_KIND_SIZE_MASK, log2 = 0;
    while (log2 < 3 && (1u << log2) < elem)
        log2++;
    uint32_t h = __atomic_load_n(&headers[log2], __ATOMIC_ACQUIRE);
    if (!elem) /* not an array of primitives: the smallest header */
        for (int i = 1; i < 4; i++) {
            uint32_t x = __atomic_load_n(&headers[i], __ATOMIC_ACQUIRE);
            h = x < h ? x : h;
        }
    return h;
}

void wasp_site_kind_set(uint32_t site, const char *class_name)
{
    if (site >= WASP_SITE_KINDS_MAX)
        return;
    static const struct {
        const char *name;
        uint8_t kind;
    } arrays[] = {{"boolean[]", 1}, {"byte[]", 1},  {"char[]", 2},
                  {"short[]", 2},   {"int[]", 4},   {"long[]", 8},
                  {"float[]", 4 | WASP_KIND_FLOAT},       {"double[]", 8 | WASP_KIND_FLOAT}};
    uint8_t k = 0;
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        if (strcmp(class_name, arrays[i].name) == 0)
            k = arrays[i].kind;
    __atomic_store_n(&kinds[site], k, __ATOMIC_RELEASE);
}

int wasp_site_kind_fits(uint32_t site, uint64_t offset, uint32_t size, uint8_t float_size)
{
    uint8_t k = site < WASP_SITE_KINDS_MAX ? __atomic_load_n(&kinds[site], __ATOMIC_ACQUIRE) : 0;
    /* Tracked arrays' headers (mark word, class, length, padding): as this
     * JVM lays them out. */
    return wasp_kind_fits(k, wasp_site_kind_header(k), offset, size, float_size);
}

int wasp_kind_fits(uint8_t k, uint32_t header, uint64_t offset, uint32_t size, uint8_t float_size)
{
    /* The header is read by bounds checks of every array: always a fit. */
    if (offset < header)
        return 1;
    uint32_t elem = k & WASP_KIND_SIZE_MASK;
    /* HotSpot lays fields and elements out at their natural alignment: a
     * scalar access off it belongs to no field of this object. Wider moves
     * (copies) need only an element's alignment. */
    uint32_t align = size <= 8 ? size : 1;
    if (elem && size > elem)
        align = elem;
    if (align > 1 && offset % align != 0)
        return 0;
    if (!k)
        return 1;
    if (float_size) /* a float access needs float elements of its width */
        return (k & WASP_KIND_FLOAT) && float_size == elem;
    /* Integer moves copy and fill any array, whole elements or more at a
     * time; narrower than an element is not an access to this array. */
    return size >= elem;
}
