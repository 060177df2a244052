/*
 * The report renderers and what they share. Private to src/cli/ (report.c
 * dispatches to them).
 */
#ifndef WASP_CLI_RENDER_H
#define WASP_CLI_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "profile/profile.h"

/* top: pairs shown per analysis; <= 0 means every pair. Return 0, or -1
 * when out of memory (write errors are left in out's error flag). */
int wasp_render_text(const wasp_profile *p, int top, FILE *out);
int wasp_render_json(const wasp_profile *p, int top, FILE *out);

/* Analyses a report shows: those named in meta "events" ("a+b" or "a,b")
 * and those with any data (a merge may bring in analyses the first run's
 * "events" does not name). */
void wasp_report_enabled(const wasp_profile *p, bool enabled[WASP_AN_COUNT]);

/* "java", "native", "stub", "unknown" (also for kinds from newer writers). */
/* How many of n ranked entries a report shows under --top (top <= 0: all). */
uint32_t wasp_report_shown(int top, uint32_t n);
const char *wasp_frame_kind_name(uint32_t kind);

/* Does the profile have a counter of that name (zero or not)? */
bool wasp_has_counter(const wasp_profile *p, const char *name);

#endif
