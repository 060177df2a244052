/*
 * Object-centric attribution (DJXPerf): which tracked object — and so which
 * allocation site — an address sample touched, and whether the touched page
 * lives on another NUMA node than the CPU that touched it.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler (a lock-free map lookup and,
 * on multi-node machines, two system calls).
 */
#ifndef WASP_HEAP_ATTRIBUTE_H
#define WASP_HEAP_ATTRIBUTE_H

#include <stdint.h>

#include "heap/objmap.h"

typedef enum wasp_obj_result {
    WASP_OBJ_HIT = 0,  /* inside a tracked object: *obj set */
    WASP_OBJ_MISS,     /* no tracked object there */
    WASP_OBJ_STALE     /* the map still describes the heap before the last GC */
} wasp_obj_result;

/* gc_epoch: the current GC epoch; map_epoch: the epoch the map was last
 * rebuilt for. numa_nodes > 1 enables the remote check (*remote = 0/1). */
wasp_obj_result wasp_objects_attribute(wasp_objmap *map, uint64_t addr, uint32_t gc_epoch,
                                       uint32_t map_epoch, int numa_nodes, wasp_obj *obj,
                                       int *remote);

#endif
