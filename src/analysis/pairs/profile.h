/*
 * The pair analyses (JXPerf: dead stores, silent stores, silent loads) in the
 * profile: their <watch, trap> context pairs and, per analysis, the totals
 * behind their fractions. One profile part serves the three (profile.c): its
 * sections, PAIR and TOTL, hold every pair analysis's entries keyed by
 * analysis, as the profile file has always had them.
 */
#ifndef WASP_ANALYSIS_PAIRS_PROFILE_H
#define WASP_ANALYSIS_PAIRS_PROFILE_H

#include <stdint.h>

#include "watch/pair_client.h" /* wasp_totals, wasp_pair_flags */
#include "catalog/ids.h"

typedef struct wasp_profile wasp_profile;

/* <C_watch, C_trap> for one analysis. bytes: wasteful bytes (dead / silent)
 * credited to the pair; count: the (proportionally attributed) number of
 * samples behind them. */
typedef struct wasp_pair {
    uint32_t analysis; /* wasp_analysis */
    uint32_t flags;    /* wasp_pair_flags */
    uint32_t watch_ctx;
    uint32_t trap_ctx;
    double bytes;
    double count;
} wasp_pair;

/* Adds bytes/count to the pair with the same (analysis, flags, watch, trap),
 * creating it when new: 0, or -1 when an id is out of range or out of memory. */
int wasp_profile_add_pair_checked(wasp_profile *p, wasp_analysis a, uint32_t flags,
                                  uint32_t watch_ctx, uint32_t trap_ctx, double bytes,
                                  double count);
/* The same where a failure can only be dropped (the agent's fold). */
void wasp_profile_add_pair(wasp_profile *p, wasp_analysis a, uint32_t flags,
                           uint32_t watch_ctx, uint32_t trap_ctx, double bytes,
                           double count);
/* Sums t into analysis a's totals. */
void wasp_profile_add_totals(wasp_profile *p, wasp_analysis a, const wasp_totals *t);

/* p's pairs, every analysis's, in the order they were first added, and their
 * count in *n (NULL and 0 when there are none). */
const wasp_pair *wasp_profile_pairs(const wasp_profile *p, uint32_t *n);
/* Pair i of p (an index wasp_profile_sorted_pairs gave); NULL when out of
 * range. */
const wasp_pair *wasp_profile_pair(const wasp_profile *p, uint32_t i);
/* Analysis a's totals (all zero when it has none). */
wasp_totals wasp_profile_totals(const wasp_profile *p, wasp_analysis a);

/* F_prog (JXPerf Sec. 4): (wasted + wasted_approx) / bytes, 0 when no bytes. */
double wasp_fraction_prog(const wasp_profile *p, wasp_analysis a);
/* F_<watch,trap>: pair bytes / total bytes of its analysis, 0 when no bytes. */
double wasp_fraction_pair(const wasp_profile *p, const wasp_pair *pair);

/* Indices of p's pairs of analysis a sorted by bytes, descending (ties broken
 * by watch then trap context id, so the order is deterministic). Caller frees.
 * *n receives the count. */
uint32_t *wasp_profile_sorted_pairs(const wasp_profile *p, wasp_analysis a, uint32_t *n);

#endif
