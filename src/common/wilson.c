/* The Wilson score interval (see wilson.h). */
#include "common/wilson.h"

#include <math.h>

void wasp_wilson_interval(double k, double n, double *lo, double *hi)
{
    if (!(n > 0)) {
        *lo = 0;
        *hi = 1;
        return;
    }
    const double z = 1.959964; /* 95%, two-sided */
    double p = k / n, z2n = z * z / n;
    double center = (p + z2n / 2) / (1 + z2n);
    double half = z * sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n);
    /* None of n (all of n) has its end at 0 (1) exactly; computed, it is
     * off by a rounding error, which printed "<0.1%" beside a share of 0. */
    *lo = k > 0 && center - half > 0 ? center - half : 0;
    *hi = k < n && center + half < 1 ? center + half : 1;
}
