/*
 * The locks section's blocked time (waits.h) in the text and JSON reports
 * (report.c calls these): the locked classes by the time threads were found
 * blocked on them, with an interval, and their acquiring contexts. JSON: the
 * "blocked" member of "locks" (docs/report-json.md).
 */
#ifndef WASP_ANALYSIS_LOCKS_REPORT_WAITS_H
#define WASP_ANALYSIS_LOCKS_REPORT_WAITS_H

#include <stdio.h>

#include "cli/render/json_writer.h"
#include "profile/profile.h"

/* Whether the profile measured blocked time (a look ran, or samples). */
int wasp_lock_waits_measured(const wasp_profile *p);
int wasp_lock_waits_text(const wasp_profile *p, int top, FILE *out);
int wasp_lock_waits_json(wasp_json *j, const wasp_profile *p, int top);

#endif
