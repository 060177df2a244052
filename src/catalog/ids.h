/*
 * Analysis ids, generated from catalog/list.h: WASP_ID_deadstore = 0, ...,
 * and WASP_ANALYSES, how many there are; and the pair analyses' ids as the
 * profile's pair records and the pair judges (analysis.h) use them. Includes
 * nothing of another folder: every layer may include it.
 */
#ifndef WASP_ANALYSIS_IDS_H
#define WASP_ANALYSIS_IDS_H

#include "catalog/list.h"

#define WASP_ID_ENUM_(name, summary, a, b) WASP_ID_##name,
typedef enum wasp_analysis_id {
    WASP_FOR_EACH_ANALYSIS(WASP_ID_ENUM_, _, _) WASP_ANALYSES
} wasp_analysis_id;

/* The pair analyses, the first three of the list. */
typedef enum wasp_analysis {
    WASP_AN_DEADSTORE = WASP_ID_deadstore,
    WASP_AN_SILENTSTORE = WASP_ID_silentstore,
    WASP_AN_SILENTLOAD = WASP_ID_silentload,
    WASP_AN_COUNT = 3
} wasp_analysis;
_Static_assert(WASP_ID_deadstore == 0 && WASP_ID_silentstore == 1 && WASP_ID_silentload == 2,
               "the pair analyses come first (their ids are the profile's pair records')");

#endif
