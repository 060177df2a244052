/*
 * The names of heap areas (see heap_area.h), apart from the lookup so that
 * the report and the profile reader (and the fuzzer, which links them alone)
 * need nothing of the handler's code.
 */
#include "heap/heap_area.h"

static const char *const names[WASP_AREA_COUNT] = {
    [WASP_AREA_UNKNOWN] = "unknown",     [WASP_AREA_HEAP] = "heap",
    [WASP_AREA_EDEN] = "eden",           [WASP_AREA_SURVIVOR] = "survivor",
    [WASP_AREA_OLD] = "old",             [WASP_AREA_HUMONGOUS] = "humongous",
    [WASP_AREA_CODE] = "code cache",     [WASP_AREA_CLASS_META] = "class metadata",
    [WASP_AREA_STACK] = "thread stack",  [WASP_AREA_NATIVE] = "native",
};

const char *wasp_heap_area_name(int a)
{
    return a >= 0 && a < WASP_AREA_COUNT ? names[a] : names[WASP_AREA_UNKNOWN];
}

int wasp_heap_area_in_heap(wasp_heap_area a)
{
    return a >= WASP_AREA_HEAP && a <= WASP_AREA_HUMONGOUS;
}
