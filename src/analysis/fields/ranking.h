/*
 * The fields analysis's rankings for reports: its entries grouped by member
 * (class + field, or class + array elements) and by class, each ranked by
 * sampled accesses; a member's contexts ranked likewise. Off-heap entries and
 * heap samples whose object was not found are summed apart by area.
 */
#ifndef WASP_ANALYSIS_FIELDS_RANKING_H
#define WASP_ANALYSIS_FIELDS_RANKING_H

#include <stdint.h>

#include "analysis/fields/profile.h"
#include "heap/heap_area.h"

typedef struct wasp_field_group {
    uint32_t cls, member, offset;   /* member and offset: unused for classes */
    double loads, stores;
    double area[WASP_AREA_COUNT];   /* samples by heap area */
    uint32_t *entries, nentries;    /* its entries, ranked by samples (members only) */
} wasp_field_group;

typedef struct wasp_field_ranking {
    wasp_field_group *members, *classes;
    uint32_t nmembers, nclasses;
    double heap, named;                 /* heap samples; of them, with a named class */
    double area[WASP_AREA_COUNT];       /* every sample by area (heap and off-heap) */
} wasp_field_ranking;

/* 0, or -1 when out of memory (r is then empty). */
int wasp_field_rank(const wasp_profile *p, wasp_field_ranking *r);
void wasp_field_ranking_free(wasp_field_ranking *r);

#endif
