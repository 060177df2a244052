/*
 * What this machine and this JVM allow (probe.c). Not for signal handlers.
 */
#ifndef WASP_PROBE_H
#define WASP_PROBE_H

#include <stddef.h>

#include "agent/options.h"

/* Can this thread open the events every profiled thread needs? 0, or -1 with
 * a sentence saying what is missing and what to do. */
int wasp_probe_perf(char *why, size_t len);
/* Choose and initialise the address source into wasp_rt.source. */
int wasp_probe_source(const wasp_options *o, char *why, size_t len);
/* NUMA nodes configured (1 when libnuma says NUMA is unavailable). */
int wasp_probe_numa_nodes(void);
/* How object addresses compare (sets wasp_rt.heap_address_mask); -1 with a
 * reason when the objects analysis cannot work with this collector (none
 * known today: the integration tests cover Serial, Parallel, G1 and ZGC). */
int wasp_probe_heap_addresses(char *why, size_t len);

#endif
