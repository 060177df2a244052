/*
 * G1's humongous objects by address (see humongous.h).
 *
 * ASYNC-SIGNAL-SAFE: every read goes through wasp_safe_read (heap_area.c,
 * java_object.c).
 */
#include "heap/humongous.h"

#include "heap/heap_area.h"
#include "heap/java_object.h"

uint64_t wasp_humongous_klass(uint64_t addr, uint64_t size)
{
    wasp_java_object o;
    if (wasp_heap_area_of(addr, 0) != WASP_AREA_HUMONGOUS ||
        !wasp_java_object_at(addr, addr, NULL, &o) || o.start != addr || o.size != size)
        return 0;
    return o.klass;
}
