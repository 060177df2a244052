/*
 * Shared by the files of src/profile/: the checked variants of the public
 * mutators (the public ones in profile.h return void or an id and cannot say
 * "out of memory" or "bad id"; reading and merging must).
 */
#ifndef WASP_PROFILE_INTERNAL_H
#define WASP_PROFILE_INTERNAL_H

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

/* Grows *arr (elements of size el) so that it holds at least need elements. */
int wasp_grow(void *arr, uint32_t *cap, uint32_t need, size_t el);

#endif
