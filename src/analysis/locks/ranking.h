/*
 * The locks analysis's rankings for reports: lock samples (acquiring
 * compare-and-swaps plus slow-path samples) by class of the locked object,
 * each class's acquiring contexts ranked likewise, and the slow-path samples
 * by runtime function.
 */
#ifndef WASP_ANALYSIS_LOCKS_RANKING_H
#define WASP_ANALYSIS_LOCKS_RANKING_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/locks/profile.h"

/* A (class, context)'s or a class's samples. */
typedef struct wasp_lock_sum {
    uint32_t cls, ctx; /* ctx: unused for classes */
    double acquire, release, slow;
    bool unwalked; /* ctx's stack was not walked: ranked after the others (profile.h) */
} wasp_lock_sum;

typedef struct wasp_lock_class {
    wasp_lock_sum sum;
    wasp_lock_sum *contexts; /* into the ranking's contexts, ranked */
    uint32_t ncontexts;
} wasp_lock_class;

typedef struct wasp_lock_function {
    uint32_t where;
    double slow;
} wasp_lock_function;

typedef struct wasp_lock_ranking {
    wasp_lock_class *classes;
    uint32_t nclasses;
    wasp_lock_sum *contexts; /* every (class, context), grouped by class */
    uint32_t ncontexts;
    wasp_lock_function *functions;
    uint32_t nfunctions;
    double acquire, release, slow; /* every entry's */
    double per_sample; /* acquisitions an acquiring sample stands for (estimate.h); NAN: not known */
} wasp_lock_ranking;

/* Lock samples of a sum: its acquisitions on either path. */
double wasp_lock_samples(const wasp_lock_sum *s);
/* Acquisitions of a sum, estimated from its acquiring samples (NAN: not known). */
double wasp_lock_acquisitions(const wasp_lock_ranking *r, const wasp_lock_sum *s);
/* 0, or -1 when out of memory (r is then empty). */
int wasp_lock_rank(const wasp_profile *p, wasp_lock_ranking *r);
void wasp_lock_ranking_free(wasp_lock_ranking *r);

#endif
