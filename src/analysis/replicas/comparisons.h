/*
 * Field comparisons per allocation site, counted by the replicas handler part
 * and read by the end-of-run verification (--verify-top), which checks the
 * sites with the most comparisons.
 */
#ifndef WASP_REPLICA_COMPARISONS_H
#define WASP_REPLICA_COMPARISONS_H

#include <stdint.h>

enum { WASP_MAX_SITES_COUNTED = 1u << 16 };

/* Allocates the counters (once; not in a handler). 0, or -1 out of memory. */
int wasp_replica_comparisons_init(void);
/* One more comparison of site. ASYNC-SIGNAL-SAFE (an atomic add). */
void wasp_replica_comparisons_count(uint32_t site);
/* The counters, WASP_MAX_SITES_COUNTED of them; NULL before init. */
const uint32_t *wasp_replica_comparisons(void);

#endif
