/*
 * Analysis ids, generated from analysis/list.h: WASP_ID_deadstore = 0, ...,
 * and WASP_ANALYSES, how many there are.
 */
#ifndef WASP_ANALYSIS_IDS_H
#define WASP_ANALYSIS_IDS_H

#include "analysis/list.h"

#define WASP_ID_ENUM_(name, a, b) WASP_ID_##name,
typedef enum wasp_analysis_id {
    WASP_FOR_EACH_ANALYSIS(WASP_ID_ENUM_, _, _) WASP_ANALYSES
} wasp_analysis_id;

#endif
