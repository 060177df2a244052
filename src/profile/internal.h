/*
 * Shared by the files of src/profile/: the checked variants of the public
 * mutators (the public ones in profile.h return void or an id and cannot say
 * "out of memory" or "bad id"; reading and merging must).
 */
#ifndef WASP_PROFILE_INTERNAL_H
#define WASP_PROFILE_INTERNAL_H

#include <stdbool.h>

#include "profile/profile.h"

/* Returned by the intern functions on allocation failure or bad ids. */
#define WASP_NOID UINT32_MAX

/* Each returns 0, or -1 on allocation failure (or, for pairs, bad ids). */
int wasp_profile_add_pair_checked(wasp_profile *p, wasp_analysis a, uint32_t flags,
                                  uint32_t watch_ctx, uint32_t trap_ctx, double bytes,
                                  double count);
int wasp_profile_set_meta_checked(wasp_profile *p, const char *key, const char *value);
int wasp_profile_add_counter_checked(wasp_profile *p, const char *name, uint64_t v);
int wasp_profile_add_site_allocs_checked(wasp_profile *p, uint32_t site, double allocations,
                                         double bytes);
int wasp_profile_add_site_access_checked(wasp_profile *p, uint32_t site, uint32_t access_ctx,
                                         double samples, double remote);

int wasp_profile_add_replica_checked(wasp_profile *p, uint32_t site, uint32_t access_ctx,
                                     double same, double different);
/* Folds c into c->site's check (pairs and identical summed, alpha and
 * false_positive averaged weighted by pairs), adding it when the site has none. */
int wasp_profile_merge_replica_check_checked(wasp_profile *p, const wasp_replica_check *c);
/* Frees the replica arrays and index (wasp_profile_free calls it). */
void wasp_profile_free_replicas(wasp_profile *p);

/* Orderings (rank.c). cmp_desc sorts NaN last so the order stays total. */
int wasp_cmp_u32(uint32_t a, uint32_t b);
int wasp_cmp_desc(double a, double b);
/* An entry ranked by weight (descending), then context, then index. */
typedef struct wasp_ranked {
    double weight;
    uint32_t ctx, index;
} wasp_ranked;
/* Sorts r[0..n) (malloc'd by the caller, freed here) and returns the indices
 * in that order (never NULL for n == 0 unless out of memory). */
uint32_t *wasp_ranked_order(wasp_ranked *r, uint32_t n);
/* Whether the "events" metadata (names joined by '+', ',' or ':') names `name`. */
bool wasp_events_name(const char *events, const char *name);

/* Grows *arr (elements of size el) so that it holds at least need elements. */
int wasp_grow(void *arr, uint32_t *cap, uint32_t need, size_t el);

#endif
