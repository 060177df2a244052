/*
 * The CPU of an allocation finding whose objects are created in a method
 * its place calls (the summary, report.c; docs/findings.md, "What exactly
 * is measured"). The cost of a creation is the samples at its creating
 * line (the TLAB bump, the header, the zeroing). When the place's line
 * creates the objects, or calls code inlined there that does, that line's
 * samples hold it. When the creation runs in a callee the JIT did not
 * inline there (javac's List.prepend under Ant's Javac13.execute, a grow
 * under an add), the place's line holds none of it: the report said "0.0%
 * of CPU". Then the creating line's samples count, the part of them that
 * is the place's: the share of the sampled creations at that line whose
 * stacks pass through the place.
 */
#ifndef WASP_ANALYSIS_ALLOC_REPORT_CREATING_LINE_H
#define WASP_ANALYSIS_ALLOC_REPORT_CREATING_LINE_H

#include <stdint.h>

#include "profile/profile.h"

/* The samples of the creating line of an allocation (context ctx, class
 * cls) that are its place's, when that is more than the place's line
 * holds (the callee was not inlined there); NAN when the place's line is
 * the measure (the place creates them, or the profile has no samples by
 * line). */
double wasp_alloc_callee_line_cpu(const wasp_profile *p, uint32_t ctx, uint32_t cls);

#endif
