/*
 * JVM start-up work: class loading, linking, static initialisers and lambda
 * bootstrap. A short run's findings there are the price of starting, not
 * something the application's code can fix, so the summary leaves them out
 * of its top findings and says how much of the evidence they are
 * (docs/findings.md, "Start-up work").
 */
#ifndef WASP_CLI_STARTUP_FRAMES_H
#define WASP_CLI_STARTUP_FRAMES_H

#include <stdbool.h>

#include "profile/profile.h"

/* Is c start-up work: has it a frame matching the list (startup_frames.c)? */
bool wasp_context_startup(const wasp_profile *p, const wasp_context *c);

#endif
