/*
 * What a thread found lately in the heap: the layout helpers of classes and
 * the areas of G1 regions it read (each read a system call), and objects,
 * kept for the samples whose instruction does
 * not name their object: an array walked through a pointer the JIT derived
 * from its base (`mov %r10d, (%rbx)` into an Object[] of 16 KiB), deeper in
 * it than the backward search reaches. Only objects larger than that reach
 * are kept. Each use checks the object again: its class word and size, read
 * at its start, must still be the ones kept. A collection moves young
 * objects and frees their space for new ones, whose headers come later than
 * their space is used: entries in the young generation last one GC epoch;
 * old and humongous ones stay (a young collection leaves them, and a full
 * one that moves them leaves something else at their start). Where objects
 * move outside pauses (ZGC, Shenandoah) the caller keeps none.
 *
 * ASYNC-SIGNAL-SAFE: the thread's own table, read and written in its
 * handler; objects are re-read through wasp_safe_read.
 */
#ifndef WASP_HEAP_RECENT_OBJECTS_H
#define WASP_HEAP_RECENT_OBJECTS_H

#include <stdint.h>

#include "heap/heap_area.h"

enum { WASP_RECENT_OBJECTS = 8, WASP_RECENT_CLASSES = 16, WASP_RECENT_REGIONS = 16 };

typedef struct wasp_recent_objects {
    uint32_t epoch; /* the GC epoch of the entries */
    uint32_t next;  /* the entry replaced next (round robin) */
    uint64_t start[WASP_RECENT_OBJECTS]; /* 0: empty */
    uint64_t end[WASP_RECENT_OBJECTS];
    uint64_t klass[WASP_RECENT_OBJECTS];
    uint8_t settled[WASP_RECENT_OBJECTS]; /* old or humongous when kept */
    /* Classes' layout helpers, by class (direct-mapped; 0: empty). */
    uint64_t class_klass[WASP_RECENT_CLASSES];
    int32_t class_lh[WASP_RECENT_CLASSES];
    /* G1 regions' areas, by region number + 1 (direct-mapped; 0: empty). */
    uint64_t region_key[WASP_RECENT_REGIONS];
    uint8_t region_area[WASP_RECENT_REGIONS];
    /* Serial's and Parallel's spaces, read once an epoch (spaces_read). */
    uint64_t space_lo[WASP_HEAP_SPACES], space_hi[WASP_HEAP_SPACES];
    uint8_t space_area[WASP_HEAP_SPACES];
    uint8_t spaces_read;
} wasp_recent_objects;

typedef struct wasp_java_object wasp_java_object;

/* At a new epoch, forgets r's young objects, its classes and its regions. */
void wasp_recent_objects_sync(wasp_recent_objects *r, uint32_t epoch);
/* Keeps o, when it is larger than the backward search reaches and not kept
 * already. */
void wasp_recent_objects_keep(wasp_recent_objects *r, const wasp_java_object *o);
/* The kept object that holds addr, read again from the heap: 1 with o, else
 * 0 (an entry whose object no longer reads back is dropped). */
int wasp_recent_objects_find(wasp_recent_objects *r, uint64_t addr, wasp_java_object *o);

/* The layout helper of class klass (wasp_java_layout_helper), read once per
 * GC epoch: a class does not change its layout, but one unloaded at a GC
 * may leave its address to another. Each read is a system call, cold in a
 * handler every few ms (~3-5 us on a VM), once per sample in a heap. */
int32_t wasp_recent_class_lh(wasp_recent_objects *r, uint64_t klass);

/* wasp_heap_area_of(addr, sp), with what it read kept for the epoch:
 *  - G1: a region's area once it is eden, survivor, old or humongous. A
 *    region changes kind only in a collection pause, but for a free one
 *    that becomes eden or humongous (not kept). Two system calls a sample
 *    in the heap, without.
 *  - Serial, Parallel: the spaces' bounds. They change in a pause, but for
 *    the old generation growing to take an allocation: for an address in no
 *    space kept, the spaces are read again.
 *    Up to eight system calls a sample, without.
 * r may be NULL (read each time). */
wasp_heap_area wasp_recent_heap_area(wasp_recent_objects *r, uint64_t addr, uint64_t sp);

#endif
