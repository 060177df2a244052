/*
 * Object replicas (OJXPerf) in the profile: per allocation site (the
 * profile's, profile.h), the comparisons of a sampled field of a newly
 * accessed object with the same field of the site's previously accessed
 * object, keyed by (site, access context), and an optional per-site
 * verification (whole objects compared at the end of the run) that measures
 * α. Its profile part (profile.c) keeps them, writes them as sections REPL
 * and RCHK, merges and groups them.
 */
#ifndef WASP_ANALYSIS_REPLICAS_PROFILE_H
#define WASP_ANALYSIS_REPLICAS_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct wasp_profile wasp_profile;

/* Replica comparisons of one allocation site (index into sites), by the
 * access context where the later object's field was compared. A record with
 * neither (same and different 0) is a place where the site's objects were
 * accessed, sampled (the handler keeps one a thread per 10 ms at most): the
 * summary counts the CPU samples at its line, the rankings leave it out. */
typedef struct wasp_replica {
    uint32_t site;
    uint32_t access_ctx;
    double same;       /* comparisons whose values were bitwise equal */
    double different;  /* ... not equal (including objects of different sizes) */
} wasp_replica;
/* Verification of one site (optional): whole-object comparisons done at the end of the run. */
typedef struct wasp_replica_check {
    uint32_t site;
    double pairs;          /* object pairs compared whole */
    double identical;      /* of those, identical */
    double alpha;          /* chance a sampled field is equal when the objects differ */
    double false_positive; /* of sampled "same" comparisons checked, share whose objects differ */
} wasp_replica_check;

/* p's records (checks), in the order they were first added, and their count
 * in *n (NULL and 0 when there are none). */
const wasp_replica *wasp_profile_replicas(const wasp_profile *p, uint32_t *n);
const wasp_replica_check *wasp_profile_replica_checks(const wasp_profile *p, uint32_t *n);

/* Adds same/different to the record with the same (site, access_ctx),
 * creating it when new (nothing when an id is out of range or out of memory). */
void wasp_profile_add_replica(wasp_profile *p, uint32_t site, uint32_t access_ctx, double same,
                              double different);
/* The same, saying 0, or -1 when an id is out of range or out of memory. */
int wasp_profile_add_replica_checked(wasp_profile *p, uint32_t site, uint32_t access_ctx,
                                     double same, double different);
/* Adds to the equal comparisons of zero words (both objects' words were 0:
 * space allocated and not written) of the record (site, access_ctx), which
 * has as many equal comparisons or more. */
void wasp_profile_add_replica_zeros(wasp_profile *p, uint32_t site, uint32_t access_ctx,
                                    double zeros);
/* The same, saying 0, or -1 when an id is out of range or out of memory
 * (unused: 0, the table's second sum). */
int wasp_profile_add_replica_zeros_checked(wasp_profile *p, uint32_t site, uint32_t access_ctx,
                                           double zeros, double unused);
/* A site's equal comparisons of zero words, over all its contexts (0 in
 * profiles written before they were counted). */
double wasp_replica_site_zero(const wasp_profile *p, uint32_t site);
/* A site whose equal comparisons are this share zero words or more is
 * said to hold mostly zeros, not copies (the report's words). */
#define WASP_REPLICA_MOSTLY_ZERO 0.5
/* Replaces c->site's check, or adds it (nothing when the site is out of range
 * or out of memory). */
void wasp_profile_set_replica_check(wasp_profile *p, const wasp_replica_check *c);
/* The check of a site, NULL when it has none. */
const wasp_replica_check *wasp_profile_replica_check(const wasp_profile *p, uint32_t site);
/* A site is shown to replicate when the low end of θ's 95% interval
 * (wasp_replica_theta_interval) is at least this: with few comparisons, or
 * θ near 0 (a few percent of sampled fields equal is what chance equality,
 * OJXPerf's α, alone gives), it is not. */
#define WASP_REPLICA_MIN_THETA_LOW 0.1
/* Sites with at least one comparison (same + different >= 1), ranked by
 * replicated bytes as far as the evidence supports them: first the sites
 * shown to replicate (θ_low >= WASP_REPLICA_MIN_THETA_LOW), then the
 * others, so a site with θ near 0 or too few comparisons never ranks above
 * one that replicates. Within each, sites with allocated bytes (the site's
 * sampled allocations) come first, by θ_low × bytes, then θ × bytes, then
 * comparisons; then sites without allocated bytes (class sites: untracked
 * objects, whose bytes allocated are unknown), by θ_low × the site's access
 * samples (wasp_profile_site_samples, or its comparisons when it has none),
 * then θ × that, then comparisons. Remaining ties by allocation context,
 * class and site id. Caller frees; non-NULL (even for none) unless out of
 * memory. *n receives the count. */
uint32_t *wasp_profile_sorted_replica_sites(const wasp_profile *p, uint32_t *n);
/* Indices (into the records) of one site's records with comparisons, by
 * comparisons, descending (places, with none, left out); ties by access
 * context id. Caller frees; NULL only when out of memory. */
uint32_t *wasp_profile_sorted_site_replicas(const wasp_profile *p, uint32_t site, uint32_t *n);
/* θ of a site = same / (same + different) over all its replica records; 0 when none.
 * *comparisons (when not NULL) receives same + different. */
double wasp_replica_theta(const wasp_profile *p, uint32_t site, double *comparisons);
/* The 95% Wilson score interval of θ = same / comparisons, as if the
 * comparisons were independent (they are not quite: consecutive ones share
 * an object, so the true interval is somewhat wider). [0, 1] for none. */
void wasp_replica_theta_interval(double same, double comparisons, double *lo, double *hi);
/* OJXPerf Def. 6.2: ω = θ − α, the lower bound of the largest group of
 * identical objects' share of the site's objects (negative: no bound). */
double wasp_replica_omega(double theta, double alpha);
/* OJXPerf Def. 6.3: γ = 1/(2(X−1)) + sqrt(1/(4(X−1)²) + (θ−α)/(1−α)), the
 * upper bound of that share, X the site's objects. (θ−α)/(1−α) below 0 is
 * taken as 0. NAN when X <= 1 or α >= 1 (no bound). */
double wasp_replica_gamma(double theta, double alpha, double x);
/* Does the report show the replica section? True when p has replica records
 * or checks, or when meta "events" names "replicas". */
bool wasp_profile_has_replicas(const wasp_profile *p);

#endif
