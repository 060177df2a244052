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
} wasp_heap_addressing;

extern wasp_heap_addressing wasp_heap_addresses;

#endif
