/*
 * The alloc analysis's rankings for reports: classes, and allocation sites
 * (class + context), by estimated bytes (the default, when the profile has
 * them) or by sampled creations (`wasp report --alloc-rank count`). Pure:
 * from the profile's entries only, but for the order chosen on the command
 * line.
 */
#ifndef WASP_ANALYSIS_ALLOC_RANKING_H
#define WASP_ANALYSIS_ALLOC_RANKING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/alloc/profile.h"

typedef struct wasp_alloc_class {
    uint32_t cls;     /* string id */
    double samples;   /* its sampled creations */
    double bytes;     /* its estimated bytes (0 when not recorded) */
    double catches;   /* the catches they rest on */
    double bytes_sq;  /* their bytes squared, summed (scaled as the bytes are) */
    double outside;   /* of its bytes, those of objects allocated outside TLABs */
    uint32_t nsites;  /* its entries */
} wasp_alloc_class;

typedef struct wasp_alloc_ranking {
    wasp_alloc_class *classes; /* in the ranking's order, then name id */
    uint32_t nclasses;
    uint32_t *sites;           /* entry indices likewise, then class, then context */
    uint32_t nsites;
    double samples;            /* every entry's */
    bool has_bytes;            /* the profile recorded bytes */
    bool by_bytes;             /* ranked by bytes (has_bytes and not --alloc-rank count) */
    bool measured;             /* the total's TLAB part is the windows' measured TLAB bytes */
    double bytes, catches, bytes_sq; /* every entry's */
    double outside;            /* of the bytes, those allocated outside TLABs (section ALOT) */
    double *site_bytes, *site_catches, *site_bytes_sq; /* by entry index (NULL without bytes) */
    double *site_outside;      /* of site_bytes, outside TLABs */
} wasp_alloc_ranking;

/* 0, or -1 when out of memory (r is then empty). */
int wasp_alloc_rank(const wasp_profile *p, wasp_alloc_ranking *r);
void wasp_alloc_ranking_free(wasp_alloc_ranking *r);

/* Rank by sampled creations even when bytes are known; the choice holds for
 * the process (the command line's). */
void wasp_alloc_rank_by_count(bool on);
/* `--alloc-rank bytes|count` of wasp report (report_rank.c): 0, or -1 with
 * err naming the option and the accepted values. */
int wasp_alloc_rank_parse(const char *option, const char *value, char *err, size_t errlen);

/* The catches of equal bytes that would spread as much as these, whose
 * bytes squared add up to bytes_sq: bytes^2 / bytes_sq (Kish's effective
 * sample size); `catches` when the spread is not known (0). */
double wasp_alloc_effective_catches(double bytes, double catches, double bytes_sq);
/* A 95% interval of estimated bytes resting on `catches` effective catches:
 * a Poisson interval on them (Wilson and Hilferty's approximation), scaled
 * by the bytes per catch (docs/alloc.md, "Bytes"). */
void wasp_alloc_bytes_interval(double bytes, double catches, double *lo, double *hi);

#endif
