/*
 * Randomised sampling intervals (sample/jitter.h, sample/interval.c): every
 * interval within (1 +- spread) x the mean, their mean the mean, both halves
 * of the range used evenly, threads' generators apart; lateness taken off
 * the next intervals so that the mean holds with it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "sample/jitter.h"
#include "sample/source.h"

enum { DRAWS = 1000000 };

/* Uniform on [m - w, m + w]: sd = w / sqrt(3); the mean of DRAWS draws is
 * within 5 standard errors of m (a failure by chance: 6e-7). */
static void check_spread(uint64_t mean, double spread)
{
    uint32_t fixed = wasp_jitter_fixed(spread);
    uint64_t w = (uint64_t)((double)mean * fixed / WASP_JITTER_ONE);
    uint64_t state = wasp_jitter_seed(1234, 5678), lo = UINT64_MAX, hi = 0;
    double sum = 0, low_half = 0;
    for (int i = 0; i < DRAWS; i++) {
        uint64_t x = wasp_jitter_next(&state, mean, fixed);
        assert_true(x >= mean - w && x <= mean + w);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        sum += (double)x;
        low_half += x < mean;
    }
    double se = (double)w / sqrt(3.0) / sqrt((double)DRAWS);
    assert_true(fabs(sum / DRAWS - (double)mean) < 5 * se + 1);
    /* The whole range is reached (to 0.1% of it at each end). */
    assert_true(lo <= mean - w + w / 1000 + 1);
    assert_true(hi + w / 1000 + 1 >= mean + w);
    /* Each half holds half the draws: sd 0.0005, bound 10 sd. */
    assert_true(fabs(low_half / DRAWS - 0.5) < 0.005);
}

static void uniform_around_the_mean(void **state)
{
    (void)state;
    check_spread(1000000, 0.5); /* the default: 1 ms +- 50% */
    check_spread(4000000, 0.9);
    check_spread(20011, 0.5);   /* the PMU's default count */
    check_spread(1000, 0.1);
}

static void spread_zero_is_the_period(void **state)
{
    (void)state;
    uint64_t s = wasp_jitter_seed(1, 2);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(wasp_jitter_next(&s, 1000000, 0), 1000000);
    assert_int_equal(wasp_jitter_fixed(0), 0);
    assert_int_equal(wasp_jitter_fixed(0.5), WASP_JITTER_ONE / 2);
    assert_true(wasp_jitter_fixed(1.0) < WASP_JITTER_ONE);
}

/* Consecutive tids (threads started together) draw different sequences. */
static void threads_draw_apart(void **state)
{
    (void)state;
    uint64_t a = wasp_jitter_seed(1000, 42), b = wasp_jitter_seed(1001, 42);
    int same = 0;
    for (int i = 0; i < 1000; i++)
        same += wasp_jitter_next(&a, 1000000, 32768) == wasp_jitter_next(&b, 1000000, 32768);
    assert_true(same < 5);
    uint64_t z = 0; /* a zero state still moves */
    assert_int_not_equal(wasp_jitter_next(&z, 1000000, 32768), wasp_jitter_next(&z, 1000000, 32768));
}

/* A sample that comes late has its lateness taken off the next intervals:
 * arming at each sample's arrival keeps the intervals' mean the period. */
static void lateness_is_taken_off(void **state)
{
    (void)state;
    wasp_source src;
    memset(&src, 0, sizeof src);
    src.jitter = WASP_JITTER_ONE / 2;
    wasp_sampler_thread t;
    memset(&t, 0, sizeof t);
    t.rng = wasp_jitter_seed(7, 8);
    const uint64_t mean = 1000000, late = 25000; /* 25 us after each expiry */
    double total = 0;
    for (int i = 0; i < DRAWS; i++) {
        uint64_t armed = wasp_sampler_after(&src, &t, mean, late);
        assert_true(armed >= mean / 4 && armed <= mean + mean / 2);
        total += (double)(armed + late); /* the interval as the sampler sees it */
    }
    double se = (double)mean / 2 / sqrt(3.0) / sqrt((double)DRAWS);
    assert_true(fabs(total / DRAWS - (double)mean) < 5 * se);
    /* Later than a period is forgiven, not owed for ever. */
    for (int i = 0; i < 100; i++)
        wasp_sampler_after(&src, &t, mean, 5 * mean);
    assert_true(t.owed <= mean);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(uniform_around_the_mean),
        cmocka_unit_test(spread_zero_is_the_period),
        cmocka_unit_test(threads_draw_apart),
        cmocka_unit_test(lateness_is_taken_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
