/*
 * What changes while a run goes on, for everything to see: the GC epoch
 * (bumped at every GC start and finish by agent.c's GC callbacks, so an odd
 * epoch means a GC is under way) and whether sampling is on (set by agent.c
 * when a session starts and stops; when off, the handlers ignore every
 * signal).
 *
 * ASYNC-SIGNAL-SAFE: read by the signal handlers; atomic loads and stores.
 */
#ifndef WASP_RUN_STATE_H
#define WASP_RUN_STATE_H

#include <stdbool.h>
#include <stdint.h>

/* The GC epoch now (acquire load). */
uint32_t wasp_gc_epoch(void);
/* A GC starts or finishes (release). agent.c only. */
void wasp_gc_epoch_bump(void);

/* Sampling is on: the handlers act on signals (acquire load). */
bool wasp_sampling(void);
/* Turn sampling on or off (release). agent.c only. */
void wasp_sampling_set(bool on);

#endif
