/*
 * Tracked objects in the profile (alloc_dump.c). Not for signal handlers.
 */
#ifndef WASP_ALLOC_DUMP_H
#define WASP_ALLOC_DUMP_H

#include "agent/alloc.h"
#include "agent/dump.h"

/* Every allocation site with its sampled allocations, and how tracking ran,
 * into the profile being written (a wasp_dump_write extra). */
void wasp_alloc_dump(wasp_dump *d);

#endif
