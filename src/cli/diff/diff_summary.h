/*
 * The diff's summary (diff_summary.c): the places of the two profiles'
 * first findings, compared with their cost in CPU.
 */
#ifndef WASP_CLI_DIFF_SUMMARY_H
#define WASP_CLI_DIFF_SUMMARY_H

#include <stdio.h>

#include "cli/render/json_writer.h"
#include "profile/profile.h"

/* Its text (a "SUMMARY" heading, an analysis a block, then "DETAIL"; nothing
 * when neither profile has an analysis with a summary), and its JSON member
 * "summary". 0, or -1 when out of memory. */
int wasp_diff_summary_text(const wasp_profile *before, const wasp_profile *after, FILE *out);
int wasp_diff_summary_json(wasp_json *j, const wasp_profile *before, const wasp_profile *after);

#endif
