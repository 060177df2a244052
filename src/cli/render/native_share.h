/*
 * Which callers a native method's CPU is theirs (the summary,
 * report_summary.c; docs/findings.md "Cost in CPU"). The CPU samples taken
 * in a native method count at its frame (no line), whoever called it: h2's
 * Object.clone samples are its page copies', yet a dead store in
 * Token.clone, which also calls Object.clone, took all of them as its cost.
 * A place's part is the share of the analyses' sampled stacks in the native
 * method that pass through the place (wasp_place_frame), each weighing its
 * samples.
 */
#ifndef WASP_CLI_NATIVE_SHARE_H
#define WASP_CLI_NATIVE_SHARE_H

#include <stdint.h>

#include "profile/profile.h"

typedef struct wasp_native_shares wasp_native_shares;

/* Tallied from the stacks of the analyses p's report shows. NULL when out
 * of memory. */
wasp_native_shares *wasp_native_shares_of(const wasp_profile *p);
void wasp_native_shares_free(wasp_native_shares *s);

/* The share (0..1) of the sampled stacks whose innermost Java frame is the
 * native method named `native` that pass through the place (method name,
 * line); 1 when no sampled stack is in it (nothing to apportion by). Names
 * are strings, so that a place of another profile can be looked up. */
double wasp_native_share(const wasp_native_shares *s, const char *native, const char *method,
                         int32_t line);

#endif
