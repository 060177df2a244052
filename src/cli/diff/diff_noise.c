/*
 * Which changes of a diff (diff.h) are beyond sampling noise. Two runs of
 * one program never sample the same: an entry's share of its analysis's
 * samples moves by chance, and an entry seen once in one run is often not
 * seen in the other. Each entry is tested on its samples, not its bytes:
 * x0 of n0 samples before against x1 of n1 after, a two-proportion z-test
 * with continuity correction (docs/diff.md says why this test), its
 * variance widened by what runs add to sampling (WASP_DIFF_RUN_VARIANCE).
 * Samples that carry weights (a watchpoint stands for the samples since the
 * last one) are fewer independent observations than their sum: both counts
 * are divided by the analysis's mean weight, samples / observations. The
 * tests of one diff are many, so they are held together to WASP_DIFF_ALPHA
 * family-wise by Holm's step-down procedure.
 */
#include "cli/commands/diff.h"

#include <math.h>
#include <stdlib.h>

double wasp_diff_p_value(double x0, double n0, double x1, double n1)
{
    return wasp_diff_p_value_widened(x0, n0, x1, n1, WASP_DIFF_RUN_VARIANCE);
}

double wasp_diff_p_value_widened(double x0, double n0, double x1, double n1, double run_variance)
{
    if (!(n0 > 0) || !(n1 > 0))
        return 1;
    x0 = fmin(fmax(x0, 0), n0);
    x1 = fmin(fmax(x1, 0), n1);
    double pool = (x0 + x1) / (n0 + n1), inv = 1 / n0 + 1 / n1;
    /* Continuity correction: counts are whole; without it a few samples
     * against none read as more evidence than they are. */
    double gap = fabs(x1 / n1 - x0 / n0) - 0.5 * inv;
    if (!(gap > 0))
        return 1;
    double var = run_variance * pool * (1 - pool) * inv;
    if (!(var > 0))
        return 0;
    return erfc(gap / sqrt(var) / sqrt(2));
}

/* An analysis's samples as independent observations: divided by their mean
 * weight (never below 1: samples are never more than observed). */
static double per_observation(const wasp_diff_analysis *a, int s)
{
    double w = a->observations[s] > 0 ? a->samples[s] / a->observations[s] : 1;
    return w > 1 ? w : 1;
}

/* Entries by p-value, smallest first. */
static int by_p(const void *x, const void *y)
{
    double a = (*(wasp_diff_entry *const *)x)->p_value, b = (*(wasp_diff_entry *const *)y)->p_value;
    return a < b ? -1 : a > b;
}

int wasp_diff_test_noise(wasp_diff *d)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < d->n; i++) {
        wasp_diff_entry *e = &d->entries[i];
        const wasp_diff_analysis *a = &d->an[e->section];
        double w0 = per_observation(a, 0), w1 = per_observation(a, 1);
        e->significant = false;
        e->p_value = wasp_diff_p_value(e->samples[0] / w0, a->samples[0] / w0,
                                       e->samples[1] / w1, a->samples[1] / w1);
        m += a->samples[0] > 0 && a->samples[1] > 0; /* a test made */
    }
    wasp_diff_entry **order = malloc((d->n ? d->n : 1) * sizeof *order);
    if (!order)
        return -1;
    for (uint32_t i = 0; i < d->n; i++)
        order[i] = &d->entries[i];
    qsort(order, d->n, sizeof *order, by_p);
    /* Holm: the k-th smallest p (from 0) is significant when it and every
     * smaller one are at most alpha / (m - k). */
    for (uint32_t k = 0; k < d->n && k < m; k++) {
        if (!(order[k]->p_value <= WASP_DIFF_ALPHA / (double)(m - k)))
            break;
        order[k]->significant = true;
    }
    free(order);
    return 0;
}
