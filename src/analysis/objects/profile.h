/*
 * Object-centric profiling (DJXPerf) in the profile: the accesses to the
 * objects of each allocation site (the sites themselves are the profile's,
 * profile.h), keyed by (site, accessing context). Its profile part
 * (profile.c) keeps them, writes them as section SACC, merges and groups them.
 */
#ifndef WASP_ANALYSIS_OBJECTS_PROFILE_H
#define WASP_ANALYSIS_OBJECTS_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct wasp_profile wasp_profile;

typedef struct wasp_site_access {
    uint32_t site;        /* index into the profile's sites */
    uint32_t access_ctx;  /* context of the accessing instruction (frames + insn) */
    double samples;       /* address samples that hit objects of the site from this context */
    double remote;        /* of those, samples where the page's NUMA node differs from the CPU's */
} wasp_site_access;

/* Where objects too small to track were allocated, by class: the JVMTI
 * allocation samples of objects under min-size, keyed by (class, allocation
 * context). The samples that hit such objects are attributed to their class
 * (a class site); these say where that class is allocated. Section SUNT. */
typedef struct wasp_untracked_alloc {
    uint32_t role;     /* always WASP_OBJECTS_ROLE_ALLOC: its context's kind, for grouping */
    uint32_t cls;      /* the class name, a string of the profile */
    uint32_t ctx;      /* the allocation context (Java frames, no instruction) */
    double allocations; /* sampled allocations */
    double bytes;       /* their bytes */
} wasp_untracked_alloc;

enum { WASP_OBJECTS_ROLE_ACCESS = 0, WASP_OBJECTS_ROLE_ALLOC = 1 };

/* p's untracked allocations and their count in *n (NULL and 0: none). */
const wasp_untracked_alloc *wasp_profile_untracked_allocs(const wasp_profile *p, uint32_t *n);
/* Adds to the (cls, ctx) entry, creating it: 0, or -1 when an id is out of
 * range or out of memory. */
int wasp_profile_add_untracked_alloc(wasp_profile *p, uint32_t cls, uint32_t ctx,
                                     double allocations, double bytes);

/* p's accesses, in the order they were first added, and their count in *n
 * (NULL and 0 when there are none). */
const wasp_site_access *wasp_profile_site_accesses(const wasp_profile *p, uint32_t *n);

/* Adds samples/remote to the access with the same (site, access_ctx),
 * creating it when new (nothing when an id is out of range or out of memory). */
void wasp_profile_add_site_access(wasp_profile *p, uint32_t site, uint32_t access_ctx,
                                  double samples, double remote);
/* The same, saying 0, or -1 when an id is out of range or out of memory. */
int wasp_profile_add_site_access_checked(wasp_profile *p, uint32_t site, uint32_t access_ctx,
                                         double samples, double remote);
/* The site's samples (the sum over its accesses) and, in *remote when not
 * NULL, its remote samples. 0 for an unknown site. */
double wasp_profile_site_samples(const wasp_profile *p, uint32_t site, double *remote);
/* Indices of p's sites by total samples, descending; ties by bytes, then
 * allocations (descending), then allocation context and class id, so the
 * order is deterministic. Caller frees; non-NULL (even for none) unless out
 * of memory. *n receives the count. */
uint32_t *wasp_profile_sorted_sites(const wasp_profile *p, uint32_t *n);
/* Indices (into the accesses) of one site's accesses by samples, descending;
 * ties by access context id. Caller frees; NULL only when out of memory. */
uint32_t *wasp_profile_sorted_site_accesses(const wasp_profile *p, uint32_t site, uint32_t *n);
/* Does the report show the object-centric section? True when p has
 * accesses or meta "events" names "objects" ("objects", "deadstore+objects");
 * in a profile whose "events" is absent (an older wasp's), also when it has
 * sites or the counter "objects.samples". */
bool wasp_profile_has_objects(const wasp_profile *p);
/* Are remote accesses impossible here? True when meta "numa_nodes" is "1"
 * and no access recorded a remote sample (a merge with a profile from a
 * multi-node host brings remote samples in, and they are then shown). */
bool wasp_profile_objects_single_node(const wasp_profile *p);

#endif
