/*
 * Randomised sampling intervals (sample/jitter.h, sample/interval.c): every
 * interval within (1 +- spread) x the mean, their mean the mean, both halves
 * of the range used evenly, threads' generators apart (the lateness taken
 * off the intervals: test_sample_cost.c).
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(uniform_around_the_mean),
        cmocka_unit_test(spread_zero_is_the_period),
        cmocka_unit_test(threads_draw_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
