/*
 * The alloc analysis's rankings for reports: classes by sampled creations,
 * and allocation sites (class + context) by sampled creations. Pure: from the
 * profile's entries only.
 */
#ifndef WASP_ANALYSIS_ALLOC_RANKING_H
#define WASP_ANALYSIS_ALLOC_RANKING_H

#include <stdint.h>

#include "analysis/alloc/profile.h"

typedef struct wasp_alloc_class {
    uint32_t cls;     /* string id */
    double samples;   /* its sampled creations */
    uint32_t nsites;  /* its entries */
} wasp_alloc_class;

typedef struct wasp_alloc_ranking {
    wasp_alloc_class *classes; /* by samples, then name id */
    uint32_t nclasses;
    uint32_t *sites;           /* entry indices by samples, then class, then context */
    uint32_t nsites;
    double samples;            /* every entry's */
} wasp_alloc_ranking;

/* 0, or -1 when out of memory (r is then empty). */
int wasp_alloc_rank(const wasp_profile *p, wasp_alloc_ranking *r);
void wasp_alloc_ranking_free(wasp_alloc_ranking *r);

#endif
