/*
 * Pacing (watch/sampler_period.h): while the watchpoint budget refuses
 * samples, the period doubles up to its cap; the first sample the budget
 * lets through brings it back; samples that never reach the budget (no
 * memory access) change nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "watch/sampler_period.h"

static void refusals_double_up_to_the_cap(void **state)
{
    (void)state;
    int shift = 0;
    for (int i = 1; i <= WASP_PACE_MAX_SHIFT; i++) {
        shift = wasp_pace_next(shift, 1, 0);
        assert_int_equal(shift, i);
    }
    for (int i = 0; i < 10; i++)
        shift = wasp_pace_next(shift, 1, 0);
    assert_int_equal(shift, WASP_PACE_MAX_SHIFT);
    assert_true(WASP_PACE_MAX_SHIFT >= 3 && WASP_PACE_MAX_SHIFT <= 6);
}

static void open_budget_restores_the_period(void **state)
{
    (void)state;
    assert_int_equal(wasp_pace_next(4, 0, 1), 0);
    assert_int_equal(wasp_pace_next(0, 0, 1), 0);
}

static void samples_without_a_verdict_keep_it(void **state)
{
    (void)state;
    for (int s = 0; s <= WASP_PACE_MAX_SHIFT; s++)
        assert_int_equal(wasp_pace_next(s, 0, 0), s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refusals_double_up_to_the_cap),
        cmocka_unit_test(open_budget_restores_the_period),
        cmocka_unit_test(samples_without_a_verdict_keep_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
