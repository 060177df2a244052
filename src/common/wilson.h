/*
 * The Wilson score interval of a proportion: k successes of n trials, 95%
 * two-sided. Used wherever a share rests on counted evidence: replicas' θ,
 * the summary's CPU shares.
 */
#ifndef WASP_COMMON_WILSON_H
#define WASP_COMMON_WILSON_H

/* [*lo, *hi] within [0, 1]; [0, 1] when n is not positive. */
void wasp_wilson_interval(double k, double n, double *lo, double *hi);

#endif
