/*
 * The tracked Java objects, process-wide: whether allocations are tracked,
 * the object map and the GC epoch it describes, and how addresses compare.
 * Written by the agent's allocation tracking (agent/alloc.c) and heap probe
 * (agent/probe.c) before or outside sampling, or with atomic stores; read by
 * the signal handler (watch/object_hit.c) and the analyses that need tracked
 * objects.
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
    uint64_t address_mask;          /* strips ZGC colour bits; ~0 otherwise */
    int moves_concurrently;         /* ZGC or Shenandoah: objects move outside pauses */
    int numa_nodes;
} wasp_tracked;

extern wasp_tracked wasp_objects;

#endif
