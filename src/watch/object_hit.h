/*
 * The tracked Java object a sample touched, for the object-level analyses
 * (objects, replicas, and any analysis that needs WASP_NEEDS_OBJECTS): found
 * once per sample by the handler and handed to each of them.
 *
 * ASYNC-SIGNAL-SAFE: runs in the SIGTRAP handler.
 */
#ifndef WASP_OBJECT_HIT_H
#define WASP_OBJECT_HIT_H

#include "heap/attribute.h"
#include "watch/kit.h"

typedef struct wasp_object_hit {
    wasp_access acc;              /* the access, its address as the program uses it */
    uint64_t at;                  /* its instruction's address */
    uint8_t insn[WASP_MAX_INSN];  /* and bytes */
    wasp_obj obj;                 /* the object (masked addresses, see heap_address_mask) */
    int remote;                   /* its page sits on another NUMA node than the CPU */
    int executed;                 /* the access already ran (memory shows its effect) */
    int no_object;                /* found: an access that may be in the heap, in no object */
} wasp_object_hit;

/* t's recently found large objects (heap/recent_objects.h), for
 * wasp_java_object_find, emptied when a collection has run since; NULL where
 * objects move outside pauses (no epoch says they stayed). */
struct wasp_recent_objects *wasp_object_hit_recent(wasp_thread *t);

/* The access a CPU-time sample blames (h->acc, at, insn, executed): 1, or 0
 * with *rc wasp_view_find's answer (for wasp_view_count_miss). */
int wasp_object_hit_access(const wasp_sample_view *v, wasp_object_hit *h, int *rc);

/* The access a CPU-time sample blames and the tracked object it touched.
 * count_miss: count a sample without a usable access (when no other
 * analysis looks at the sample and would count it). Returns WASP_OBJ_HIT
 * with h filled, or why not (counted). */
wasp_obj_result wasp_object_hit_find(wasp_thread *t, const wasp_sample_view *v,
                                     wasp_object_hit *h, int count_miss);

#endif
