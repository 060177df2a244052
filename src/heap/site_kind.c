/*
 * Allocation-site kinds (see site_kind.h).
 *
 * ASYNC-SIGNAL-SAFE: wasp_site_kind_fits reads a static table; the agent
 * writes an entry once, before the handler can meet the site.
 */
#include "heap/site_kind.h"

#include <string.h>

enum { KIND_UNKNOWN = 0, KIND_FLOAT = 'F', KIND_DOUBLE = 'D', KIND_OTHER_ARRAY = 'A' };

static uint8_t kinds[WASP_SITE_KINDS_MAX];

void wasp_site_kind_set(uint32_t site, const char *class_name)
{
    if (site >= WASP_SITE_KINDS_MAX)
        return;
    static const char *const int_arrays[] = {"boolean[]", "byte[]", "char[]", "short[]",
                                             "int[]",     "long[]"};
    uint8_t k = KIND_UNKNOWN;
    if (strcmp(class_name, "float[]") == 0)
        k = KIND_FLOAT;
    else if (strcmp(class_name, "double[]") == 0)
        k = KIND_DOUBLE;
    for (size_t i = 0; i < sizeof int_arrays / sizeof int_arrays[0]; i++)
        if (strcmp(class_name, int_arrays[i]) == 0)
            k = KIND_OTHER_ARRAY;
    __atomic_store_n(&kinds[site], k, __ATOMIC_RELEASE);
}

int wasp_site_kind_fits(uint32_t site, uint32_t size, uint8_t float_size)
{
    (void)size;
    if (site >= WASP_SITE_KINDS_MAX || !float_size)
        return 1;
    uint8_t k = __atomic_load_n(&kinds[site], __ATOMIC_ACQUIRE);
    switch (k) {
    case KIND_FLOAT: return float_size == 4;
    case KIND_DOUBLE: return float_size == 8;
    case KIND_OTHER_ARRAY: return 0;
    default: return 1;
    }
}
