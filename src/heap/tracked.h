/*
 * The tracked Java objects, process-wide: whether allocations are tracked,
 * the object map and the GC epoch it describes, the NUMA nodes their pages
 * may be on. Written by the agent's allocation tracking (agent/alloc.c) and
 * only there: before or outside sampling, or with atomic stores. Read by the
 * signal handler (watch/object_hit.c) and the analyses that need tracked
 * objects. How addresses compare is heap/heap_addresses.h.
 *
 * ASYNC-SIGNAL-SAFE: plain reads of settled fields, atomic loads of epochs.
 */
#ifndef WASP_HEAP_TRACKED_H
#define WASP_HEAP_TRACKED_H

#include <stdint.h>

#include "heap/objmap.h"

typedef struct wasp_tracked {
    int on;                         /* allocations are tracked */
    wasp_objmap *objmap;
    volatile uint32_t objmap_epoch; /* GC epoch the object map describes */
    int numa_nodes;
} wasp_tracked;

extern wasp_tracked wasp_objects;

#endif
