/*
 * Value comparison for silent stores and loads.
 *
 * ASYNC-SIGNAL-SAFE: pure arithmetic.
 */
#include <math.h>
#include <string.h>

#include "watch/pair_client.h"

static int within(double a, double b, double threshold)
{
    if (a == b)
        return 1;
    if (isnan(a) || isnan(b))
        return 0;
    double scale = fmax(fabs(a), fabs(b));
    return fabs(a - b) <= threshold * scale;
}

int wasp_values_equal(uint64_t a, uint64_t b, uint8_t len, uint8_t float_size,
                      double threshold, int *approx)
{
    *approx = 0;
    if (float_size == 8 && len == 8) {
        double x, y;
        memcpy(&x, &a, 8);
        memcpy(&y, &b, 8);
        if (a == b)
            return 1; /* bit-identical: an exact match */
        *approx = 1;
        return within(x, y, threshold);
    }
    if (float_size == 4 && len == 4) {
        float x, y;
        uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
        memcpy(&x, &ua, 4);
        memcpy(&y, &ub, 4);
        if (ua == ub)
            return 1;
        *approx = 1;
        return within(x, y, threshold);
    }
    uint64_t mask = len >= 8 ? ~0ull : ((1ull << (8 * len)) - 1);
    return (a & mask) == (b & mask);
}

const wasp_analysis_client *wasp_analysis_client_for(wasp_analysis a)
{
    switch (a) {
    case WASP_AN_DEADSTORE: return &wasp_deadstore_client;
    case WASP_AN_SILENTSTORE: return &wasp_silentstore_client;
    case WASP_AN_SILENTLOAD: return &wasp_silentload_client;
    default: return NULL;
    }
}
