/*
 * Shared by the files of src/profile/: the checked variants of the public
 * mutators (the public ones in profile.h return void or an id and cannot say
 * "out of memory" or "bad id"; reading and merging must), and the id map
 * behind part.h's wasp_map_* functions.
 */
#ifndef WASP_PROFILE_INTERNAL_H
#define WASP_PROFILE_INTERNAL_H

#include <stdbool.h>

#include "profile/part.h"
#include "profile/profile.h"

/* Each returns 0, or -1 on allocation failure (or, for sites, bad ids). */
int wasp_profile_set_meta_checked(wasp_profile *p, const char *key, const char *value);
int wasp_profile_set_meta_num_checked(wasp_profile *p, const char *key, double value);
/* Sets kv->key as kv is: text or number. */
int wasp_profile_copy_meta_checked(wasp_profile *p, const wasp_kv *kv);
int wasp_profile_add_counter_checked(wasp_profile *p, const char *name, uint64_t v);
int wasp_profile_add_site_allocs_checked(wasp_profile *p, uint32_t site, double allocations,
                                         double bytes);

/* Source ids -> destination ids (part.h), built by a merge or by grouping.
 * A context's destination depends on its slot (grouping keeps the kinds of
 * context apart); strings may be interned on first use (grouping interns
 * only those it keeps). */
struct wasp_id_map {
    uint32_t (*str)(const wasp_id_map *m, uint32_t id);
    uint32_t (*ctx)(const wasp_id_map *m, uint32_t slot, uint32_t ctx);
    void *state;   /* theirs */
    uint32_t *site; /* source site -> destination site, filled by merging the sites */
    uint32_t slot; /* the slot of role 0 of the part being merged */
    bool by_method; /* grouping by method: the CPU samples by line summed by method */
};

/* dst += src's sites and then each analysis's data, through m (merge.c;
 * grouping by line uses it too). 0, or -1 when out of memory. */
int wasp_profile_merge_sites_and_parts(wasp_profile *dst, const wasp_profile *src, wasp_id_map *m);

#endif
