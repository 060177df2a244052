/*
 * How this JVM's object addresses behave, process-wide: what part of an
 * address names an object (single-generation ZGC maps its heap at several
 * "colours"), and whether objects move outside GC pauses (ZGC, Shenandoah),
 * when a GC epoch does not say an object stayed where it was. Written once,
 * before sampling starts, by the agent's heap probe (agent/probe.c,
 * wasp_probe_heap_addresses) and only there; read by the signal handler and
 * the analyses.
 *
 * ASYNC-SIGNAL-SAFE: plain reads of values settled before sampling.
 */
#ifndef WASP_HEAP_HEAP_ADDRESSES_H
#define WASP_HEAP_HEAP_ADDRESSES_H

#include <stdint.h>

typedef struct wasp_heap_addressing {
    uint64_t address_mask;  /* strips ZGC colour bits; ~0 otherwise */
    int moves_concurrently; /* ZGC or Shenandoah: objects move outside pauses */
    int aliased;            /* ZGC: the heap's memory is mapped from a memfd, at several
                               addresses on JDK 17 (a store through one view changes
                               the others without touching them) */
    int zpointers;          /* generational ZGC: the VM's own oop slots (OopStorage: an
                               ObjectMonitor's object, global handles) hold coloured
                               zpointers, not addresses */
} wasp_heap_addressing;

extern wasp_heap_addressing wasp_heap_addresses;

/* The object address in an oop slot of the VM's own (an ObjectMonitor's
 * object handle): the value itself, but under generational ZGC a zpointer:
 * its remapped bits (12-15, one of them set) say how far the address is
 * shifted up (13 to 16 bits, HotSpot's ZPointerLoadShiftTable). 0 when the
 * value is no such pointer. */
static inline uint64_t wasp_heap_slot_address(uint64_t v)
{
    if (!wasp_heap_addresses.zpointers)
        return v;
    uint64_t remapped = (v >> 12) & 0xf;
    if (!remapped || (remapped & (remapped - 1)))
        return 0;
    return v >> (13 + __builtin_ctzll(remapped));
}

#endif
