/*
 * Which part of the process's memory an address is in: a part of the Java
 * heap named as the collector names it (eden, survivor, old, humongous), the
 * heap as a whole when the collector's parts are not known, the code cache,
 * class metadata, the thread's stack, or other native memory.
 *
 * ASYNC-SIGNAL-SAFE: wasp_heap_area_of runs in the SIGTRAP handler (it reads
 * HotSpot's region table and spaces through wasp_safe_read).
 */
#ifndef WASP_HEAP_AREA_H
#define WASP_HEAP_AREA_H

#include <stdint.h>

/* Stored in profiles: never renumber, only append. */
typedef enum wasp_heap_area {
    WASP_AREA_UNKNOWN = 0,
    WASP_AREA_HEAP,        /* the Java heap, part not known */
    WASP_AREA_EDEN,
    WASP_AREA_SURVIVOR,
    WASP_AREA_OLD,
    WASP_AREA_HUMONGOUS,   /* G1 regions holding one large object */
    WASP_AREA_CODE,        /* the code cache */
    WASP_AREA_CLASS_META,  /* the compressed class space and CDS archive */
    WASP_AREA_STACK,       /* the sampled thread's stack */
    WASP_AREA_NATIVE,      /* anything else: malloc, metaspace, direct buffers */
    WASP_AREA_COUNT
} wasp_heap_area;

/* The spaces of Serial and Parallel (java_layout.h): eden, from, to, old. */
enum { WASP_HEAP_SPACES = 4 };
/* Space i's bounds [lo, hi) read now, with its area: 1, or 0 when it has
 * none (another collector) or they cannot be read. Two system calls. */
int wasp_heap_space(int i, uint64_t *lo, uint64_t *hi, wasp_heap_area *area);

/* The area of addr; sp is the sampled thread's stack pointer. */
wasp_heap_area wasp_heap_area_of(uint64_t addr, uint64_t sp);
/* 1 when addr is surely outside the Java heap: in the code cache, class
 * metadata or the thread's stack, or, where the heap is one known range
 * (G1, Serial, Parallel), anywhere outside it. 0 when in it or not sure. */
int wasp_heap_area_off_heap(uint64_t addr, uint64_t sp);
/* Whether an area is part of the Java heap. */
int wasp_heap_area_in_heap(wasp_heap_area a);
/* "eden", "old", "code cache", ...; "unknown" out of range. */
const char *wasp_heap_area_name(int a);

#endif
