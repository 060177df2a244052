/*
 * Randomised sampling intervals: each interval between two samples of a
 * thread is drawn uniformly in [mean - w, mean + w], w = spread x mean, so a
 * program whose work repeats with a period near a multiple of the sampling
 * period does not meet the sampler at the same phase every time (aliasing).
 *
 * Why uniform and not exponential (a Poisson process): any spread of the
 * order of the period makes the phase of the n-th sample relative to a
 * program period T <= mean uniform within a few samples (its variance grows
 * as n w^2 / 3), which is all aliasing needs; a uniform draw keeps every
 * interval at least (1 - spread) x mean, where an exponential one would
 * give 10% of intervals under a tenth of the period: bursts of handler
 * work that the sampler's CPU budget (watch/sampler_period.c) would read
 * as overload. The mean is exactly `mean`, so rates, budgets and weights
 * computed from the period stay right.
 *
 * ASYNC-SIGNAL-SAFE: pure arithmetic on a per-thread state.
 */
#ifndef WASP_JITTER_H
#define WASP_JITTER_H

#include <stdint.h>

/* The spread is a fraction of the mean in 1/65536ths: 32768 = +-50%. */
enum { WASP_JITTER_ONE = 65536 };

/* A per-thread generator state from anything that tells threads and runs
 * apart (tid, a clock, an address); never 0. */
uint64_t wasp_jitter_seed(uint64_t a, uint64_t b);

/* The next interval around mean (xorshift64* advances *state). spread in
 * 1/65536ths of the mean, at most WASP_JITTER_ONE - 1; 0 gives mean. */
uint64_t wasp_jitter_next(uint64_t *state, uint64_t mean, uint32_t spread);

/* spread (a fraction, 0 to below 1) in 1/65536ths. */
uint32_t wasp_jitter_fixed(double spread);

#endif
