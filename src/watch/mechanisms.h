/*
 * The mechanisms the run uses: the address sampler and the watchpoint engine
 * (NULL when no analysis watches), with one watch event's cost measured at
 * start-up. Chosen by proof and set only by agent/probe.c, through
 * wasp_mechanisms_set, before sampling starts; read-only while it runs.
 * Analyses never read it (docs/design.md: what differs between mechanisms
 * is a member of their tables).
 *
 * ASYNC-SIGNAL-SAFE: read by the signal handler; nothing writes it while
 * sampling is on.
 */
#ifndef WASP_MECHANISMS_H
#define WASP_MECHANISMS_H

#include <stdint.h>

#include "sample/source.h"

struct wasp_watch_engine;

typedef struct wasp_mechanisms {
    wasp_source *source;
    const struct wasp_watch_engine *watch; /* NULL when no analysis watches */
    uint64_t watch_event_ns;               /* one watch event's cost, measured at start-up */
    /* The part of a thread's time in a repeated string move, while a watch
     * is armed on it, that the watch costs: 1 - 1 / the engine's
     * string_slowdown, 0 when that is too small to tell. */
    double string_watch_share;
} wasp_mechanisms;

/* The mechanisms chosen (never NULL; members NULL until chosen). */
const wasp_mechanisms *wasp_chosen(void);
/* agent/probe.c only, before sampling starts. */
void wasp_mechanisms_set(const wasp_mechanisms *m);

#endif
