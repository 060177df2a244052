/*
 * wasp report --thread PATTERN: keep only the evidence of the threads whose
 * name matches (docs/findings.md, "Choosing what is shown"). A profile
 * recorded with --threads has each context's thread as its root frame
 * (profile/thread_frame.h); the pattern is a glob (frame_filter.h) matched
 * against that name, digits folded to '#' as recorded.
 */
#ifndef WASP_CLI_THREAD_FILTER_H
#define WASP_CLI_THREAD_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/render/frame_filter.h"
#include "profile/profile.h"

/* Is c of a thread matching one of the n patterns? A context without a
 * thread (allocations, class sites) matches none. */
bool wasp_thread_matches(const wasp_profile *p, const wasp_context *c,
                         const char *const *patterns, int n);

/* --thread PATTERN (option as given): value added to f's thread patterns.
 * 0, or -1 with err set (naming the option and what it accepts). */
int wasp_thread_pattern_add(const char *option, const char *value, wasp_frame_filter *f,
                            char *err, size_t errlen);

/* 0 when p records threads; else -1 with why in err (the option's name,
 * what to do). */
int wasp_thread_filter_check(const wasp_profile *p, char *err, size_t errlen);

#endif
