/*
 * The locks analysis's blocked time for reports (profile.h,
 * wasp_lock_blocked): the locked classes ranked by the time threads were
 * found blocked on them, each with its kind (a monitor, or a park on a
 * java.util.concurrent lock) and its acquiring contexts ranked likewise.
 */
#ifndef WASP_ANALYSIS_LOCKS_WAITS_H
#define WASP_ANALYSIS_LOCKS_WAITS_H

#include <stdint.h>

#include "analysis/locks/profile.h"

typedef struct wasp_lock_waits_class {
    uint32_t cls, where; /* where: WASP_LOCK_MONITOR or WASP_LOCK_PARK's string */
    double samples, seconds;
    const wasp_lock_blocked *contexts; /* into the ranking's contexts, by seconds */
    uint32_t ncontexts;
} wasp_lock_waits_class;

typedef struct wasp_lock_waits {
    wasp_lock_waits_class *classes; /* by seconds */
    uint32_t nclasses;
    wasp_lock_blocked *contexts; /* grouped by class and kind */
    uint32_t ncontexts;
    double samples, seconds;
} wasp_lock_waits;

/* 0, or -1 when out of memory (w is then empty). */
int wasp_lock_waits_rank(const wasp_profile *p, wasp_lock_waits *w);
void wasp_lock_waits_free(wasp_lock_waits *w);
/* The 95% interval of a time estimated from n samples of a look at the
 * threads: seconds x (1 -+ 1.96 / sqrt(n)), the spread of a Poisson count
 * (the looks are evenly spaced, so the true spread is at most that). */
void wasp_lock_waits_interval(double n, double seconds, double *lo, double *hi);

#endif
