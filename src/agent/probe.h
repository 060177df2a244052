/*
 * What this machine and this JVM allow (probe.c). Not for signal handlers.
 */
#ifndef WASP_PROBE_H
#define WASP_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "agent/options.h"

/* Choose the address source by proof (sets wasp_chosen()->source, and no
 * watchpoint engine yet; watch/mechanisms.h): the one the options name, or
 * under auto the first of pmu, perf, timer whose sample arrives.
 * Sources tried and passed over are listed in passed[] with why. Returns 0,
 * or -1 with why[] saying what is missing and what to do. */
int wasp_probe_source(const wasp_options *o, unsigned wants, char *passed, size_t plen,
                      char *why, size_t len);
/* The same for the watchpoint engine (wasp_chosen()->watch and
 * ->watch_event_ns), after the source: debugreg, then page. */
int wasp_probe_watch(const wasp_options *o, char *passed, size_t plen, char *why, size_t len);
/* NUMA nodes configured (1 when libnuma says NUMA is unavailable). */
int wasp_probe_numa_nodes(void);
/* How object addresses behave with this collector: sets wasp_heap_addresses
 * (heap/heap_addresses.h), its only writer. Before sampling starts. */
void wasp_probe_heap_addresses(void);
/* The Java heap's address range [lo, hi) (the page engine protects nothing
 * else): HotSpot's reserved heap region, or ZGC's heap mappings. 0, or -1. */
int wasp_probe_heap_range(uint64_t *lo, uint64_t *hi);

#endif
