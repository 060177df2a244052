/* The pair analyses' findings for the report's summary (report_summary.c). */
#ifndef WASP_ANALYSIS_PAIRS_REPORT_SUMMARY_H
#define WASP_ANALYSIS_PAIRS_REPORT_SUMMARY_H

#include "cli/render/report_part.h"

/* The report part's `summary` of the three pair analyses. */
int wasp_pairs_summary(const wasp_profile *p, int id, int max, wasp_finding_sink *sink);

#endif
