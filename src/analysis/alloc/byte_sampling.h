/*
 * Which creations the alloc analysis samples on the software samplers: page
 * boundaries of a thread's allocation stream, each picked with the same
 * chance p whatever time the program spends (alloc/handler.c). The object
 * holding a picked boundary is caught by a watchpoint on it; an object of
 * `size` bytes holds size / PAGE boundaries on average, so it is caught with
 * chance p * size / PAGE and weighs the inverse. p follows the thread's
 * allocation rate (about one creation caught every 4 ms of CPU time), and a
 * creation weighs by the p it was picked with, so the estimate stays
 * unbiased.
 *
 * ASYNC-SIGNAL-SAFE: arithmetic only.
 */
#ifndef WASP_ANALYSIS_ALLOC_BYTE_SAMPLING_H
#define WASP_ANALYSIS_ALLOC_BYTE_SAMPLING_H

#include <stdint.h>

enum { WASP_ALLOC_PAGE = 4096 };

/* Bytes of allocation between picked boundaries on average: the bounds, and
 * where a thread starts. */
#define WASP_ALLOC_GAP_MIN (16.0 * 1024)
#define WASP_ALLOC_GAP_MAX (256.0 * 1024 * 1024)
#define WASP_ALLOC_GAP_START (256.0 * 1024)

/* The chance that a page boundary is picked, for a mean gap of `gap` bytes. */
double wasp_alloc_page_chance(double gap);
/* Pages from one picked boundary to the next (>= 1): each boundary on the
 * way is picked with chance p, independently. */
uint64_t wasp_alloc_pages_to_next(double p, uint64_t *rng);
/* A caught object's weight: the inverse of its chance to be caught. */
double wasp_alloc_weight(uint64_t size, double p);
/* Creations caught per ms of the thread's CPU time the gap aims at: enough
 * for a profile in seconds, few enough for the traps to cost under a few
 * percent. Per CPU time, not per sample: the samples only start chains and
 * steer the gap, so the evidence does not depend on the period. */
#define WASP_ALLOC_CATCHES_PER_MS 0.25

/* The mean gap for what follows, from the creations caught since the last
 * sample (`caught`, over `sample_ms` ms of CPU time; *rate, their moving
 * average, is updated): toward WASP_ALLOC_CATCHES_PER_MS, by at most a
 * quarter a sample. */
double wasp_alloc_next_gap(double gap, uint32_t caught, double sample_ms, double *rate);

/* Catches a sample's interval makes at the gap its sample set, per ms of it
 * (at least one; a few: fewer starve programs whose creations come in short
 * bursts, such as SableCC's closures, of evidence). */
#define WASP_ALLOC_BURST_CATCHES_PER_MS 3.0

/* The mean gap for what follows the `caught`-th catch since the last sample
 * (`sample_ms` ms of CPU time apart): doubled past the burst allowance (a
 * burst of allocation, a phase far faster than the samples so far told,
 * then costs a few traps, not dozens), within its bounds. Unbiased still:
 * the next pick's chance depends only on catches already made, and each
 * creation weighs by the chance it was picked with. */
double wasp_alloc_gap_after_catch(double gap, uint32_t caught, double sample_ms);

#endif
