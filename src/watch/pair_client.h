/*
 * The pair analyses' client interface: what each samples, how it watches,
 * and how it judges the access that trips its watchpoint. The watchpoint
 * machinery (src/watch/) drives it, so it lives here; the clients are the
 * pair analyses' judges (src/analysis/pairs/deadstore.c, silentstore.c,
 * silentload.c).
 *
 * ASYNC-SIGNAL-SAFE: every callback runs in the SIGTRAP handler. Callbacks see
 * only values already copied out of memory; they never read memory themselves.
 */
#ifndef WASP_PAIR_CLIENT_H
#define WASP_PAIR_CLIENT_H

#include <stdint.h>

#include "catalog/ids.h" /* wasp_analysis */

/* A classified pair's flags (per thread, and in the profile). */
enum wasp_pair_flags {
    WASP_PAIR_APPROX = 1 /* values compared as float/double within the threshold */
};

/* Per analysis: the denominators and numerators of F_prog (JXPerf Sec. 4).
 * bytes: all bytes stored (loaded) in classified pairs, wasteful or not;
 * wasted: exact (integer) wasteful bytes; wasted_approx: float/double ones. */
typedef struct wasp_totals {
    double bytes;
    double wasted;
    double wasted_approx;
    double pairs; /* classified pairs (weighted) */
} wasp_totals;

/* What an armed watchpoint remembers for its analysis. */
typedef struct wasp_watch {
    uint64_t v1;         /* the value of the first access (watched bytes) */
    uint64_t cur;        /* the value after the latest trapped access */
    uint8_t len;         /* watched bytes: 1, 2, 4, 8 */
    uint8_t float_size;  /* 4/8 for float/double accesses, else 0 */
    uint8_t v1_known;
    uint8_t store_traps; /* stores seen while a load watch waits */
} wasp_watch;

typedef enum wasp_verdict {
    WASP_VERDICT_WAIT,   /* not the access this analysis is about: keep watching */
    WASP_VERDICT_WASTE,  /* a dead / silent pair */
    WASP_VERDICT_USEFUL, /* a pair that is not wasteful */
    WASP_VERDICT_DROP    /* cannot judge: count as dropped */
} wasp_verdict;

typedef struct wasp_analysis_client {
    wasp_analysis id;
    uint8_t samples;     /* WASP_ACCESS_LOAD or WASP_ACCESS_STORE: sampled accesses it takes */
    uint8_t watch_loads; /* 1: trap on loads and stores (RW), 0: stores only (W) */
    /* The sampled instruction has not run yet; `before` is memory now. */
    void (*on_sample)(wasp_watch *w, uint64_t before, int before_ok);
    /* The sampled instruction itself trapped; `after` is memory now. */
    void (*on_first_trap)(wasp_watch *w, uint64_t after);
    /* A later access trapped: its kind (WASP_ACCESS_* bits) and memory after it. */
    wasp_verdict (*on_trap)(wasp_watch *w, int kind, uint64_t after, double threshold,
                            int *approx);
} wasp_analysis_client;

extern const wasp_analysis_client wasp_deadstore_client;
extern const wasp_analysis_client wasp_silentstore_client;
extern const wasp_analysis_client wasp_silentload_client;

/* The client for an analysis id, NULL when out of range. */
const wasp_analysis_client *wasp_analysis_client_for(wasp_analysis a);

/* Value equality for silent accesses: integers and bit-identical values
 * exactly; other float/double values within a relative threshold (then
 * *approx = 1, and the pair is reported as approximate). */
int wasp_values_equal(uint64_t a, uint64_t b, uint8_t len, uint8_t float_size,
                      double threshold, int *approx);

#endif
