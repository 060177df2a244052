/*
 * A thread's recently found large objects (see recent_objects.h).
 *
 * ASYNC-SIGNAL-SAFE: no allocation, no locks; heap reads through
 * wasp_java_object_at (wasp_safe_read).
 */
#include "heap/recent_objects.h"

#include "heap/heap_area.h"
#include "heap/java_layout.h"
#include "heap/java_object.h"

void wasp_recent_objects_sync(wasp_recent_objects *r, uint32_t epoch)
{
    if (r->epoch == epoch)
        return;
    r->epoch = epoch;
    for (int i = 0; i < WASP_RECENT_OBJECTS; i++)
        if (!r->settled[i])
            r->start[i] = 0;
    for (int i = 0; i < WASP_RECENT_CLASSES; i++)
        r->class_klass[i] = 0;
    for (int i = 0; i < WASP_RECENT_REGIONS; i++)
        r->region_key[i] = 0;
    r->spaces_read = 0;
}

/* Reads the spaces' bounds into r (a space it cannot read holds nothing). */
static void read_spaces(wasp_recent_objects *r)
{
    for (int i = 0; i < WASP_HEAP_SPACES; i++) {
        wasp_heap_area a = WASP_AREA_HEAP;
        if (!wasp_heap_space(i, &r->space_lo[i], &r->space_hi[i], &a))
            r->space_lo[i] = r->space_hi[i] = 0;
        r->space_area[i] = (uint8_t)a;
    }
    r->spaces_read = 1;
}

/* The kept space holding addr: 1 with its area, else 0. */
static int kept_space(const wasp_recent_objects *r, uint64_t addr, wasp_heap_area *a)
{
    for (int i = 0; i < WASP_HEAP_SPACES; i++)
        if (addr >= r->space_lo[i] && addr < r->space_hi[i]) {
            *a = (wasp_heap_area)r->space_area[i];
            return 1;
        }
    return 0;
}

/* A Serial or Parallel heap's address: its space, from r's copy of the
 * spaces' bounds, read again (once) when none holds it: a space grew, or
 * could not be read. In no space: the heap, as wasp_heap_area_of says. */
static wasp_heap_area space_area(wasp_recent_objects *r, uint64_t addr)
{
    wasp_heap_area a;
    if (r->spaces_read && kept_space(r, addr, &a))
        return a;
    read_spaces(r);
    return kept_space(r, addr, &a) ? a : WASP_AREA_HEAP;
}

wasp_heap_area wasp_recent_heap_area(wasp_recent_objects *r, uint64_t addr, uint64_t sp)
{
    const wasp_java_layout *l = &wasp_java;
    if (!r || !__atomic_load_n(&l->ready, __ATOMIC_ACQUIRE) || addr < l->heap_lo ||
        addr >= l->heap_hi)
        return wasp_heap_area_of(addr, sp);
    if (l->gc == WASP_GC_SERIAL || l->gc == WASP_GC_PARALLEL)
        return space_area(r, addr);
    if (l->gc != WASP_GC_G1)
        return wasp_heap_area_of(addr, sp);
    _Static_assert((WASP_RECENT_REGIONS & (WASP_RECENT_REGIONS - 1)) == 0, "a power of two");
    uint64_t key = (addr >> l->g1_shift) + 1;
    uint32_t i = (uint32_t)key & (WASP_RECENT_REGIONS - 1);
    if (r->region_key[i] == key)
        return (wasp_heap_area)r->region_area[i];
    wasp_heap_area a = wasp_heap_area_of(addr, sp);
    if (a == WASP_AREA_EDEN || a == WASP_AREA_SURVIVOR || a == WASP_AREA_OLD ||
        a == WASP_AREA_HUMONGOUS) {
        r->region_key[i] = key;
        r->region_area[i] = (uint8_t)a;
    }
    return a;
}

int32_t wasp_recent_class_lh(wasp_recent_objects *r, uint64_t klass)
{
    _Static_assert((WASP_RECENT_CLASSES & (WASP_RECENT_CLASSES - 1)) == 0, "a power of two");
    uint32_t i = (uint32_t)((klass >> 3) * 0x9e3779b97f4a7c15ull >> 32) & (WASP_RECENT_CLASSES - 1);
    if (r->class_klass[i] == klass)
        return r->class_lh[i];
    int32_t lh = wasp_java_layout_helper(klass);
    if (lh) {
        r->class_klass[i] = klass;
        r->class_lh[i] = lh;
    }
    return lh;
}

void wasp_recent_objects_keep(wasp_recent_objects *r, const wasp_java_object *o)
{
    if (o->size <= WASP_JAVA_SCAN_BYTES)
        return; /* the backward search finds it anyway */
    for (int i = 0; i < WASP_RECENT_OBJECTS; i++)
        if (r->start[i] == o->start)
            return;
    uint32_t i = r->next++ % WASP_RECENT_OBJECTS;
    r->start[i] = o->start;
    r->end[i] = o->start + o->size;
    r->klass[i] = o->klass;
    wasp_heap_area a = wasp_heap_area_of(o->start, 0);
    r->settled[i] = a == WASP_AREA_OLD || a == WASP_AREA_HUMONGOUS;
}

int wasp_recent_objects_find(wasp_recent_objects *r, uint64_t addr, wasp_java_object *o)
{
    for (int i = 0; i < WASP_RECENT_OBJECTS; i++) {
        if (!r->start[i] || addr < r->start[i] || addr >= r->end[i])
            continue;
        if (wasp_java_object_at(r->start[i], addr, r, o) && o->klass == r->klass[i] &&
            o->start + o->size == r->end[i])
            return 1;
        r->start[i] = 0; /* not the object it was: forget it */
    }
    return 0;
}
