/*
 * Analysis ids, generated from analysis/list.h: WASP_ID_deadstore = 0, ...,
 * and WASP_ANALYSES, how many there are.
 */
#ifndef WASP_ANALYSIS_IDS_H
#define WASP_ANALYSIS_IDS_H

typedef enum wasp_analysis_id {
#define WASP_ANALYSIS(name) WASP_ID_##name,
#include "analysis/list.h"
#undef WASP_ANALYSIS
    WASP_ANALYSES
} wasp_analysis_id;

#endif
