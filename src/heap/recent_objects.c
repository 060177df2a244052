/*
 * A thread's recently found large objects (see recent_objects.h).
 *
 * ASYNC-SIGNAL-SAFE: no allocation, no locks; heap reads through
 * wasp_java_object_at (wasp_safe_read).
 */
#include "heap/recent_objects.h"

#include "heap/heap_area.h"
#include "heap/java_object.h"

void wasp_recent_objects_sync(wasp_recent_objects *r, uint32_t epoch)
{
    if (r->epoch == epoch)
        return;
    r->epoch = epoch;
    for (int i = 0; i < WASP_RECENT_OBJECTS; i++)
        if (!r->settled[i])
            r->start[i] = 0;
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
        if (wasp_java_object_at(r->start[i], addr, o) && o->klass == r->klass[i] &&
            o->start + o->size == r->end[i])
            return 1;
        r->start[i] = 0; /* not the object it was: forget it */
    }
    return 0;
}
